#!/usr/bin/env bash
# live_tasks.t - the threads and processes views show live figures (%CPU,
# TIME+, state) that the source gathers off the UI thread from the
# sampler's own tables (issue 20, item 4: source_ops.tasks).
#
# On `threads 1` with --idle (its worker spins; its main thread waits in
# pthread_join, and --idle gives that thread samples, so a row), in tmux:
#   - the worker's %CPU is a number well above 0 and its state running,
#     the main thread's %CPU is 0.0 and its state sleeping; the worker's
#     TIME+ grows while the main thread's stays (a shared machine gives a
#     spinning thread no fixed share, so "near 100" is not asserted: only
#     that the busy one shows its CPU use and the sleeper none);
#   - the processes view shows the process's own %CPU;
#   - both samplers give them (they come through the interface);
#   - under strace, sproftop's main (UI) thread opens no /proc stat file of
#     the target, and each task's stat file is opened a few times at most,
#     not once per refresh (with -a the old way opened thousands a redraw).
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets threads
use_tmux sproftop-live 120x30

start_target threads 1 300 || bail_out "cannot start threads"
pid=$TARGET_PID
_two_threads() { [ "$(ls "/proc/$pid/task" 2>/dev/null | wc -l)" -ge 2 ]; }
wait_until 10 _two_threads || bail_out "threads did not start its worker"
worker=$(ls "/proc/$pid/task" | grep -vx "$pid" | head -n 1)

# row SESSION ID: the fields of the view's row for thread or process ID:
# "ID CPU% TIME+ STATE" (the columns after the share and counts).
row() {
    screen "$1" | awk -v id="$2" '
        { sub(/^[>* ]+/, "") }
        $1 == id { for (i = 2; i <= NF; i++)
                       if ($i ~ /^[0-9]+:[0-9][0-9]\.[0-9][0-9]$/) {
                           print id, $(i - 1), $i, $(i + 1); exit } }'
}
pct_of() { row "$1" "$2" | awk '{ print $2 }'; }
time_of() { row "$1" "$2" | awk '{ split($3, a, ":"); print a[1] * 60 + a[2] }'; }
state_of() { row "$1" "$2" | awk '{ print $4 }'; }
# busy SESSION: the worker shows CPU use (at least 5%) and runs; the main
# thread shows none (at most 1%) and sleeps.
busy() {
    local w m
    w=$(pct_of "$1" "$worker")
    m=$(pct_of "$1" "$pid")
    [ -n "$w" ] && [ -n "$m" ] &&
        awk -v w="$w" -v m="$m" 'BEGIN { exit !(w + 0 >= 5 && m + 0 <= 1) }' &&
        [ "$(state_of "$1" "$worker")" = running ] &&
        [ "$(state_of "$1" "$pid")" = sleeping ]
}
grown() { # SESSION ID SECONDS: ID's TIME+ is above SECONDS
    local t
    t=$(time_of "$1" "$2")
    [ -n "$t" ] && awk -v t="$t" -v s="$3" 'BEGIN { exit !(t > s) }'
}

for sampler in auto ptrace; do
    s=live-$sampler
    tmux_sproftop "$s" --sampler "$sampler" --idle -p "$pid" -r 0.2 --no-confirm
    wait_until 20 screen_has "$s" 'Samples: [1-9]' || diag "$(screen "$s")"
    keys "$s" 4
    check "$sampler: the worker shows its %CPU and runs, the waiting main thread 0.0 and sleeps" \
        wait_until 20 busy "$s"
    busy "$s" || diag "$(screen "$s")"
    t0=$(time_of "$s" "$worker")
    m0=$(time_of "$s" "$pid")
    check "$sampler: the worker's TIME+ grows (from ${t0:-?} s)" \
        wait_until 20 grown "$s" "$worker" "${t0:-0}"
    is "$(time_of "$s" "$pid")" "$m0" "$sampler: the main thread's TIME+ stays (${m0:-?} s)"
    keys "$s" 7
    _proc_busy() {
        local p
        p=$(pct_of "$1" "$pid")
        [ -n "$p" ] && awk -v p="$p" 'BEGIN { exit !(p + 0 >= 5) }'
    }
    check "$sampler: the processes view shows the process's %CPU" \
        wait_until 20 _proc_busy "$s"
    _proc_busy "$s" || diag "$(screen "$s")"
    keys "$s" q
    wait_until 10 eval "! \"\${T[@]}\" has-session -t '$s' 2>/dev/null"
    assert_not_stopped "$pid" "$sampler: threads running and untraced afterwards"
done

# Who opens the stat files: not the UI thread, and not at every refresh.
if command -v strace >/dev/null 2>&1; then
    s=live-strace
    "${T[@]}" new-session -d -s "$s" -x 120 -y 30 \
        "strace -f -qq -e trace=openat -o '$TMPD/opens' '$SPROFTOP' --idle -p $pid -r 0.2 --no-confirm 2>'$TMPD/$s.err'"
    wait_until 30 screen_has "$s" 'Samples: [1-9]' || diag "$(screen "$s")"
    keys "$s" 4
    wait_until 30 busy "$s" || diag "$(screen "$s")"
    # 25 refreshes at -r 0.2 (5 s), a look at the processes view between
    end=$(($(date +%s) + 5))
    _later() { [ "$(date +%s)" -ge "$end" ]; }
    wait_until 10 _later
    keys "$s" 7
    wait_until 10 _proc_busy "$s"
    keys "$s" q
    wait_until 20 eval "! \"\${T[@]}\" has-session -t '$s' 2>/dev/null"
    main=$(awk 'NR == 1 { print $1 }' "$TMPD/opens")
    stats=$(grep -E "openat\(.*\"/proc/$pid(/task/[0-9]+)?/stat\"" "$TMPD/opens")
    ui=$(printf '%s\n' "$stats" | awk -v m="$main" '$1 == m')
    is "$(printf '%s\n' "$ui" | grep -c '/task/')" 0 \
        "the UI thread ($main) opens no thread's /proc stat file"
    cmp_ok "$(printf '%s\n' "$ui" | grep -c .)" '<=' 1 \
        "...and the process's at most once (the sampler's probe, before the UI)"
    most=$(printf '%s\n' "$stats" | grep -o '"/proc/[^"]*"' | sort | uniq -c |
           sort -rn | awk 'NR == 1 { print $1 + 0 }')
    # 25 refreshes or more read the figures; the sampler itself opens the
    # process's stat file a few times at attach (checks, its watch)
    cmp_ok "${most:-0}" '<=' 8 "no stat file is opened at every refresh (at most ${most:-0} times for 25 refreshes)"
    cmp_ok "$(printf '%s\n' "$stats" | grep -c "task/$worker/stat")" '>=' 1 \
        "...and the worker's is read (by another thread)"
else
    skip 4 "strace not installed"
fi

assert_not_stopped "$pid" "threads running and untraced at the end"
done_testing
