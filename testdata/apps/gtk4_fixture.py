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
"""
import argparse
import signal
import sys

import gi

gi.require_version("Gtk", "4.0")
from gi.repository import GLib, Gtk  # noqa: E402

SECRET = "hunter2-gtk4-secret"
HIDDEN_SECRET = "gtk4-hidden-entry-secret"


def name(widget, text):
    """Give a widget a fixed accessible name (the LABEL property) and return it."""
    widget.update_property([Gtk.AccessibleProperty.LABEL], [text])
    return widget


def build(args, loop):
    win = Gtk.Window(title=args.title)
    win.set_default_size(500, 300)
    win.connect("close-request", lambda _w: (loop.quit(), False)[1])

    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=4)
    for side in ("top", "bottom", "start", "end"):
        getattr(box, "set_margin_" + side)(8)
    win.set_child(box)

    entry = name(Gtk.Entry(placeholder_text="Your name"), "Name")
    box.append(entry)

    password = Gtk.PasswordEntry()
    password.set_text(SECRET)
    box.append(name(password, "Password"))

    box.append(Gtk.CheckButton(label="Remember me"))

    status = Gtk.Label(label="Ready", xalign=0)
    submit = Gtk.Button(label="Submit")
    submit.connect("clicked", lambda _b: status.set_text("Submitted: " + entry.get_text()))
    box.append(submit)
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

    win.present()
    return win


def main():
    p = argparse.ArgumentParser(description="uiscope GTK 4 fixture")
    p.add_argument("--title", default="uiscope GTK4 fixture")
    p.add_argument("--form", action="store_true")
    p.add_argument("--replace", action="store_true")
    p.add_argument("--log")
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
