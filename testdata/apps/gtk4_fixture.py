#!/usr/bin/python3
"""uiscope GTK 4 test fixture: a small, deterministic window with predictable accessible names.

Run with Debian's /usr/bin/python3 (needs python3-gi, gir1.2-gtk-4.0). Prints nothing to stdout.
Under Xvfb run it with GSK_RENDERER=cairo: GTK 4 may take a few seconds to register on the
AT-SPI bus, so poll for it.

Widgets (accessible name -> GTK 4.8 role name):
  "Name"         text (Gtk.Entry, empty)
  "Password"     password text (Gtk.PasswordEntry, text "hunter2-gtk4-secret")
  "Remember me"  check box
  "Submit"       button: sets the status label to "Submitted: <Name text>"
  "Ready"        label (the status label)
  "PIN"          text (Gtk.Entry with visibility off, text "gtk4-hidden-entry-secret",
                 placeholder "pin-placeholder-hint"): GTK 4.8 gives it the role of a
                 plain entry, and its Text.GetText answers the real characters

Options:
  --title T      window title (default "uiscope GTK4 fixture")
  --form         add controls for value reads, after "PIN": "Name" holds "Ada Lovelace", and
                   "Count"   spin button (0..100, value 5)
                   "Volume"  slider (0..100, value 30)
                   "Color"   combo box (Gtk.DropDown: Red, Green, Blue; Green selected)
                   "Notes"   text (Gtk.TextView, multi-line, "first line\nsecond line")
  --replace      add, after "PIN", a text "Document" (Gtk.TextView, "one two one two one two") and
                 a button "Replace All" that replaces each "one" by "1", one every 100 ms from
                 150 ms after the click, as an editor's replace running from its main loop
                 does; GTK 4.8 announces none of it on the AT-SPI bus
  --log FILE     append "replaced all" when the last replacement is done
  --headerbar    a header bar as the window's title bar (Gtk.HeaderBar): client-side
                 decorations with a title bar of GTK's own, as GNOME apps have
  --print-positions FILE
                 append where "Name" (text), "Remember me" (check box) and "Submit" (button) are,
                 as GTK itself places them (compute_bounds, not AT-SPI), once the window is
                 mapped and again whenever a place changes (checked every 100 ms): a block,
                 written at once,
                   "positions"
                   "origin<TAB>DX<TAB>DY"  where the window's geometry (what the compositor or
                                           window manager places: the window widget's border
                                           box, without its client-side shadow) starts in its
                                           surface
                   "widget<TAB>NAME<TAB>X<TAB>Y<TAB>W<TAB>H<TAB>-<TAB>-"
                                           its bounds, X Y counted from the window geometry's
                                           corner (GTK 4 cannot say where its surface is on
                                           the screen: the last two fields are always "-")
                   "a11y<TAB>NAME<TAB>X<TAB>Y<TAB>W<TAB>H"
                                           the part of it GTK's accessibility describes, counted
                                           alike: GTK 4.8 gives AT-SPI its content box (inside
                                           its padding and border: get_width, get_height)
                   "end"
                 and "press<TAB>NAME<TAB>X<TAB>Y<TAB>BUTTON" for each button press that reaches
                 one of them (or a widget inside it), X Y counted from its corner
"""
import argparse
import signal
import sys

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Graphene", "1.0")
from gi.repository import GLib, Graphene, Gtk  # noqa: E402

SECRET = "hunter2-gtk4-secret"
HIDDEN_SECRET = "gtk4-hidden-entry-secret"


def name(widget, text):
    """Give a widget a fixed accessible name (the LABEL property) and return it."""
    widget.update_property([Gtk.AccessibleProperty.LABEL], [text])
    return widget


# The widgets --print-positions reports, by accessible name.
POSITIONED = {}


def content_origin(win):
    """Where the window's geometry starts in its native's coordinates.

    GTK tells the desktop that its window geometry is the window widget's
    border box (the surface less the CSS margin: the shadow and resize
    border of client-side decorations), and counts the native's own
    coordinates from its content box, border and padding further in.
    """
    ok, b = win.compute_bounds(win)
    return (b.get_x(), b.get_y()) if ok else (0, 0)


def position_block(win):
    """The --print-positions block for the widgets' places now, or None."""
    if not win.get_mapped() or win.get_surface() is None:
        return None
    cx, cy = content_origin(win)
    sx, sy = win.get_surface_transform()
    lines = ["positions", "origin\t%d\t%d" % (round(sx + cx), round(sy + cy))]
    for text, w in POSITIONED.items():
        if not w.get_mapped() or w.get_native() is not win:
            continue
        ok, b = w.compute_bounds(win)
        if not ok:
            continue
        lines.append("widget\t%s\t%d\t%d\t%d\t%d\t-\t-" % (
            text, round(b.get_x() - cx), round(b.get_y() - cy), round(b.get_width()), round(b.get_height())))
        ok, p = w.compute_point(win, Graphene.Point().init(0, 0))
        if ok:
            lines.append("a11y\t%s\t%d\t%d\t%d\t%d" % (
                text, round(p.x - cx), round(p.y - cy), w.get_width(), w.get_height()))
    lines.append("end")
    return "\n".join(lines) + "\n"


def print_positions(win, path):
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
        return GLib.SOURCE_CONTINUE

    GLib.timeout_add(100, check)

    for text, w in POSITIONED.items():
        # A click gesture in the capture phase sees every press that reaches
        # the widget or one inside it, in the widget's coordinates, before
        # the widget handles it; it claims nothing, so the widget's own
        # gestures run as before.
        click = Gtk.GestureClick(button=0)
        click.set_propagation_phase(Gtk.PropagationPhase.CAPTURE)

        def pressed(g, _n, x, y, text=text, w=w):
            # The widget's coordinates count from its content box: from its
            # corner (its border box, as in the widget line) it is further.
            ok, b = w.compute_bounds(w)
            dx, dy = (b.get_x(), b.get_y()) if ok else (0, 0)
            out.write("press\t%s\t%d\t%d\t%d\n" % (text, round(x - dx), round(y - dy), g.get_current_button()))

        click.connect("pressed", pressed)
        w.add_controller(click)


def build(args, loop):
    win = Gtk.Window(title=args.title)
    if args.headerbar:
        win.set_titlebar(Gtk.HeaderBar())
    win.set_default_size(500, 300)
    win.connect("close-request", lambda _w: (loop.quit(), False)[1])

    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=4)
    for side in ("top", "bottom", "start", "end"):
        getattr(box, "set_margin_" + side)(8)
    win.set_child(box)

    entry = name(Gtk.Entry(placeholder_text="Your name"), "Name")
    box.append(entry)
    POSITIONED["Name"] = entry

    password = Gtk.PasswordEntry()
    password.set_text(SECRET)
    box.append(name(password, "Password"))

    remember = Gtk.CheckButton(label="Remember me")
    box.append(remember)
    POSITIONED["Remember me"] = remember

    status = Gtk.Label(label="Ready", xalign=0)
    submit = Gtk.Button(label="Submit")
    submit.connect("clicked", lambda _b: status.set_text("Submitted: " + entry.get_text()))
    box.append(submit)
    POSITIONED["Submit"] = submit
    box.append(status)

    # Last, so that the widgets above keep their places.
    pin = Gtk.Entry(visibility=False, placeholder_text="pin-placeholder-hint")
    pin.set_text(HIDDEN_SECRET)
    box.append(name(pin, "PIN"))

    if args.replace:
        doc = Gtk.TextView()
        doc.get_buffer().set_text("one two one two one two")
        box.append(name(doc, "Document"))
        replace = Gtk.Button(label="Replace All")

        def step():
            buf = doc.get_buffer()
            text = buf.get_text(buf.get_start_iter(), buf.get_end_iter(), False)
            if "one" not in text:
                if args.log:
                    with open(args.log, "a") as f:
                        f.write("replaced all\n")
                return False
            buf.set_text(text.replace("one", "1", 1))
            return True

        def first():
            if step():
                GLib.timeout_add(100, step)
            return False

        replace.connect("clicked", lambda _b: GLib.timeout_add(150, first))

        box.append(replace)

    if args.form:
        entry.set_text("Ada Lovelace")
        spin = Gtk.SpinButton.new_with_range(0, 100, 1)
        spin.set_value(5)
        box.append(name(spin, "Count"))
        scale = Gtk.Scale.new_with_range(Gtk.Orientation.HORIZONTAL, 0, 100, 1)
        scale.set_value(30)
        box.append(name(scale, "Volume"))
        color = Gtk.DropDown.new_from_strings(["Red", "Green", "Blue"])
        color.set_selected(1)
        box.append(name(color, "Color"))
        notes = Gtk.TextView()
        notes.get_buffer().set_text("first line\nsecond line")
        box.append(name(notes, "Notes"))

    if args.print_positions:
        print_positions(win, args.print_positions)
    win.present()
    return win


def main():
    p = argparse.ArgumentParser(description="uiscope GTK 4 fixture")
    p.add_argument("--title", default="uiscope GTK4 fixture")
    p.add_argument("--form", action="store_true")
    p.add_argument("--replace", action="store_true")
    p.add_argument("--log")
    p.add_argument("--headerbar", action="store_true")
    p.add_argument("--print-positions", metavar="FILE")
    args = p.parse_args()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # GTK 4 names the AT-SPI application after the program name ("Unnamed" otherwise).
    GLib.set_prgname("gtk4_fixture.py")
    if not Gtk.init_check():
        sys.exit("gtk4_fixture: cannot open display")
    loop = GLib.MainLoop()
    build(args, loop)
    loop.run()


if __name__ == "__main__":
    main()
