#!/usr/bin/env bash
# engine_sleeper.t - the default mode samples on-CPU threads only: a target
# whose threads all block in the kernel gives no samples and sees no EINTR;
# --idle samples them and shows where they wait.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets sleeper

start_target sleeper || bail_out "cannot start sleeper"
pid=$TARGET_PID
settled() { [ "$(thread_count "$pid")" = 3 ] && all_threads_in_state "$pid" S; }
wait_until 10 settled || diag "sleeper: $(thread_count "$pid") threads"

out=$TMPD/oncpu.folded
run_sproftop -p "$pid" -d 2 -F 1000 -o "$out"
is "$RC" 0 "default mode: sproftop exits 0"
[ "$RC" = 0 ] || diag_file "$ERR"
total=$(folded_total "$out")
cmp_ok "$total" '<=' 5 "default mode: (almost) no samples of blocked threads ($total)"
[ "$total" -le 5 ] 2>/dev/null || diag_file "$out"
check "sleeper is still running" is_running "$pid"
assert_not_stopped "$pid" "default mode: sleeper running and untraced afterwards"
eintr=$(grep -c EINTR "$TARGET_ERR")
is "$eintr" 0 "default mode: no blocking call in the target returned EINTR"
[ "$eintr" = 0 ] || diag_file "$TARGET_ERR"

out=$TMPD/idle.folded
run_sproftop -p "$pid" --idle -d 2 -F 100 -o "$out"
is "$RC" 0 "--idle: sproftop exits 0"
[ "$RC" = 0 ] || diag_file "$ERR"
total=$(folded_total "$out")
cmp_ok "$total" '>' 0 "--idle: samples collected ($total)"
cmp_ok "$(folded_count_chain "$out" main sleep_outer sleep_inner)" '>' 0 \
    "--idle: main;sleep_outer;sleep_inner (the nanosleep chain)"
cmp_ok "$(folded_count_chain "$out" poll_outer poll_inner)" '>' 0 \
    "--idle: poll_outer;poll_inner (the poll chain)"
cmp_ok "$(folded_count_chain "$out" epoll_outer epoll_inner)" '>' 0 \
    "--idle: epoll_outer;epoll_inner (the epoll_wait chain)"
n=$(folded_roots "$out" | grep -cE '^(sleeper|sleep-poll|sleep-epoll)-[0-9]+$')
is "$n" 3 "--idle: all three threads have samples"
check "sleeper is still running after --idle" is_running "$pid"
assert_not_stopped "$pid" "--idle: sleeper running and untraced afterwards"
note "EINTRs the target saw during --idle: $(( $(grep -c EINTR "$TARGET_ERR") - eintr ))"

done_testing
