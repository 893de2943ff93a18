#!/usr/bin/python3
"""uiscope Qt 5 test fixture: a small, deterministic window with predictable accessible names.

Run with Debian's /usr/bin/python3 (needs python3-pyqt5). Prints nothing to stdout.
Qt joins the AT-SPI bus only when accessibility is on at start-up: run it with
QT_QPA_PLATFORM=xcb QT_ACCESSIBILITY=1 QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1, on a desktop whose
root window carries the AT_SPI_BUS property.

Widgets (accessible name -> Qt role name):
  "Name"            text (QLineEdit, empty)
  "Password"        password text (QLineEdit, EchoMode Password, text "hunter2-qt-secret")
  "Remember me"     check box
  "Red"             combo box (Red, Green, Blue; Red current). accessibleName is "Color", but
                    Qt on Linux names a non-editable combo box after its current text.
  "Submit"          push button: sets the status label to "Submitted: <Name text>"
  "Ready"           label (the status label)
  "Disabled action" push button, disabled

Options:
  --title T         window title (default "uiscope Qt5 fixture")
  --form            add controls for value reads, after "Disabled action": "Name" holds
                    "Ada Lovelace", "Green" is the combo box's current item, and
                      "Count"   spin button (QSpinBox 0..100, value 5)
                      "Volume"  slider (QSlider 0..100, value 30)
                      "Notes"   text (QPlainTextEdit, "12*7\n= 84\n": Qt answers a GetText
                                whose end is past the character count with "")
  --x X --y Y       window position (default 60, 60)
  --rows N          add item views of N rows: a table "Rows" (QTableWidget, columns "Row" and
                    "Value", cells "Row i" and "Value i") and a list "Items" (QListWidget,
                    items "Item i"), i from 1; the window grows to show several rows of each
  --print-positions FILE
                    append where "Name" (text), "Remember me" (check box) and "Submit" (push
                    button) are, as Qt itself places them (not AT-SPI), once the window is
                    shown and again whenever a place changes (checked every 100 ms): a block,
                    written at once,
                      "positions"
                      "origin<TAB>DX<TAB>DY"  where the window's geometry (what the window
                                              manager or compositor places) starts, counted
                                              from the top-level widget's corner: on Wayland
                                              the corner of Qt's own decorations, if it draws
                                              any (-frameMargins), else 0 0
                      "widget<TAB>NAME<TAB>X<TAB>Y<TAB>W<TAB>H<TAB>SX<TAB>SY"
                                              its geometry, X Y counted from the window
                                              geometry's corner (mapTo its window); SX SY its
                                              corner on the screen (mapToGlobal), "-" on
                                              Wayland, where a client cannot know it
                      "a11y<TAB>NAME<TAB>X<TAB>Y<TAB>W<TAB>H"
                                              where the widget's accessible is, when Qt's
                                              accessibility describes a part of it (a check box:
                                              its click rect, SE_CheckBoxClickRect), counted alike
                      "end"
                    and "press<TAB>NAME<TAB>X<TAB>Y<TAB>BUTTON" for each mouse press Qt delivers to
                    one of them or a widget inside it, X Y counted from its corner
"""
import argparse
import signal
import sys

from PyQt5.QtCore import QEvent, QObject, QPoint, Qt, QTimer
from PyQt5.QtWidgets import (QApplication, QCheckBox, QComboBox, QLabel, QLineEdit,
                             QListWidget, QMainWindow, QPlainTextEdit, QPushButton, QSlider,
                             QSpinBox, QStyle, QStyleOptionButton, QTableWidget,
                             QTableWidgetItem, QVBoxLayout, QWidget)

SECRET = "hunter2-qt-secret"

# The widgets --print-positions reports, by accessible name.
POSITIONED = {}


def position_block(win):
    """The --print-positions block for the widgets' places now, or None."""
    handle = win.windowHandle()
    if handle is None or not win.isVisible():
        return None
    wayland = QApplication.platformName().startswith("wayland")
    # On X11 the window manager places the client's own window; on Wayland
    # the window geometry starts at Qt's decorations, when it draws them.
    m = handle.frameMargins() if wayland else None
    cx, cy = (-m.left(), -m.top()) if m is not None else (0, 0)
    lines = ["positions", "origin\t%d\t%d" % (cx, cy)]
    for text, w in POSITIONED.items():
        if not w.isVisible():
            continue
        p = w.mapTo(win, QPoint(0, 0))
        if wayland:
            screen = "-\t-"
        else:
            g = w.mapToGlobal(QPoint(0, 0))
            screen = "%d\t%d" % (g.x(), g.y())
        lines.append("widget\t%s\t%d\t%d\t%d\t%d\t%s" % (text, p.x() - cx, p.y() - cy, w.width(), w.height(), screen))
        if isinstance(w, QCheckBox):
            # As QAccessibleButton::rect does.
            opt = QStyleOptionButton()
            w.initStyleOption(opt)
            r = w.style().subElementRect(QStyle.SE_CheckBoxClickRect, opt, w)
            lines.append("a11y\t%s\t%d\t%d\t%d\t%d" % (text, p.x() - cx + r.x(), p.y() - cy + r.y(), r.width(), r.height()))
    lines.append("end")
    return "\n".join(lines) + "\n"


class PressLog(QObject):
    """Logs each mouse press Qt delivers to a --print-positions widget or
    one inside it, in that widget's coordinates."""

    def __init__(self, out):
        super().__init__()
        self.out = out

    def eventFilter(self, obj, event):
        if event.type() == QEvent.MouseButtonPress and obj.isWidgetType():
            target = obj
            while target is not None:
                for text, w in POSITIONED.items():
                    if w is target:
                        p = obj.mapTo(w, event.pos()) if obj is not w else event.pos()
                        self.out.write("press\t%s\t%d\t%d\t%d\n" % (text, p.x(), p.y(), int(event.button())))
                        return False
                target = target.parentWidget()
        return False


def print_positions(app, win, path):
    """Write the positions block whenever it changes, and log presses
    (--print-positions)."""
    out = open(path, "a", buffering=1)
    last = [None]

    def check():
        block = position_block(win)
        if block is not None and block != last[0]:
            out.write(block)
            out.flush()
            last[0] = block

    timer = QTimer(win)
    timer.timeout.connect(check)
    timer.start(100)
    presses = PressLog(out)
    app.installEventFilter(presses)
    return timer, presses


def build(args):
    # A QMainWindow is exposed as a "frame" (a bare top-level QWidget would be a "filler").
    win = QMainWindow()
    win.setWindowTitle(args.title)
    central = QWidget()
    win.setCentralWidget(central)
    layout = QVBoxLayout(central)

    entry = QLineEdit()
    entry.setAccessibleName("Name")
    entry.setPlaceholderText("Your name")
    layout.addWidget(entry)
    POSITIONED["Name"] = entry

    password = QLineEdit(SECRET)
    password.setEchoMode(QLineEdit.Password)
    password.setAccessibleName("Password")
    layout.addWidget(password)

    remember = QCheckBox("Remember me")
    layout.addWidget(remember)
    POSITIONED["Remember me"] = remember

    combo = QComboBox()
    combo.setAccessibleName("Color")
    combo.addItems(["Red", "Green", "Blue"])
    layout.addWidget(combo)

    status = QLabel("Ready")
    submit = QPushButton("Submit")
    submit.clicked.connect(lambda: status.setText("Submitted: " + entry.text()))
    layout.addWidget(submit)
    POSITIONED["Submit"] = submit
    layout.addWidget(status)

    disabled = QPushButton("Disabled action")
    disabled.setEnabled(False)
    layout.addWidget(disabled)

    if args.form:
        entry.setText("Ada Lovelace")
        combo.setCurrentIndex(1)
        spin = QSpinBox()
        spin.setRange(0, 100)
        spin.setValue(5)
        spin.setAccessibleName("Count")
        layout.addWidget(spin)
        slider = QSlider(Qt.Horizontal)
        slider.setRange(0, 100)
        slider.setValue(30)
        slider.setAccessibleName("Volume")
        layout.addWidget(slider)
        notes = QPlainTextEdit("12*7\n= 84\n")
        notes.setAccessibleName("Notes")
        layout.addWidget(notes)

    height = 520 if args.form else 320
    if args.rows:
        table = QTableWidget(args.rows, 2)
        table.setAccessibleName("Rows")
        table.setHorizontalHeaderLabels(["Row", "Value"])
        for i in range(args.rows):
            table.setItem(i, 0, QTableWidgetItem("Row %d" % (i + 1)))
            table.setItem(i, 1, QTableWidgetItem("Value %d" % (i + 1)))
        table.setMinimumHeight(180)
        layout.addWidget(table)
        items = QListWidget()
        items.setAccessibleName("Items")
        items.addItems(["Item %d" % (i + 1) for i in range(args.rows)])
        items.setMinimumHeight(120)
        layout.addWidget(items)
        height += 360
    else:
        layout.addStretch(1)

    win.resize(500, height)
    win.move(args.x, args.y)
    win.show()
    return win


def main():
    p = argparse.ArgumentParser(description="uiscope Qt 5 fixture")
    p.add_argument("--title", default="uiscope Qt5 fixture")
    p.add_argument("--form", action="store_true")
    p.add_argument("--x", type=int, default=60)
    p.add_argument("--y", type=int, default=60)
    p.add_argument("--rows", type=int, default=0)
    p.add_argument("--print-positions", metavar="FILE")
    args = p.parse_args()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    app = QApplication([sys.argv[0]])  # keep our options away from Qt's own parser
    app.setApplicationName("qt5_fixture.py")
    win = build(args)  # noqa: F841 (keep a reference)
    if args.print_positions:
        keep = print_positions(app, win, args.print_positions)  # noqa: F841
    sys.exit(app.exec_())


if __name__ == "__main__":
    main()
