#!/usr/bin/env bash
# bench-rss.sh - peak resident memory of one 'uiscope tree' process on gtk4-widget-factory.
#
# Starts a private sandbox desktop (bin/uiscope sandbox), launches gtk4-widget-factory in it,
# waits until uiscope lists it as accessible and its tree has stopped growing, then runs
#   /usr/bin/time -v bin/uiscope tree --name gtk4-widget-factory --format json > /dev/null
# RUNS times (default 5) and prints the largest "Maximum resident set size" in MB.
# Needs bin/uiscope (make build), gtk-4-examples, /usr/bin/time (package time), python3.
#
#   scripts/bench-rss.sh            RUNS=10 scripts/bench-rss.sh
set -euo pipefail

cd "$(dirname "$0")/.."
UISCOPE=${UISCOPE:-bin/uiscope}
RUNS=${RUNS:-5}
APP=gtk4-widget-factory

[[ -x $UISCOPE ]] || { echo "bench-rss: $UISCOPE not found; run 'make build' first" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "bench-rss: /usr/bin/time not found (apt-get install time)" >&2; exit 1; }
command -v "$APP" >/dev/null || { echo "bench-rss: $APP not found (apt-get install gtk-4-examples)" >&2; exit 1; }

# The inner script runs inside the desktop with its environment (DISPLAY, the session bus,
# GSK_RENDERER=cairo, ...); the sandbox tears everything down when it exits.
inner='
set -euo pipefail
UISCOPE=$1 RUNS=$2 APP=$3
GSK_RENDERER=cairo "$APP" >/dev/null 2>&1 &
pid=$!
tmp=$(mktemp)
trap "kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -f $tmp" EXIT

# JSON is read with python3 (no jq needed).
accessible() {
  "$UISCOPE" apps --json 2>/dev/null | python3 -c "
import json, sys
apps = json.load(sys.stdin)[\"apps\"]
sys.exit(0 if any(a[\"pid\"] == $pid and a[\"accessible\"] and a[\"windows\"] for a in apps) else 1)"
}
node_count() {
  "$UISCOPE" tree --pid "$pid" --format json --max-nodes 100000 --max-bytes 100000000 2>/dev/null |
    python3 -c "import json, sys; print(json.load(sys.stdin)[\"nodeCount\"])"
}

deadline=$((SECONDS + 90))
until accessible; do
  kill -0 "$pid" 2>/dev/null || { echo "bench-rss: $APP exited" >&2; exit 1; }
  ((SECONDS < deadline)) || { echo "bench-rss: $APP not accessible after 90 s" >&2; exit 1; }
  sleep 0.2
done
# Wait for the tree to settle: two reads in a row with the same node count.
last=-1
while :; do
  n=$(node_count || echo -1)
  [[ $n -gt 0 && $n == "$last" ]] && break
  ((SECONDS < deadline)) || { echo "bench-rss: the tree of $APP did not settle in 90 s" >&2; exit 1; }
  last=$n
  sleep 0.2
done

max=0
for ((i = 1; i <= RUNS; i++)); do
  /usr/bin/time -v -o "$tmp" "$UISCOPE" tree --name "$APP" --format json >/dev/null
  kb=$(sed -n "s/^[[:space:]]*Maximum resident set size (kbytes): //p" "$tmp")
  [[ -n $kb ]] || { echo "bench-rss: no RSS figure from /usr/bin/time (run $i)" >&2; exit 1; }
  echo "bench-rss: run $i: $kb kB" >&2
  ((kb > max)) && max=$kb
done
awk -v kb="$max" -v n="$n" -v runs="$RUNS" -v app="$APP" \
  "BEGIN { printf \"peak RSS of uiscope tree on %s: %.1f MB (max of %d runs, %d nodes)\\n\", app, kb / 1024, runs, n }"
'

# The desktop's own progress lines ("sandbox: ...") are left out.
set +e
"$UISCOPE" sandbox -- bash -c "$inner" bench-rss "$UISCOPE" "$RUNS" "$APP" 2>&1 | grep --line-buffered -v '^sandbox: '
exit "${PIPESTATUS[0]}"
