#!/usr/bin/env bash
# engine_oncpu.t - sampling at 1 kHz next to threads that block and wake
# every 5 ms: the target never sees a syscall fail with EINTR (an interrupt
# that races with a wait must be restarted, PTRACE.md "EINTR"), and the
# busy thread gets the bulk of the samples.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets ticker

start_target ticker || bail_out "cannot start ticker"
pid=$TARGET_PID
three() { [ "$(thread_count "$pid")" = 3 ]; }
wait_until 10 three || diag "ticker has $(thread_count "$pid") threads"

out=$TMPD/ticker.folded
run_sproftop -p "$pid" -d 3 -F 1000 -o "$out"
is "$RC" 0 "sproftop -p PID -d 3 -F 1000 -o FILE exits 0"
[ "$RC" = 0 ] || diag_file "$ERR"
assert_not_stopped "$pid" "ticker running and untraced afterwards"
check "ticker is still running" is_running "$pid"

eintr=$(grep -c EINTR "$TARGET_ERR")
is "$eintr" 0 "no epoll_wait or nanosleep in the target returned EINTR"
[ "$eintr" = 0 ] || diag_file "$TARGET_ERR" 5

busy=$(folded_count_frame "$out" busy_loop)
ticks=$(( $(folded_count_frame "$out" tick_epoll) + $(folded_count_frame "$out" tick_sleep) ))
note "samples: busy_loop $busy, tick threads $ticks"
cmp_ok "$busy" '>' 0 "the busy thread is sampled"
cmp_ok "$busy" '>' "$ticks" "the busy thread has more samples than both tick threads together"

done_testing
