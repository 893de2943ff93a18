#!/usr/bin/python3
"""pyatspi_walk.py - the peer benchmark for uiscope: full accessibility-tree walks with pyatspi.

Usage:
  /usr/bin/python3 bench/pyatspi_walk.py --pid PID [--runs N] [--warmup W] [--timeout S] [--keep-cache]

Finds the application whose process id is PID in pyatspi's registry (polling up to --timeout
seconds: GTK 4 apps can take several seconds to register), then does W unrecorded warm-up walks
and N measured walks of its whole tree. Each walk goes child by child (childCount +
getChildAtIndex, depth first) and collects, for every node: role name, name, state set, the
interface list and, when the node has Component, its screen extents
(getExtents(pyatspi.DESKTOP_COORDS)). Like uiscope it does not descend into nodes with state
MANAGES_DESCENDANTS (the node itself is collected); those are counted.

Caching: libatspi caches what it fetched (name, role, states, interfaces, children) and may
prefetch from the application's Cache interface. pyatspi is used as a normal client uses it, but
before every walk (warm-up or measured) the application root is looked up afresh in the registry
and Atspi's clear_cache() is called on it, which drops the cached properties of the root and all
its descendants; so each measured walk asks the application over D-Bus again. The registry
lookup and clear_cache() are outside the timed part; the walk itself is timed with
time.perf_counter.

With --keep-cache the cache is not cleared: each walk is served from libatspi's client cache as
far as it goes (kept current by the application's events, as in a long-running client), and only
what it does not cache (extents) is asked over D-Bus. This is the peer of uiscope's mirror.

Output: one JSON line on stdout:
  {"pid":..,"nodes":N,"runsMs":[...],"medianMs":..,"skippedManagesDescendants":K,
   "errors":E,"cacheCleared":true|false}
nodes and skippedManagesDescendants are from the last measured walk; errors counts nodes whose
properties could not be read (e.g. objects that vanished mid-walk). Diagnostics go to stderr.
Exit status 1 if the application is not found.
"""
import argparse
import json
import statistics
import sys
import time

import pyatspi


def log(msg):
    print("pyatspi_walk: " + msg, file=sys.stderr)


def find_app(pid):
    """The registry's application node for pid, fetched fresh from the desktop, or None."""
    desktop = pyatspi.Registry.getDesktop(0)
    for i in range(desktop.childCount):
        try:
            app = desktop.getChildAtIndex(i)
            if app is not None and app.get_process_id() == pid:
                return app
        except Exception:  # an application that quit meanwhile
            continue
    return None


def wait_for_app(pid, timeout):
    """Poll until the application for pid is registered and has at least one child."""
    deadline = time.monotonic() + timeout
    while True:
        app = find_app(pid)
        if app is not None:
            try:
                if app.childCount > 0:
                    return app
            except Exception:
                pass
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.1)


def node_record(node):
    """Collect the per-node fields; returns (record, state_set)."""
    role = node.getRoleName()
    name = node.name
    states = node.getState()
    state_list = sorted(int(s) for s in states.getStates())
    interfaces = node.get_interfaces()
    extents = None
    if "Component" in interfaces:
        box = node.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        extents = (box.x, box.y, box.width, box.height)
    return {"role": role, "name": name, "states": state_list,
            "interfaces": list(interfaces), "extents": extents}, states


def walk(app):
    """One full walk from app. Returns (records, skipped_manages_descendants, errors)."""
    records = []
    skipped = 0
    errors = 0
    stack = [app]
    while stack:
        node = stack.pop()
        try:
            rec, states = node_record(node)
        except Exception:
            errors += 1
            continue
        records.append(rec)
        if states.contains(pyatspi.STATE_MANAGES_DESCENDANTS):
            skipped += 1
            continue
        try:
            count = node.childCount
            children = [node.getChildAtIndex(i) for i in range(count)]
        except Exception:
            errors += 1
            continue
        # push in reverse so children are visited in index order (depth first, pre-order)
        for child in reversed(children):
            if child is not None:
                stack.append(child)
    return records, skipped, errors


def fresh_root(pid, keep_cache):
    app = find_app(pid)
    if app is None:
        return None
    if not keep_cache and hasattr(app, "clear_cache"):
        app.clear_cache()
    return app


def main():
    p = argparse.ArgumentParser(description="pyatspi full-tree walk benchmark (uiscope's peer)")
    p.add_argument("--pid", type=int, required=True, help="process id of the application")
    p.add_argument("--runs", type=int, default=5, help="measured walks (default 5)")
    p.add_argument("--warmup", type=int, default=1, help="unmeasured walks first (default 1)")
    p.add_argument("--timeout", type=float, default=30.0,
                   help="seconds to wait for the application to register (default 30)")
    p.add_argument("--keep-cache", action="store_true",
                   help="do not clear libatspi's cache before each walk (warm walks)")
    args = p.parse_args()
    if args.runs < 1 or args.warmup < 0:
        p.error("--runs must be >= 1 and --warmup >= 0")

    t0 = time.monotonic()
    if wait_for_app(args.pid, args.timeout) is None:
        log("no accessible application with pid %d after %.0f s" % (args.pid, args.timeout))
        sys.exit(1)
    log("application pid %d found after %.2f s" % (args.pid, time.monotonic() - t0))

    runs_ms = []
    nodes = skipped = errors = 0
    for i in range(args.warmup + args.runs):
        app = fresh_root(args.pid, args.keep_cache)
        if app is None:
            log("application pid %d went away" % args.pid)
            sys.exit(1)
        start = time.perf_counter()
        records, skipped, errors = walk(app)
        elapsed = (time.perf_counter() - start) * 1000.0
        if i >= args.warmup:
            runs_ms.append(round(elapsed, 3))
            if nodes and len(records) != nodes:
                log("node count changed between runs: %d -> %d" % (nodes, len(records)))
        nodes = len(records)

    print(json.dumps({
        "pid": args.pid,
        "nodes": nodes,
        "runsMs": runs_ms,
        "medianMs": round(statistics.median(runs_ms), 3),
        "skippedManagesDescendants": skipped,
        "errors": errors,
        "cacheCleared": not args.keep_cache,
    }, separators=(",", ":")))


if __name__ == "__main__":
    main()
