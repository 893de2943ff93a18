// SwingFixture: a Java Swing window for uiscope's tests, run in source-file
// mode (java SwingFixture.java) with the ATK wrapper as assistive
// technology. A table of cities (three named columns), a notes area, a
// button that counts its presses in a label, and a File menu with Save
// As…, which writes the notes to the file named in its dialog.
import java.awt.BorderLayout;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import javax.swing.*;
import javax.swing.table.DefaultTableModel;

public class SwingFixture {
    public static void main(String[] args) {
        String title = args.length > 1 && args[0].equals("--title") ? args[1] : "uiscope Swing fixture";
        SwingUtilities.invokeLater(() -> {
            JFrame frame = new JFrame(title);
            frame.setDefaultCloseOperation(JFrame.EXIT_ON_CLOSE);
            DefaultTableModel model = new DefaultTableModel(new Object[][] {
                {"Lisbon", "Portugal", "545923"},
                {"Oslo", "Norway", "709037"},
                {"Quito", "Ecuador", "2011388"},
            }, new Object[] {"City", "Country", "Population"});
            JTable table = new JTable(model);
            table.getAccessibleContext().setAccessibleName("Cities");
            JTextArea notes = new JTextArea(6, 30);
            notes.getAccessibleContext().setAccessibleName("Notes");
            JLabel count = new JLabel("pressed 0 times");
            JButton press = new JButton("Press me");
            int[] n = {0};
            press.addActionListener(e -> count.setText("pressed " + (++n[0]) + " times"));
            JMenuBar bar = new JMenuBar();
            JMenu file = new JMenu("File");
            JMenuItem saveAs = new JMenuItem("Save As...");
            saveAs.addActionListener(e -> {
                JFileChooser chooser = new JFileChooser();
                chooser.setDialogTitle("Save notes");
                if (chooser.showSaveDialog(frame) == JFileChooser.APPROVE_OPTION) {
                    File f = chooser.getSelectedFile();
                    try {
                        Files.write(f.toPath(), notes.getText().getBytes(StandardCharsets.UTF_8));
                        frame.setTitle(title + " - " + f.getName());
                    } catch (Exception ex) {
                        count.setText("save failed: " + ex.getMessage());
                    }
                }
            });
            file.add(saveAs);
            bar.add(file);
            frame.setJMenuBar(bar);
            JPanel south = new JPanel();
            south.add(press);
            south.add(count);
            frame.add(new JScrollPane(table), BorderLayout.NORTH);
            frame.add(new JScrollPane(notes), BorderLayout.CENTER);
            frame.add(south, BorderLayout.SOUTH);
            frame.pack();
            frame.setVisible(true);
        });
    }
}
