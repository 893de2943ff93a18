#!/usr/bin/python3
"""uiscope GTK 4 fixture for windows opened after connect: a main window that opens a dialog
and a popover menu, and says where its widgets are, so that a test can check geometry,
clicks and captures without asking uiscope.

Run with Debian's /usr/bin/python3 (needs python3-gi, gir1.2-gtk-4.0) and GSK_RENDERER=cairo
under Xvfb. Prints nothing to stdout; with --log it appends one line per event to FILE.

Main window (title --title, default "gtk4 dialogs"; a header bar, so client-side decorations
with a resize border, as GNOME apps have, unless --ssd):
  "Open dialog"   button: opens the dialog
  "Menu"          menu button: pops up a menu with "First item" and "Second item" (a popover,
                  a window of its own); choosing one logs "chose First item"
  "Main option"   check box (GTK 4.8 gives check boxes no action: a click is a pointer click)
  "Main status"   label
Dialog (title "Confirm File Format", accessible name --dialog-name, default the title; not
modal, transient for the main window):
  "Dialog option" check box; toggling it logs "toggled Dialog option True|False"
  "Keep format"   button; logs "clicked Keep format"
  "Close dialog"  button; closes the dialog

  --twin          "Open dialog" opens two such dialogs, alike in title, size and widgets
  --effects       add, after "Main status", what an action's effects are checked on:
                  "Effects entry" (text, empty), "Effects next" (button, the next in the focus
                  chain) and "Remove me" (button that removes itself when clicked, logging
                  "removed Remove me"); the log then also says "focus NAME" when a named
                  widget of the main window takes the focus, and the dialog's role is dialog
                  (a plain window's is frame)

Signals:
  SIGUSR1  log "geom<TAB>NAME<TAB>WINDOW TITLE<TAB>X<TAB>Y<TAB>W<TAB>H" for each named widget
           that is mapped: its bounds in its own X window (counted from the window's corner,
           resize border included: add X's origin of that window for screen pixels), then
           "window TITLE" and "native<TAB>TITLE<TAB>X<TAB>Y" (where its coordinates start in its
           surface: the border's left and top) for each mapped top level, then "geom-end"
  SIGUSR2  rename the main window to "<title> (renamed)"

Log lines: "ready", "dialog-open", "dialog-closed", "menu-open", the events above.
"""
import argparse
import signal
import sys

import gi

gi.require_version("Gtk", "4.0")
from gi.repository import Gio, GLib, Gtk  # noqa: E402

DIALOG_TITLE = "Confirm File Format"


class Fixture:
    def __init__(self, args, loop):
        self.args = args
        self.loop = loop
        self.log_file = open(args.log, "a", buffering=1) if args.log else None
        self.named = {}  # accessible name -> widget
        self.dialog = None
        self.build()

    def log(self, line):
        if self.log_file:
            self.log_file.write(line + "\n")

    def name(self, widget, text):
        widget.update_property([Gtk.AccessibleProperty.LABEL], [text])
        self.named[text] = widget
        return widget

    def build(self):
        win = Gtk.Window(title=self.args.title)
        self.win = win
        win.set_default_size(520, 360)
        if not self.args.ssd:
            win.set_titlebar(Gtk.HeaderBar())
        win.connect("close-request", lambda _w: (self.loop.quit(), False)[1])

        box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
        for side in ("top", "bottom", "start", "end"):
            getattr(box, "set_margin_" + side)(12)
        win.set_child(box)

        opener = Gtk.Button(label="Open dialog")
        opener.connect("clicked", lambda _b: self.open_dialog())
        box.append(self.name(opener, "Open dialog"))

        menu = Gio.Menu()
        menu.append("First item", "win.choose::First item")
        menu.append("Second item", "win.choose::Second item")
        action = Gio.SimpleAction.new("choose", GLib.VariantType.new("s"))
        action.connect("activate", lambda _a, v: self.log("chose " + v.get_string()))
        group = Gio.SimpleActionGroup()
        group.add_action(action)
        win.insert_action_group("win", group)
        mb = Gtk.MenuButton(label="Menu", menu_model=menu)
        popover = mb.get_popover()
        popover.connect("show", lambda _p: GLib.idle_add(self.after_layout, "menu-open"))
        box.append(self.name(mb, "Menu"))

        main_opt = Gtk.CheckButton(label="Main option")
        main_opt.connect("toggled", lambda b: self.log("toggled Main option %s" % b.get_active()))
        box.append(self.name(main_opt, "Main option"))

        self.status = self.name(Gtk.Label(label="Main status", xalign=0), "Main status")
        box.append(self.status)
        if self.args.effects:
            self.add_effects(win, box)
        win.present()
        GLib.idle_add(self.after_layout, "ready")

    def add_effects(self, win, box):
        box.append(self.name(Gtk.Entry(), "Effects entry"))
        box.append(self.name(Gtk.Button(label="Effects next"), "Effects next"))
        remover = Gtk.Button(label="Remove me")

        def remove(b):
            box.remove(b)
            self.named.pop("Remove me", None)
            self.log("removed Remove me")

        remover.connect("clicked", remove)
        box.append(self.name(remover, "Remove me"))

        def focused(w, _pspec):
            # The focus widget is the innermost one (an entry's GtkText):
            # named is the widget it belongs to.
            widget = w.get_focus()
            while widget is not None:
                for text, named in self.named.items():
                    if named is widget:
                        self.log("focus " + text)
                        return
                widget = widget.get_parent()

        win.connect("notify::focus-widget", focused)

    def after_layout(self, line):
        # Logged once the frame clock has laid the widgets out.
        GLib.timeout_add(50, lambda: (self.log(line), False)[1])
        return False

    def open_dialog(self):
        if self.dialog is not None:
            self.dialog.present()
            return
        if self.args.twin:
            self.twin = self.make_dialog()
            self.twin.present()
        self.dialog = self.make_dialog()
        self.dialog.present()
        GLib.idle_add(self.after_layout, "dialog-open")

    def make_dialog(self):
        # A plain window's role is frame; with --effects the dialog says it
        # is one, as a Gtk.Dialog does.
        role = {"accessible_role": Gtk.AccessibleRole.DIALOG} if self.args.effects else {}
        d = Gtk.Window(title=DIALOG_TITLE, transient_for=self.win, modal=False, **role)
        if self.args.dialog_name != DIALOG_TITLE:
            d.update_property([Gtk.AccessibleProperty.LABEL], [self.args.dialog_name])
        d.set_default_size(360, 220)
        if not self.args.ssd:
            d.set_titlebar(Gtk.HeaderBar())
        box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
        for side in ("top", "bottom", "start", "end"):
            getattr(box, "set_margin_" + side)(16)
        d.set_child(box)
        box.append(Gtk.Label(label="Keep the current format?"))
        opt = Gtk.CheckButton(label="Dialog option")
        opt.connect("toggled", lambda b: self.log("toggled Dialog option %s" % b.get_active()))
        box.append(self.name(opt, "Dialog option"))
        keep = Gtk.Button(label="Keep format")
        keep.connect("clicked", lambda _b: self.log("clicked Keep format"))
        box.append(self.name(keep, "Keep format"))
        close = Gtk.Button(label="Close dialog")
        close.connect("clicked", lambda _b: d.close())
        box.append(self.name(close, "Close dialog"))

        def closed(_w):
            self.dialog = None
            for n in ("Dialog option", "Keep format", "Close dialog"):
                self.named.pop(n, None)
            self.log("dialog-closed")
            return False

        d.connect("close-request", closed)
        return d

    def geometry(self):
        for text, w in list(self.named.items()):
            if not w.get_mapped():
                continue
            native = w.get_native()
            ok, b = w.compute_bounds(native)
            if not ok:
                continue
            # Widget coordinates of the native count from inside its CSD
            # shadow/resize border; the surface (the X window) from outside.
            sx, sy = native.get_surface_transform()
            self.log("geom\t%s\t%s\t%d\t%d\t%d\t%d" % (
                text, native.get_title() if isinstance(native, Gtk.Window) else "(popover)", round(b.get_x() + sx), round(b.get_y() + sy),
                round(b.get_width()), round(b.get_height())))
        for top in Gtk.Window.list_toplevels():
            if top.get_mapped():
                self.log("window %s" % (top.get_title() or ""))
                # Where the window's own coordinates (inside the border)
                # start in its surface: on Wayland the compositor's window
                # geometry starts there.
                sx, sy = top.get_surface_transform()
                self.log("native\t%s\t%d\t%d" % (top.get_title() or "", round(sx), round(sy)))
        self.log("geom-end")
        return True

    def rename(self):
        self.win.set_title(self.args.title + " (renamed)")
        self.log("renamed")
        return True


def main():
    p = argparse.ArgumentParser(description="uiscope GTK 4 dialog fixture")
    p.add_argument("--title", default="gtk4 dialogs")
    p.add_argument("--dialog-name", default=DIALOG_TITLE)
    p.add_argument("--ssd", action="store_true", help="no header bars: the window manager decorates")
    p.add_argument("--log", metavar="FILE")
    p.add_argument("--effects", action="store_true", help="add an entry, a button and a button that removes itself")
    p.add_argument("--twin", action="store_true", help="Open dialog opens two dialogs alike (title, size, widgets)")
    args = p.parse_args()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    GLib.set_prgname("gtk4_dialogs.py")
    if not Gtk.init_check():
        sys.exit("gtk4_dialogs: cannot open display")
    loop = GLib.MainLoop()
    f = Fixture(args, loop)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, f.geometry)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR2, f.rename)
    loop.run()


if __name__ == "__main__":
    main()
