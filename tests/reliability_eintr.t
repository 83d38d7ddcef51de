#!/usr/bin/env bash
# reliability_eintr.t - sampling never makes a blocking call fail with
# EINTR in the target (PTRACE.md, "EINTR").
#
# The target `eintr` has one thread per call that a ptrace interrupt makes
# fail with EINTR: epoll_wait without and with a timeout, sigtimedwait
# with a timeout, sigwaitinfo, and recv on a socket with SO_RCVTIMEO.
# Each thread spins ~30 us, blocks, and starts again, hundreds of times a
# second (every other wait one frame deeper, so no two waits in a row
# share a stack pointer), while another thread burns CPU.  None retries on
# EINTR: the first EINTR ends the program with status 3 and the call's
# name.
#
#   1. Default (on-CPU) mode, 1 kHz, 5 s: blocked threads are never
#      interrupted, and a thread seen running that blocks before the
#      interrupt lands has its call restarted by sproftop.  eintr exits 0
#      with every call completed many times.
#   2. --idle, 1 kHz, 5 s, all calls together: the first sample of each
#      blocked stretch stops the thread (a stretch at a new SP/PC); the
#      call it interrupts is restarted (see tests/reliability/README.md: a
#      call with a timeout starts its timeout over).  No call fails while
#      sampled (the run lasts its whole duration), eintr exits 0 (a TAP
#      TODO while the detach bug of part 4 is open), and --stats shows
#      EINTR restarts > 0: the restart path ran.
#   3. --idle on each call alone, 1.5 s: the same, call by call, so each
#      one's restart is proven (EINTR restarts > 0 in each run).
#   4. Detaching with interrupts in flight: 20 short runs (0.2 s, 1 kHz)
#      on one eintr process, in each mode.  At the end of a run a thread
#      may have been interrupted and its call already failed with EINTR
#      while its stop is not yet handled; sproftop must still restart that
#      call before it lets the thread go.  The target must outlive all 20
#      runs.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/reliability/rel.sh"
# A trap of the ptrace backend (PTRACE.md): pinned to it.  The perf
# backend never stops the target; its own checks are in tests/perf_*.t.
export SPROFTOP_SAMPLER=ptrace
require_sproftop
require_targets eintr

SP_TIMEOUT=40
CALLS="epoll epoll-timeout sigtimedwait sigwaitinfo recv-timeout"

# check_counts DESC OUTFILE CALL...: the target's last line names every
# CALL with a count above 20 (the call really ran, over and over).
check_counts() {
    local desc=$1 file=$2 line c n bad=""
    shift 2
    line=$(tail -n 1 "$file" 2>/dev/null)
    for c in "$@"; do
        n=$(awk -v c="$c" '{ for (i = 1; i < NF; i++) if ($i == c) print $(i + 1) }' <<<"$line")
        [ -n "$n" ] && [ "$n" -gt 20 ] || bad="$bad $c:${n:-missing}"
    done
    if [ -z "$bad" ]; then
        ok 0 "$desc"
    else
        ok 1 "$desc"
        diag "  too few calls:$bad (target printed '$line')"
    fi
}

# run_eintr DESC SECONDS CALLS -- SPROFTOP_ARGS...: eintr for SECONDS + 1
# under sproftop -p for SECONDS; checks sproftop's and the target's exit,
# the call counts, and leaves the --stats file in $ERR.
run_eintr() {
    local desc=$1 secs=$2 calls=$3
    shift 4
    # shellcheck disable=SC2086
    start_target eintr "$(awk -v s="$secs" 'BEGIN { print s + 1 }')" $calls \
        || bail_out "cannot start eintr"
    local pid=$TARGET_PID
    run_sproftop -p "$pid" -F 1000 -d "$secs" --stats -o "$TMPD/eintr.folded" "$@"
    is "$RC" 0 "$desc: sproftop exits 0"
    [ "$RC" = 0 ] || diag_file "$ERR"
    # A target that failed while sampled would have ended the run early.
    local el
    el=$(sed -n 's/^sproftop stats: PID [0-9]*, \([0-9.]*\) s,.*/\1/p' "$ERR")
    cmp_ok "${el:-0}" '>=' "$(awk -v s="$secs" 'BEGIN { print s - 0.05 }')" \
        "$desc: the target ran through the whole sampling (${el:-?} s of $secs)"
    # With --idle, the detach at the end can leave a call failed (below).
    if wait_exit "$pid" 15; then
        is "$EXIT_RC" 0 "$desc: eintr exits 0 (no call failed with EINTR)"
        [ "$EXIT_RC" = 0 ] || diag_file "$TARGET_ERR"
    else
        ok 1 "$desc: eintr ends within 15 s"
        kill_pid "$pid"
    fi
    # shellcheck disable=SC2086
    check_counts "$desc: every call completed many times" "$TARGET_OUT" $calls
}

# 1. default mode
run_eintr "on-CPU, all calls" 5 "" --
cmp_ok "$(stats_value "$ERR" 'samples: ')" '>' 0 "on-CPU: samples were taken"
cmp_ok "$(folded_count_frame "$TMPD/eintr.folded" burn_cpu)" '>' 0 "on-CPU: the CPU burner is sampled"
note "on-CPU: $(grep 'EINTR restarts' "$ERR")"

# 2. --idle, all calls
run_eintr "--idle, all calls" 5 "" -- --idle
r=$(stats_value "$ERR" 'EINTR restarts: ')
cmp_ok "${r:-0}" '>' 0 "--idle, all calls: --stats EINTR restarts > 0 (${r:-none})"
cmp_ok "$(folded_count_frame "$TMPD/eintr.folded" wait_epoll)" '>' 0 \
    "--idle: blocked threads are sampled (wait_epoll)"

# 3. --idle, each call alone
for c in $CALLS; do
    run_eintr "--idle, $c" 1.5 "$c" -- --idle
    r=$(stats_value "$ERR" 'EINTR restarts: ')
    cmp_ok "${r:-0}" '>' 0 "--idle, $c: --stats EINTR restarts > 0 (${r:-none})"
done

# 4. detach with interrupts in flight
# repeated_runs DESC ARGS...: 20 runs of sproftop -p ARGS -d 0.2 on one
# eintr process; it must survive them all.
repeated_runs() {
    local desc=$1 i died=""
    shift
    start_target eintr 300 || bail_out "cannot start eintr"
    local pid=$TARGET_PID
    for ((i = 1; i <= 20; i++)); do
        run_sproftop -p "$pid" -F 1000 -d 0.2 -o "$TMPD/rep.folded" "$@"
        if ! is_running "$pid"; then
            died="died after run $i: $(cat "$TARGET_ERR")"
            break
        fi
    done
    is "$died" "" "$desc: eintr survives 20 sproftop runs of 0.2 s (no EINTR at a detach)"
    kill_pid "$pid"
}
repeated_runs "on-CPU"
repeated_runs "--idle" --idle

done_testing
