#!/usr/bin/env bash
# reliability_groupstop.t - the user's `kill -STOP` sticks while sproftop
# samples, and after it detaches (PTRACE.md, trap 3).
#
# Target: "threads 2" (two spinning workers, main blocked in join), under a
# 1 kHz batch sproftop.  Its CPU time (utime + stime, /proc/PID/stat) is
# the witness: a stopped process uses none.
#   1. kill -STOP: every thread reaches a stop (t or T); CPU time stays
#      flat over ~1 s of sampling.
#   2. kill -CONT while still sampled: CPU time grows again.
#   3. kill -STOP again, then sproftop is ended (SIGINT): every thread is
#      in T afterwards (stopped, no longer traced), CPU time still flat.
#   4. kill -CONT: it runs again, untraced.
#   5. a target stopped before sproftop attaches stays stopped through a
#      1 s run and after it, and kill -CONT resumes it.
# sproftop exits 0, writes its output, and --stats counts group stops.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/reliability/rel.sh"
require_sproftop
require_targets threads

SP_TIMEOUT=60

start_target threads 2 120 || bail_out "cannot start threads"
pid=$TARGET_PID

spawn_sproftop run -p "$pid" -F 1000 -d 50 -o "$TMPD/gs.folded" --stats \
    || bail_out "sproftop did not start"
wait_until 15 traced_by_sproftop "$pid" || bail_out "sproftop did not attach"
sleep 0.3

# A stopped target runs no code of its own; the kernel's ptrace traps
# of its stopped threads cost it a little (88 us in a second of sampling
# 3 threads at 1 kHz, measured; 30-230 us for section 5's attach, run and
# detach, in 18 runs here, idle and with three CPU hogs), where running
# it would take a CPU: its two spinning workers, 2,000 ms in a 1 s run.
# The bound is 50 ms: a CI run once measured 9.6 ms in section 5 (under
# its load, with the ptrace backend; the cause is not known), against a
# bound of 5 ms then.
FLAT_NS=50000000
# ran_little PID BEFORE_NS DESC: PID ran under FLAT_NS since BEFORE_NS.
ran_little() {
    local d
    d=$(( $(cpu_ns "$1") - $2 ))
    cmp_ok "$d" '<' "$FLAT_NS" "$3 ($((d / 1000)) us)"
}
# flat_for PID SECONDS DESC: CPU time (all but the traps) flat over SECONDS.
flat_for() {
    local a
    a=$(cpu_settled "$1")
    sleep "$2"
    ran_little "$1" "$a" "$3"
}

# 1. stopped while sampled
kill -STOP "$pid"
check "STOP while sampled: every thread reaches a stop (t/T)" \
    wait_until 5 threads_in "$pid" tT
flat_for "$pid" 1 "STOP while sampled: CPU time flat over 1 s"
check "STOP while sampled: sproftop is still attached" traced_by_sproftop "$pid"

# 2. continued while sampled
before=$(cpu_ticks "$pid")
kill -CONT "$pid"
check "CONT while sampled: CPU time grows again" wait_until 5 cpu_grew "$pid" "$before"
check "CONT while sampled: no thread stays stopped" wait_until 5 threads_in "$pid" RS

# 3. stopped, then sproftop ends
kill -STOP "$pid"
wait_until 5 threads_in "$pid" tT
kill -INT "$SP_PID"
wait_sproftop
is "$SP_RC" 0 "sproftop exits 0 on SIGINT with the target stopped"
stopped_untraced() {
    threads_in "$pid" T || return 1
    local t
    for t in /proc/"$pid"/task/*; do
        [ "$(tracer_pid "$pid/task/${t##*/}")" = 0 ] || return 1
    done
}
if wait_until 5 stopped_untraced; then
    ok 0 "after sproftop: every thread still stopped (T) and untraced"
else
    ok 1 "after sproftop: every thread still stopped (T) and untraced"
    threads_clean "$pid"
    diag "  state/tracers:$UNCLEAN"
fi
flat_for "$pid" 0.5 "after sproftop: CPU time still flat"

# 4. the user continues it
before=$(cpu_ticks "$pid")
kill -CONT "$pid"
check "CONT after sproftop: CPU time grows" wait_until 5 cpu_grew "$pid" "$before"
wait_until 5 threads_clean "$pid"
assert_not_stopped "$pid" "CONT after sproftop: running and untraced"

cmp_ok "$(folded_total "$TMPD/gs.folded")" '>' 0 "the output holds samples"
gs=$(stats_value "$TMPD/run.err" 'group stops: ')
# the first STOP was seen (the test waited a second in it); the second
# one's report may still be on its way when SIGINT ends sampling
cmp_ok "${gs:-0}" '>=' 1 "--stats counts the group stops (${gs:-none})"

# 5. stopped before the attach
kill -STOP "$pid"
wait_until 5 threads_in "$pid" T
a=$(cpu_settled "$pid")
run_sproftop -p "$pid" -F 1000 -d 1 -o "$TMPD/pre.folded"
is "$RC" 0 "attached to an already stopped target: sproftop exits 0"
[ "$RC" = 0 ] || diag_file "$ERR"
check "already stopped: every thread still stopped (T) and untraced afterwards" \
    wait_until 5 stopped_untraced
ran_little "$pid" "$a" "already stopped: CPU time flat through the run"
before=$(cpu_ticks "$pid")
kill -CONT "$pid"
check "already stopped: CONT resumes it" wait_until 5 cpu_grew "$pid" "$before"
wait_until 5 threads_clean "$pid"
assert_not_stopped "$pid" "already stopped: running and untraced after CONT"

done_testing
