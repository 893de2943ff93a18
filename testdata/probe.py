#!/usr/bin/python3
"""Reads a running app over AT-SPI for the tests, outside uiscope.

  probe.py PID ROLE NAME extents   prints "X Y W H": the element's extents relative to its window
  probe.py PID ROLE NAME screen    prints "X Y W H F": its desktop extents, F 1 when it has the focus
  probe.py PID ROLE NAME text      prints the element's text (no newline added)
  probe.py PID ROLE NAME value     prints the element's current value
  probe.py PID ROLE NAME focus     grabs the keyboard focus for the element, prints "ok"
  probe.py PID ROLE NAME states    prints the element's state names, space-separated
  probe.py PID ROLE NAME attrs     prints the text attributes at its first character, "name:value" a line

The element is the first one with that role (any role when ROLE is empty) and
that name in an app whose process is PID. Exits 1 (with the reason on
stderr) when the app or the element is not there yet.
"""
import sys

import pyatspi


def find(acc, role, name, depth=0):
    if acc is None or depth > 60:
        return None
    if (role == "" or acc.getRoleName() == role) and acc.name == name:
        return acc
    for k in acc:
        found = find(k, role, name, depth + 1)
        if found is not None:
            return found
    return None


def element(pid, role, name):
    for app in pyatspi.Registry.getDesktop(0):
        if app is not None and app.get_process_id() == pid:
            el = find(app, role, name)
            if el is not None:
                return el
    sys.exit("no %s named %r in pid %d" % (role or "element", name, pid))


def main():
    pid, role, name, what = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    el = element(pid, role, name)
    if what == "extents":
        e = el.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        print(e.x, e.y, e.width, e.height)
    elif what == "screen":
        focused = int(el.getState().contains(pyatspi.STATE_FOCUSED))
        print(*el.queryComponent().getExtents(pyatspi.DESKTOP_COORDS), focused)
    elif what == "text":
        t = el.queryText()
        sys.stdout.write(t.getText(0, t.characterCount))
    elif what == "value":
        print(el.queryValue().currentValue)
    elif what == "focus":
        el.queryComponent().grabFocus()
        print("ok")
    elif what == "states":
        print(*sorted(pyatspi.stateToString(s) for s in el.getState().getStates()))
    elif what == "attrs":
        attrs, _, _ = el.queryText().getAttributes(0)
        print("\n".join(sorted(attrs.split(", "))) if attrs else "")
    else:
        sys.exit("unknown request " + what)


main()
