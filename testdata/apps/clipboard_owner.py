#!/usr/bin/env python3
"""A GTK 3 app that owns the X selections: PRIMARY holds --primary and
CLIPBOARD holds --clipboard for as long as it runs. It stands for an
application an agent may not read (outside --apps) whose selection a paste
would carry into one it may. On Wayland a client may set a selection only
with the serial of an input event it got (GTK 3 sets PRIMARY with that of
its last button or key press): the selections are set again when its window
is clicked, as a user's selecting would."""
import argparse

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, Gtk  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--title", default="clipboard owner")
p.add_argument("--primary", required=True)
p.add_argument("--clipboard", required=True)
args = p.parse_args()

win = Gtk.Window(title=args.title)
win.set_default_size(200, 80)
win.move(700, 600)
win.add(Gtk.Label(label="owner"))
win.connect("destroy", Gtk.main_quit)


def own(*_a):
    Gtk.Clipboard.get(Gdk.SELECTION_PRIMARY).set_text(args.primary, -1)
    Gtk.Clipboard.get(Gdk.SELECTION_CLIPBOARD).set_text(args.clipboard, -1)
    return False


win.add_events(Gdk.EventMask.BUTTON_PRESS_MASK)
win.connect("button-press-event", own)
win.show_all()
own()
Gtk.main()
