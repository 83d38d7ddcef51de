#!/usr/bin/env bash
# perf_controls.t - the live view on the perf_event backend, in a real
# terminal (tmux): the header names the backend, a new interval reaches
# the kernel's events, pause stops the samples without stopping the
# target, stacks cut short by a small stack copy are counted as such, and
# after a fallback the reason is on screen.
#
#   - split (one CPU-bound thread) at -F 100: "Sampler: perf", no "Stop/sample:"
#     (nothing stops); the achieved rate (the header's samples per second
#     of the target's own CPU time, over 2 s of it) is about 100 Hz, and
#     after `<` `<` (400 Hz) it goes past 250 Hz: PERF_EVENT_IOC_PERIOD
#     took effect;
#   - p: PAUSED, the sample count stays put, TracerPid stays 0, no thread
#     stopped; p again: samples again;
#   - churn paused while the threads alive at the pause exit: after p
#     again they are ended, not counted as exits whose record was lost;
#   - recurse (300 frames) with --stack-size 2K: "Unwind failures: N
#     (stack copy too small)";
#   - under noperf (perf_event_open refused): "Sampler: ptrace", and the
#     message line gives the cause and the fix.
# Every wait is bounded polling on the captured screen.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets split recurse noperf churn
"$SPROFTOP" --version | grep -q '^sampler: auto picks perf' ||
    skip_all "perf_event_open is not permitted here"

use_tmux sproftop-perf

# start_ui NAME ARGS...: ARGS (the command) in a new 120x30 session NAME.
start_ui() {
    local name=$1 cmd="" a
    shift
    for a in "$@"; do
        cmd="$cmd '$a'"
    done
    "${T[@]}" new-session -d -s "$name" -x 120 -y 30 "$cmd 2>'$TMPD/$name.err'"
}
# got NAME PID: the achieved rate, in Hz: the header's sample count over
# 2 s of the single-threaded target's own CPU time (its schedstat).  The
# header lags the samples by up to a drain and a refresh at both ends
# alike, so the lags mostly cancel.
got() {
    local s0 c0 s1 c1
    s0=$(header_value "$1" Samples)
    c0=$(thread_cpu_ns "$2" "$2")
    _cpu_ran() { [ $(($(thread_cpu_ns "$2" "$2") - c0)) -ge 2000000000 ]; }
    wait_until 30 _cpu_ran "$1" "$2" || return 1
    s1=$(header_value "$1" Samples)
    c1=$(thread_cpu_ns "$2" "$2")
    awk -v a="$s0" -v b="$s1" -v c="$c0" -v d="$c1" \
        'BEGIN { if (d > c) printf "%d\n", (b - a) / ((d - c) / 1e9) }'
}
# got_between NAME PID LO HI: got is in [LO, HI] (noted).
got_between() {
    local g
    g=$(got "$1" "$2")
    note "achieved ${g:-?} Hz"
    [ -n "$g" ] && [ "$g" -ge "$3" ] && [ "$g" -le "$4" ]
}
samples_above() { local s; s=$(header_value "$1" Samples); [ -n "$s" ] && [ "$s" -gt "$2" ]; }

# --- rate and pause -----------------------------------------------------------
start_target split || bail_out "cannot start split"
pid=$TARGET_PID
start_ui live "$SPROFTOP" -p "$pid" -F 100 -r 0.2
wait_until 20 screen_has live "PID $pid" || { diag "$(screen live)"; bail_out "sproftop did not start in tmux"; }
check "the header names the backend: Sampler: perf" screen_has live 'Sampler: perf'
unlike "$(screen live)" ' Stop/sample: ' "no stop time shown: nothing stops"
check "at 100 Hz the achieved rate is about 100 Hz (60 to 140)" got_between live "$pid" 60 140
keys live -l '<'
keys live -l '<'
wait_until 10 screen_has live 'Rate: 400 Hz'
check "< < asks 400 Hz, and the kernel's events follow (more than 250 Hz)" got_between live "$pid" 250 560

keys live p
wait_until 10 screen_has live 'PAUSED'
elapsed_not() { [ "$(header_value live Sampling)" != "$1" ]; }
# the next tick of Elapsed (whole seconds): what was in flight is merged
sleep_till_settled() { wait_until 10 elapsed_not "$(header_value live Sampling)"; }
sleep_till_settled
sleep_till_settled
a=$(header_value live Samples)
sleep_till_settled
sleep_till_settled
b=$(header_value live Samples)
is "$b" "$a" "paused: the sample count stays at $a"
assert_not_stopped "$pid" "paused: no thread stopped, TracerPid 0"
keys live p
check "p again: samples again" wait_until 10 samples_above live "${b:-0}"
keys live q
kill_pid "$TARGET_PID"

# --- pause over threads that exit ---------------------------------------------
# churn's threads alive when p pauses are gone when p resumes: they end
# (their EXIT records, or the resume's look at /proc), and with rings too
# big to lose any record, --stats counts none of them as "exits whose
# record was lost" (the resume's finds are not the ring's losses; here
# the EXIT records came all the same, and the binary that counted the
# resume's finds passed too).
start_target churn 60 1000 || bail_out "cannot start churn"
cpid=$TARGET_PID
start_ui churnp "$SPROFTOP" --no-confirm -p "$cpid" --idle -F 99 -r 0.2 --ring-size 16M --stats
wait_until 20 samples_above churnp 50 || diag "$(screen churnp)"
keys churnp p
wait_until 10 screen_has churnp 'PAUSED'
alive=$(ls "/proc/$cpid/task" | grep -vx "$cpid" | tr '\n' ' ')
# (pid_max is 32768 here: a TID comes round again in ~30 s of churn)
_gone() { local t; for t in $alive; do [ -e "/proc/$cpid/task/$t" ] && return 1; done; return 0; }
check "paused: the threads alive at the pause have all exited" wait_until 20 _gone
b=$(header_value churnp Samples)
keys churnp p
check "resumed: samples again" wait_until 10 samples_above churnp "${b:-0}"
keys churnp q
wait_until 20 session_gone churnp
err=$TMPD/churnp.err
like "$(grep '^samples:' "$err")" ' lost 0,' "16-MB rings: no record lost"
is "$(grep -c '^perf: exits whose record was lost' "$err")" 0 \
    "the pause's gone threads are not counted as exits whose record was lost"
live=$(sed -n 's/^threads: \([0-9]*\) live.*/\1/p' "$err")
cmp_ok "${live:-999}" '<=' 11 "--stats: at most churn's main thread and one batch alive at the end"
kill_pid "$cpid"

# --- a stack copy too small -----------------------------------------------------------
start_target recurse || bail_out "cannot start recurse"
start_ui small "$SPROFTOP" --stack-size 2K -p "$TARGET_PID" -F 200 -r 0.2
check "--stack-size 2K: Unwind failures (stack copy too small)" \
    wait_until 20 screen_has small 'Unwind failures: [1-9][0-9]* \(stack copy too small\)'
keys small q
kill_pid "$TARGET_PID"

# --- after a fallback -------------------------------------------------------------------
start_target split || bail_out "cannot start split"
start_ui fb "$TARGETS/noperf" "$SPROFTOP" -p "$TARGET_PID" -F 100 -r 0.2
check "under noperf: Sampler: ptrace" wait_until 20 screen_has fb 'Sampler: ptrace'
check "under noperf: the message line gives the cause and the fix" \
    screen_has fb 'perf_event_open refused .*: using ptrace; run as root'
keys fb q

done_testing
