#!/usr/bin/python3
"""A GTK 3 app with many top-level windows, for visual sessions on a
desktop whose window tree holds top levels only (sway: one view each).

  --title T     the first window's title; the others are "T 2" ... "T N"
  --windows N   how many windows (default 30)

The key "p" in any window sets the first window's title to "Pressed K"
(K counts the presses): a change the visual tree shows.
"""
import argparse
import signal

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--title", default="uiscope GTK 3 windows")
    p.add_argument("--windows", type=int, default=30)
    args = p.parse_args()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)

    presses = [0]
    wins = []

    def key(_w, ev):
        if ev.keyval == ord("p"):
            presses[0] += 1
            wins[0].set_title("Pressed %d" % presses[0])
        return False

    for i in range(args.windows):
        w = Gtk.Window(title=args.title if i == 0 else "%s %d" % (args.title, i + 1))
        w.set_default_size(300, 200)
        w.add(Gtk.Label(label="window %d" % (i + 1)))
        w.connect("key-press-event", key)
        w.connect("destroy", Gtk.main_quit)
        w.show_all()
        wins.append(w)
    # The first window last in front, so that a session's window is it.
    wins[0].present()
    Gtk.main()


if __name__ == "__main__":
    main()
