# uiscope's consent dialog. The server starts it, writes the request as
# JSON on stdin and reads the answer (the chosen button's key) on stdout.
# Every word comes from the server; labels take plain text (set_text, never
# markup). Deny is the default button and has the focus: Enter, Escape or
# closing the window deny. The other buttons never take the keyboard focus,
# so keys (a user's, or an agent's typing that lands here) can only deny:
# allowing takes a click. "shown" is written once the window is mapped, so
# that the server holds its input lock only while the dialog comes up.
import json
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402

req = json.load(sys.stdin)
answer = {"key": "deny"}


def choose(key):
    answer["key"] = key
    Gtk.main_quit()


win = Gtk.Window(title=req["title"])
win.set_keep_above(True)
win.set_resizable(False)
win.set_position(Gtk.WindowPosition.CENTER)
win.connect("delete-event", lambda *a: choose("deny") or True)
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=8, margin=16)
for line in req["lines"]:
    label = Gtk.Label()
    label.set_use_markup(False)
    label.set_text(line)
    label.set_line_wrap(True)
    label.set_max_width_chars(70)
    label.set_xalign(0)
    box.pack_start(label, False, False, 0)
buttons = Gtk.ButtonBox(orientation=Gtk.Orientation.HORIZONTAL, spacing=8)
buttons.set_layout(Gtk.ButtonBoxStyle.END)
deny = None
for key, text in req["buttons"]:
    b = Gtk.Button()
    b.set_label(text)
    b.set_use_underline(False)
    b.connect("clicked", lambda _b, k=key: choose(k))
    if key != "deny":
        b.set_can_focus(False)
    buttons.pack_start(b, False, False, 0)
    if key == "deny":
        deny = b
box.pack_start(buttons, False, False, 0)
win.add(box)
accel = Gtk.AccelGroup()
win.add_accel_group(accel)
deny.add_accelerator("clicked", accel, Gtk.accelerator_parse("Escape")[0], 0, Gtk.AccelFlags.VISIBLE)
deny.set_can_default(True)
win.set_default(deny)


def on_map(*_a):
    sys.stdout.write("shown\n")
    sys.stdout.flush()
    return False


win.connect("map-event", on_map)
win.show_all()
deny.grab_focus()
Gtk.main()
sys.stdout.write(answer["key"] + "\n")
sys.stdout.flush()
