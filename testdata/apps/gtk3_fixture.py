#!/usr/bin/python3
"""uiscope GTK 3 test fixture: a small, deterministic window with predictable accessible names.

Run with Debian's /usr/bin/python3 (needs python3-gi, gir1.2-gtk-3.0). Prints nothing to stdout.

Widgets (accessible name -> GTK3/ATK role name):
  "Name"            entry (empty)
  "Password"        password text (visibility off, text "hunter2-gtk-secret")
  "Remember me"     check box
  "Color"           combo box (Red, Green, Blue; Red active)
  "Count"           spin button (0..100, value 5)
  "Volume"          slider (0..100, value 30)
  "Submit"          push button: sets the status label to "Submitted: <Name text>"
  "Ready"           label (the status label; its text, and so its name, changes on Submit)
  "Disabled action" push button, insensitive
  "Tree"            tree table: "Fruits" (children "Apple", "Banana", collapsed), "Vegetables"

Options:
  --title T            window title (default "uiscope GTK3 fixture")
  --rows N             add a scrolled list "Rows" (tree table) with rows "Row 1".."Row N"
  --multi              the --rows list selects several rows (Shift+click selects a range)
  --timer-label MS     add a label "Tick 0" whose number goes up every MS ms
  --tick-log FILE      with --timer-label: append "N TIME_NS" to FILE at each tick, N the new number
                       and TIME_NS the wall clock in Unix nanoseconds just after the label changed
  --many-labels N      add N labels "Item 1".."Item N" in a scrolled box; on SIGUSR2 each is renamed
                       "Item I (K)", K counting the signals (N changes at once)
  --tick-on-signal     with --timer-label: start ticking on SIGUSR2 only (the app reports
                       changes from a moment the test chooses, once it has been read); not
                       with --many-labels, which SIGUSR2 drives too
  --delayed-dialog MS  after MS ms open a dialog "Delayed dialog" with an "OK" button (closes it)
  --removable-label    add a label "Removable" just before "Tree", destroyed on SIGUSR1 (an
                       element before others disappears, at a moment the test chooses)
  --form               fill the form for value reads: "Name" holds "Ada Lovelace", and a text
                       area "Notes" (text, multi-line) holds "first line\nsecond line" (after "Tree")
  --native-submit      give "Submit" a native X window (its input window made native), so
                       that a button has a window of its own in the visual tree
  --effects            add, after everything else, what an action's effects are checked on:
                       "Effects entry" (entry, empty), "Effects next" (push button, the next in
                       the focus chain), "Open dialog" (push button: opens the dialog "Effects
                       dialog", not modal, with a push button "Close" that closes it) and
                       "Remove me" (push button that destroys itself when clicked)
  --log FILE           append a line per event: "focus NAME" when a widget of the main window
                       takes the focus (NAME its accessible name), "dialog-open" and
                       "dialog-closed", "removed Remove me", "toggled Remember me True|False",
                       "scrolled Rows" (the --rows list's view moved)
  --input-log FILE     append a line per input event the app gets, as it gets it: "press N" and
                       "release N" (pointer button N), "key-press NAME" and "key-release NAME"
                       (NAME the keyval's name), "mods M" when the keyboard's modifier state
                       changes and after each key event (M its GdkModifierType mask; 0 is
                       none held): the app's own
                       account of what is held, where a Wayland client cannot read the seat
  --headerbar          a header bar as the window's title bar (Gtk.HeaderBar with a close
                       button, as GNOME apps have): client-side decorations, with an invisible
                       resize border where the desktop composites
  --print-positions FILE
                       append where "Name" (entry), "Remember me" (check box) and "Submit"
                       (push button) are, as GTK itself places them (not AT-SPI), once the
                       window is mapped and again whenever a place changes (checked every
                       100 ms): a block, written at once,
                         "positions"
                         "origin<TAB>DX<TAB>DY"  where the window's geometry (what the window
                                                 manager places: the window without its
                                                 client-side shadow) starts in its surface
                         "widget<TAB>NAME<TAB>X<TAB>Y<TAB>W<TAB>H<TAB>SX<TAB>SY"
                                                 its allocation, X Y counted from the window
                                                 geometry's corner; SX SY its corner on the
                                                 screen (Gdk.Window.get_origin), "-" on
                                                 Wayland, where a client cannot know it
                         "end"
                       and "press<TAB>NAME<TAB>X<TAB>Y<TAB>BUTTON" for each button press GTK
                       dispatches to one of them or inside it, X Y counted from its corner
  --x X --y Y          window position (default 40, 40)
"""
import argparse
import signal
import sys
import time

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

SECRET = "hunter2-gtk-secret"


def name(widget, text):
    """Give a widget a fixed accessible name and return it."""
    widget.get_accessible().set_name(text)
    return widget


LOG = None


def log_event(line):
    if LOG:
        LOG.write(line + "\n")


def add_effects(win, box):
    """The widgets an action's effects are checked on (--effects)."""
    box.pack_start(name(Gtk.Entry(), "Effects entry"), False, False, 0)
    box.pack_start(Gtk.Button(label="Effects next"), False, False, 0)

    def open_dialog(_b):
        dialog = Gtk.Dialog(title="Effects dialog", transient_for=win, modal=False)
        dialog.add_button("Close", Gtk.ResponseType.CLOSE)
        dialog.get_content_area().add(Gtk.Label(label="A dialog an action opened."))
        dialog.connect("response", lambda d, _r: d.destroy())
        dialog.connect("destroy", lambda _d: log_event("dialog-closed"))
        dialog.show_all()
        log_event("dialog-open")

    opener = Gtk.Button(label="Open dialog")
    opener.connect("clicked", open_dialog)
    box.pack_start(opener, False, False, 0)

    def remove(b):
        b.destroy()
        log_event("removed Remove me")

    remover = Gtk.Button(label="Remove me")
    remover.connect("clicked", remove)
    box.pack_start(remover, False, False, 0)

    def focused(_w, widget):
        if widget is not None:
            log_event("focus " + (widget.get_accessible().get_name() or ""))

    win.connect("set-focus", focused)


def build(args):
    win = Gtk.Window(title=args.title)
    if args.headerbar:
        win.set_titlebar(Gtk.HeaderBar(title=args.title, show_close_button=True))
    win.set_default_size(600, 500)
    win.move(args.x, args.y)
    win.connect("destroy", Gtk.main_quit)

    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=4, border_width=8)
    win.add(box)

    entry = name(Gtk.Entry(placeholder_text="Your name"), "Name")
    box.pack_start(entry, False, False, 0)

    password = name(Gtk.Entry(visibility=False, text=SECRET), "Password")
    box.pack_start(password, False, False, 0)

    remember = Gtk.CheckButton(label="Remember me")
    POSITIONED["Name"], POSITIONED["Remember me"] = entry, remember
    remember.connect("toggled", lambda b: log_event("toggled Remember me %s" % b.get_active()))
    box.pack_start(remember, False, False, 0)

    combo = Gtk.ComboBoxText()
    for color in ("Red", "Green", "Blue"):
        combo.append_text(color)
    combo.set_active(0)
    box.pack_start(name(combo, "Color"), False, False, 0)

    spin = Gtk.SpinButton.new_with_range(0, 100, 1)
    spin.set_value(5)
    box.pack_start(name(spin, "Count"), False, False, 0)

    scale = Gtk.Scale.new_with_range(Gtk.Orientation.HORIZONTAL, 0, 100, 1)
    scale.set_value(30)
    box.pack_start(name(scale, "Volume"), False, False, 0)

    status = Gtk.Label(label="Ready", xalign=0)
    submit = Gtk.Button(label="Submit")
    submit.connect("clicked", lambda _b: status.set_text("Submitted: " + entry.get_text()))
    POSITIONED["Submit"] = submit
    box.pack_start(submit, False, False, 0)
    box.pack_start(status, False, False, 0)

    disabled = Gtk.Button(label="Disabled action", sensitive=False)
    box.pack_start(disabled, False, False, 0)

    if args.lockable:
        # A check button that makes the Name entry read-only: the entry's
        # editable properties change while it stays the same element.
        lock = Gtk.CheckButton(label="Lock name")
        lock.connect("toggled", lambda b: entry.set_editable(not b.get_active()))
        box.pack_start(lock, False, False, 0)

    if args.removable_label:
        removable = Gtk.Label(label="Removable", xalign=0)
        box.pack_start(removable, False, False, 0)

        def remove():
            removable.destroy()
            return GLib.SOURCE_REMOVE

        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, remove)

    store = Gtk.TreeStore(str)
    fruits = store.append(None, ["Fruits"])
    store.append(fruits, ["Apple"])
    store.append(fruits, ["Banana"])
    store.append(None, ["Vegetables"])
    tree = Gtk.TreeView(model=store)
    tree.append_column(Gtk.TreeViewColumn("Item", Gtk.CellRendererText(), text=0))
    box.pack_start(name(tree, "Tree"), False, False, 0)

    if args.form:
        entry.set_text("Ada Lovelace")
        notes = Gtk.TextView()
        notes.get_buffer().set_text("first line\nsecond line")
        box.pack_start(name(notes, "Notes"), False, False, 0)

    if args.rows is not None:
        rows = Gtk.ListStore(str)
        for i in range(1, args.rows + 1):
            rows.append(["Row %d" % i])
        view = Gtk.TreeView(model=rows)
        view.append_column(Gtk.TreeViewColumn("Row", Gtk.CellRendererText(), text=0))
        if args.multi:
            view.get_selection().set_mode(Gtk.SelectionMode.MULTIPLE)
        scroller = Gtk.ScrolledWindow(min_content_height=120)
        scroller.set_policy(Gtk.PolicyType.NEVER, Gtk.PolicyType.AUTOMATIC)
        scroller.add(name(view, "Rows"))
        scroller.get_vadjustment().connect("value-changed", lambda _a: log_event("scrolled Rows"))
        box.pack_start(scroller, True, True, 0)

    if args.timer_label is not None:
        tick = Gtk.Label(label="Tick 0", xalign=0)
        box.pack_start(tick, False, False, 0)
        count = [0]

        log = open(args.tick_log, "a", buffering=1) if args.tick_log else None

        def on_tick():
            count[0] += 1
            tick.set_text("Tick %d" % count[0])
            if log:
                log.write("%d %d\n" % (count[0], time.time_ns()))
            return GLib.SOURCE_CONTINUE

        if args.tick_on_signal:
            def start():
                GLib.timeout_add(args.timer_label, on_tick)
                return GLib.SOURCE_REMOVE

            GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR2, start)
        else:
            GLib.timeout_add(args.timer_label, on_tick)

    if args.many_labels is not None:
        items = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
        labels = [Gtk.Label(label="Item %d" % (i + 1), xalign=0) for i in range(args.many_labels)]
        for lbl in labels:
            items.pack_start(lbl, False, False, 0)
        scroller = Gtk.ScrolledWindow(min_content_height=100)
        scroller.add(items)
        box.pack_start(scroller, True, True, 0)
        renamed = [0]

        def rename_all():
            renamed[0] += 1
            for i, lbl in enumerate(labels):
                lbl.set_text("Item %d (%d)" % (i + 1, renamed[0]))
            return GLib.SOURCE_CONTINUE

        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR2, rename_all)

    if args.delayed_dialog is not None:
        def open_dialog():
            dialog = Gtk.Dialog(title="Delayed dialog", transient_for=win, modal=False)
            dialog.add_button("OK", Gtk.ResponseType.OK)
            dialog.get_content_area().add(Gtk.Label(label="This dialog opened after a delay."))
            dialog.connect("response", lambda d, _r: d.destroy())
            dialog.show_all()
            return GLib.SOURCE_REMOVE

        GLib.timeout_add(args.delayed_dialog, open_dialog)

    if args.effects:
        add_effects(win, box)

    win.show_all()
    if args.native_submit:
        # GTK 3 draws its widgets into the top-level window; a button's
        # input window is client-side. Made native, it is an X window of
        # exactly the button's allocation: a widget with a window of its own.
        alloc = submit.get_allocation()
        for child in win.get_window().get_children():
            x, y, w, h = child.get_geometry()
            if (x, y, w, h) == (alloc.x, alloc.y, alloc.width, alloc.height):
                child.ensure_native()
    return win


# The widgets --print-positions reports, by accessible name.
POSITIONED = {}


def content_origin(win):
    """Where the window's geometry starts in its surface (toplevel GdkWindow).

    A client-side decorated window (style class csd) draws a shadow and a
    resize border around itself, and GTK places its title bar at their inner
    corner, where it tells the desktop its window geometry starts
    (gdk_window_set_shadow_width); otherwise the surface is the window.
    """
    if not win.get_style_context().has_class("csd"):
        return 0, 0
    bars = []
    win.forall(lambda w: bars.append(w) if w.get_style_context().has_class("titlebar") else None)
    for bar in bars:
        if bar.get_mapped():
            return bar.translate_coordinates(win, 0, 0)
    return 0, 0


def position_block(win):
    """The --print-positions block for the widgets' places now, or None."""
    top = win.get_window()
    if top is None or not win.get_mapped():
        return None
    cx, cy = content_origin(win)
    wayland = top.get_display().__gtype__.name.startswith("GdkWayland")
    ox, oy = top.get_origin()[1:]
    lines = ["positions", "origin\t%d\t%d" % (cx, cy)]
    for text, w in POSITIONED.items():
        if not w.get_mapped():
            continue
        a = w.get_allocation()
        x, y = w.translate_coordinates(win, 0, 0)
        screen = "-\t-" if wayland else "%d\t%d" % (ox + x, oy + y)
        lines.append("widget\t%s\t%d\t%d\t%d\t%d\t%s" % (text, x - cx, y - cy, a.width, a.height, screen))
    lines.append("end")
    return "\n".join(lines) + "\n"


def print_positions(win, path):
    """Write the positions block whenever it changes (--print-positions)."""
    out = open(path, "a", buffering=1)
    last = [None]

    def check():
        block = position_block(win)
        if block is not None and block != last[0]:
            out.write(block)
            out.flush()
            last[0] = block
        return GLib.SOURCE_CONTINUE

    GLib.timeout_add(100, check)
    return out


def toplevel_coords(event, top):
    """An event's coordinates in the toplevel GdkWindow top, or None."""
    w, x, y = event.get_window(), event.x, event.y
    while w is not None and w != top:
        x, y = w.coords_to_parent(x, y)
        w = w.get_effective_parent()
    return (x, y) if w == top else None


def log_press(out, win, event):
    """Log a button press GTK dispatches to a --print-positions widget."""
    target = Gtk.get_event_widget(event)
    while target is not None:
        for text, w in POSITIONED.items():
            if w is target:
                at = toplevel_coords(event, win.get_window())
                if at is None:
                    return
                x, y = w.translate_coordinates(win, 0, 0)
                out.write("press\t%s\t%d\t%d\t%d\n" % (text, round(at[0] - x), round(at[1] - y), event.button.button))
                return
        target = target.get_parent()


def log_input(path, positions=None, win=None):
    """Log every button and key event and modifier change (--input-log), and
    button presses on the --print-positions widgets (to positions)."""
    out = open(path, "a", buffering=1) if path else None
    kinds = {
        Gdk.EventType.BUTTON_PRESS: "press", Gdk.EventType.BUTTON_RELEASE: "release",
        Gdk.EventType.KEY_PRESS: "key-press", Gdk.EventType.KEY_RELEASE: "key-release",
    }

    keymap = Gdk.Keymap.get_for_display(Gdk.Display.get_default())

    def mods(*_a):
        if out:
            out.write("mods %d\n" % int(keymap.get_modifier_state()))

    def handle(event, _data):
        kind = kinds.get(event.type)
        if positions and event.type == Gdk.EventType.BUTTON_PRESS:
            log_press(positions, win, event)
        if out and kind in ("press", "release"):
            out.write("%s %d\n" % (kind, event.button.button))
        elif out and kind is not None:
            out.write("%s %s\n" % (kind, Gdk.keyval_name(event.key.keyval)))
        Gtk.main_do_event(event)
        if kind is not None and kind.startswith("key-"):
            mods()  # a key event can change the state without state-changed

    Gdk.Event.handler_set(handle, None)
    keymap.connect("state-changed", mods)


def main():
    p = argparse.ArgumentParser(description="uiscope GTK 3 fixture")
    p.add_argument("--title", default="uiscope GTK3 fixture")
    p.add_argument("--rows", type=int, metavar="N")
    p.add_argument("--multi", action="store_true", help="the --rows list selects several rows (Shift+click a range)")
    p.add_argument("--timer-label", type=int, metavar="MS")
    p.add_argument("--tick-log", metavar="FILE")
    p.add_argument("--many-labels", type=int, metavar="N")
    p.add_argument("--tick-on-signal", action="store_true")
    p.add_argument("--delayed-dialog", type=int, metavar="MS")
    p.add_argument("--removable-label", action="store_true")
    p.add_argument("--lockable", action="store_true")
    p.add_argument("--native-submit", action="store_true")
    p.add_argument("--form", action="store_true")
    p.add_argument("--effects", action="store_true")
    p.add_argument("--log", metavar="FILE")
    p.add_argument("--input-log", metavar="FILE")
    p.add_argument("--headerbar", action="store_true")
    p.add_argument("--print-positions", metavar="FILE")
    p.add_argument("--x", type=int, default=40)
    p.add_argument("--y", type=int, default=40)
    args = p.parse_args()
    global LOG
    LOG = open(args.log, "a", buffering=1) if args.log else None
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    Gtk.init([sys.argv[0]])
    win = build(args)
    positions = print_positions(win, args.print_positions) if args.print_positions else None
    if args.input_log or positions:
        log_input(args.input_log, positions, win)
    Gtk.main()


if __name__ == "__main__":
    main()
