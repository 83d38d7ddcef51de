#!/usr/bin/env bash
# tests/soak/side_by_side.sh OLD NEW [SECONDS] - two sproftop binaries'
# `-a --idle -F 999` live views at once, each in its own session of a
# private tmux server, on the same machine and load: their RSS every
# 10 s, then each header's figures and --stats' first lines (not part of
# `make test`; docs/PERFORMANCE.md quotes it).  Both are ended by the
# PIDs read when they started.
set -u
OLD=$1 NEW=$2 DUR=${3:-300}
SOCK=side$$
T=(tmux -L "$SOCK")
OUT=$(mktemp -d /tmp/side_by_side.XXXXXX)
"${T[@]}" new-session -d -s old -x 160 -y 45 "exec $(printf %q "$OLD") -a --idle -F 999 --stats 2>$OUT/old.err"
"${T[@]}" new-session -d -s new -x 160 -y 45 "exec $(printf %q "$NEW") -a --idle -F 999 --stats 2>$OUT/new.err"
PO=$("${T[@]}" list-panes -t old -F '#{pane_pid}')
PN=$("${T[@]}" list-panes -t new -F '#{pane_pid}')
echo "old: $OLD (PID $PO); new: $NEW (PID $PN); output in $OUT"
end=$((SECONDS + DUR))
while [ $SECONDS -lt $end ]; do
    sleep 10
    echo "$SECONDS s: RSS old $(awk '/VmRSS/ {print $2}' /proc/"$PO"/status) kB," \
         "new $(awk '/VmRSS/ {print $2}' /proc/"$PN"/status) kB; load $(cut -d' ' -f1 /proc/loadavg)"
done
for s in old new; do
    echo "$s:"; "${T[@]}" capture-pane -p -t $s | sed -n 3,4p
    "${T[@]}" send-keys -t $s q
done
sleep 2
for s in old new; do "${T[@]}" send-keys -t $s q 2>/dev/null; done
# each ends by its PID, whatever the keys did
for p in "$PO" "$PN"; do
    for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill "$p" 2>/dev/null
done
"${T[@]}" kill-server 2>/dev/null
grep -h '^samples:' "$OUT/old.err" "$OUT/new.err"
