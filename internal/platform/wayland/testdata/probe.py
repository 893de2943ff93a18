#!/usr/bin/python3
"""Reads a running app over AT-SPI for the wayland package's tests, outside uiscope.

  probe.py PID NAME extents   prints "X Y W H": the element's extents relative to its window
  probe.py PID NAME text      prints the element's text
  probe.py PID NAME focus     grabs the keyboard focus for the element, prints "ok"

The element is the first one named NAME in the app whose process is PID. Exits 1 (with the
reason on stderr) when the app or the element is not there yet.
"""
import sys

import pyatspi


def find(acc, name, depth=0):
    if acc is None or depth > 40:
        return None
    if acc.name == name:
        return acc
    for i in range(acc.childCount):
        found = find(acc.getChildAtIndex(i), name, depth + 1)
        if found is not None:
            return found
    return None


def main():
    pid, name, what = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    desktop = pyatspi.Registry.getDesktop(0)
    app = None
    for i in range(desktop.childCount):
        a = desktop.getChildAtIndex(i)
        if a is not None and a.get_process_id() == pid:
            app = a
    if app is None:
        sys.exit("no app with pid %d" % pid)
    el = find(app, name)
    if el is None:
        sys.exit("no element named %r" % name)
    if what == "extents":
        e = el.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        print(e.x, e.y, e.width, e.height)
    elif what == "text":
        t = el.queryText()
        print(t.getText(0, t.characterCount))
    elif what == "focus":
        el.queryComponent().grabFocus()
        print("ok")
    else:
        sys.exit("unknown request " + what)


main()
