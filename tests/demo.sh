#!/usr/bin/env bash
# tests/demo.sh - what `make demo` runs: sproftop on the bundled workload.
#
# Starts build/targets/demo (three threads: "compress" hashing blocks in
# main -> run_pipeline -> compress_block -> hash_chunk, "parser" busy part
# of the time, "io" mostly asleep) and opens sproftop on it:
#   - on a terminal, with a TUI built in: the live TUI (q quits);
#   - otherwise: batch mode for 5 seconds, printing the text report.
# The demo workload is killed, by its PID, on every way out of this script.
# SPROFTOP_DEMO_SECONDS changes the batch duration.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build=$top/$build ;; esac
sproftop=${SPROFTOP:-$top/sproftop}
demo=$build/targets/demo
seconds=${SPROFTOP_DEMO_SECONDS:-5}

for f in "$sproftop" "$demo"; do
    if [ ! -x "$f" ]; then
        echo "demo: $f is not built; run 'make demo' (or 'make all targets')" >&2
        exit 1
    fi
done

demo_pid=""
stop_demo() {
    if [ -n "$demo_pid" ]; then
        kill -CONT "$demo_pid" 2>/dev/null
        kill -KILL "$demo_pid" 2>/dev/null
        wait "$demo_pid" 2>/dev/null
        demo_pid=""
    fi
}
trap stop_demo EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

"$demo" </dev/null &
demo_pid=$!
# Attach once the forked shell has become the demo (bounded: 5 s).
for _ in $(seq 100); do
    [ "$(readlink "/proc/$demo_pid/exe" 2>/dev/null)" = "$(readlink -f "$demo")" ] && break
    sleep 0.05
done

# The TUI is there once the binary calls into curses.
have_tui=0
nm -D --undefined-only "$sproftop" 2>/dev/null | grep -qE ' (initscr|newterm)(@|$)' && have_tui=1

if [ -t 0 ] && [ -t 1 ] && [ "$have_tui" = 1 ]; then
    "$sproftop" -p "$demo_pid"
    rc=$?
else
    echo "sproftop: sampling the demo workload (PID $demo_pid) for ${seconds}s..." >&2
    "$sproftop" -p "$demo_pid" -d "$seconds"
    rc=$?
fi
exit "$rc"
