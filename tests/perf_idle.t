#!/usr/bin/env bash
# perf_idle.t - --idle (wall-clock time) on the perf_event backend: off-CPU
# time without a single stop.
#
#   1. halfsleep spends half of its wall-clock time spinning in
#      spin_outer;spin_inner and half asleep in sleep_outer;sleep_inner
#      (20 ms turns): each chain must come out at 50% +- 5 points, with
#      one thread and with three;
#   2. eintr, whose threads block hundreds of times a second in calls that
#      a ptrace stop makes fail with EINTR (epoll_wait, with and without a
#      timeout, sigtimedwait, sigwaitinfo, recv with SO_RCVTIMEO), never
#      sees one (it would exit 3): it exits 0 having completed every call
#      many times, and --stats counts no stop and no EINTR restart;
#   3. sleeper's threads, blocked since before the attach, show their call
#      chains (read once from /proc/PID/task/TID/syscall), each thread
#      weighted by the whole run.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/reliability/rel.sh"
require_sproftop
require_targets halfsleep eintr sleeper
"$SPROFTOP" --version | grep -q '^sampler with --idle: auto picks perf' ||
    skip_all "perf_event cannot sample context switches here: $("$SPROFTOP" --version | grep '^sampler with')"

SP_TIMEOUT=40

# share FILE CHAIN...: the percentage of all samples whose stack holds the
# frames CHAIN consecutively.
share() {
    local file=$1
    shift
    awk -v n="$(folded_count_chain "$file" "$@")" -v t="$(folded_total "$file")" \
        'BEGIN { printf "%.1f", t ? 100 * n / t : -1 }'
}

# --- 1. 50/50 ----------------------------------------------------------------
for threads in 1 3; do
    start_target halfsleep 0 "$threads" || bail_out "cannot start halfsleep"
    run_sproftop --sampler perf -p "$TARGET_PID" --idle -F 200 -d 4 --stats -o "$TMPD/half$threads.folded"
    is "$RC" 0 "$threads thread(s): sproftop --idle exits 0"
    [ "$RC" = 0 ] || diag_file "$ERR"
    spin=$(share "$TMPD/half$threads.folded" spin_outer spin_inner)
    slp=$(share "$TMPD/half$threads.folded" sleep_outer sleep_inner)
    note "$threads thread(s): spinning $spin%, asleep $slp% of $(folded_total "$TMPD/half$threads.folded") samples"
    cmp_ok "$spin" '>=' 45 "$threads thread(s): spinning share $spin% >= 45"
    cmp_ok "$spin" '<=' 55 "$threads thread(s): spinning share $spin% <= 55"
    cmp_ok "$slp" '>=' 45 "$threads thread(s): sleeping share $slp% >= 45"
    cmp_ok "$slp" '<=' 55 "$threads thread(s): sleeping share $slp% <= 55"
    cmp_ok "$(stats_value "$ERR" 'off-CPU: ')" '>' 0 "$threads thread(s): --stats counts switch-outs"
    is "$(stats_value "$ERR" 'stops ')" 0 "$threads thread(s): not one stop"
    kill_pid "$TARGET_PID"
done

# --- 2. no EINTR ------------------------------------------------------------------
start_target eintr 5 || bail_out "cannot start eintr"
pid=$TARGET_PID
run_sproftop --sampler perf -p "$pid" --idle -F 1000 -d 4 --stats -o "$TMPD/eintr.folded"
is "$RC" 0 "eintr: sproftop --idle exits 0"
if wait_exit "$pid" 15; then
    is "$EXIT_RC" 0 "eintr exits 0: no call failed with EINTR"
    [ "$EXIT_RC" = 0 ] && : || diag_file "$TARGET_ERR"
else
    ok 1 "eintr ends within 15 s"
fi
line=$(tail -n 1 "$TARGET_OUT")
few=""
for c in epoll epoll-timeout sigtimedwait sigwaitinfo recv-timeout; do
    n=$(awk -v c="$c" '{ for (i = 1; i < NF; i++) if ($i == c) print $(i + 1) }' <<<"$line")
    [ -n "$n" ] && [ "$n" -gt 20 ] || few="$few $c:${n:-missing}"
done
is "$few" "" "eintr: every call completed many times ($line)"
is "$(stats_value "$ERR" 'EINTR restarts: ')" 0 "eintr: no EINTR to restart"
is "$(stats_value "$ERR" 'stops ')" 0 "eintr: not one stop"
cmp_ok "$(folded_count_frame "$TMPD/eintr.folded" wait_epoll)" '>' 0 "eintr: its blocked threads are sampled (wait_epoll)"

# --- 3. blocked since before the attach --------------------------------------------------
start_target sleeper || bail_out "cannot start sleeper"
pid=$TARGET_PID
settled() { [ "$(thread_count "$pid")" = 3 ] && all_threads_in_state "$pid" S; }
wait_until 10 settled || diag "sleeper: $(thread_count "$pid") threads"
run_sproftop --sampler perf -p "$pid" --idle -F 100 -d 2 -o "$TMPD/sleeper.folded"
is "$RC" 0 "sleeper: exit 0"
cmp_ok "$(folded_count_chain "$TMPD/sleeper.folded" main sleep_outer sleep_inner)" '>=' 180 \
    "sleeper: main;sleep_outer;sleep_inner weighted by the whole 2 s (>= 180 of 200)"
cmp_ok "$(folded_count_chain "$TMPD/sleeper.folded" poll_thread poll_outer poll_inner)" '>=' 180 \
    "sleeper: the poll thread's chain, from its thread function"
cmp_ok "$(folded_count_chain "$TMPD/sleeper.folded" epoll_thread epoll_outer epoll_inner)" '>=' 180 \
    "sleeper: the epoll thread's chain"
is "$(grep -c EINTR "$TARGET_ERR")" 0 "sleeper: no EINTR"
assert_not_stopped "$pid" "sleeper: running, untraced"

done_testing
