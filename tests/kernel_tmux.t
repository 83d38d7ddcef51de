#!/usr/bin/env bash
# kernel_tmux.t - kernel frames and off-CPU reasons in the live view, in a
# real terminal (tmux), as root on the perf backend (issue 21):
#
#   1. attached to readzero: the flat table shows [k] read_zero; K hides
#      the kernel frames live (the header says "Kernel: hidden", the time
#      goes to the read() wrapper), K shows them again; q leaves readzero
#      running, not stopped, untraced;
#   2. --idle on waits: the threads view gives each thread's time by
#      reason (w-fsync: disk I/O; w-epoll: poll); z shows on-CPU time
#      only (the header's "Time: on-CPU"), then off-CPU only.
# Every wait is bounded polling on the captured screen.  About 10 s.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets readzero waits

[ "$(id -u)" = 0 ] || skip_all "needs root (kernel samples)"
"$SPROFTOP" --version | grep -q '^kernel frames on' ||
    skip_all "no kernel frames here: $("$SPROFTOP" --version | tail -n 1)"
use_tmux sproftop-kernel

# start_ui NAME ARGS...: sproftop ARGS in a new 120x30 session NAME; its
# exit status lands in $TMPD/NAME.rc.
start_ui() {
    local name=$1
    shift
    "${T[@]}" new-session -d -s "$name" -x 120 -y 30 \
        "cd '$TMPD' && $(printf '%q ' "$SPROFTOP" "$@") 2>'$TMPD/$name.err'; echo \$? >'$TMPD/$name.rc'"
}

samples_above() {
    local s
    s=$(header_value "$1" Samples)
    [ -n "$s" ] && [ "$s" -gt "$2" ]
}

exited() { [ -s "$TMPD/$1.rc" ]; }

# --- 1. K, live -------------------------------------------------------------------
start_target readzero || bail_out "cannot start readzero"
rz=$TARGET_PID
start_ui live --sampler perf -p "$rz" -F 200 -r 0.2 --no-confirm
wait_until 20 samples_above live 100 || { diag "$(screen live)"; bail_out "no samples"; }
keys live 2
check "the flat table shows [k] read_zero" wait_until 10 screen_has live '\[k\] read_zero'
check "the header: Kernel: shown" screen_has live 'Kernel: shown'
keys live K
check "K: the header says Kernel: hidden" wait_until 10 screen_has live 'Kernel: hidden'
check "K: no kernel frame is left" wait_until 10 eval '! screen_has live "\[k\]"'
check "K: their time is the read() wrapper's" \
    wait_until 10 screen_has live '^> .*__libc_read'
keys live K g
check "K again: [k] read_zero is back" wait_until 10 screen_has live '\[k\] read_zero'
keys live q
wait_until 10 exited live
is "$(cat "$TMPD/live.rc" 2>/dev/null)" 0 "q: exit 0"
assert_not_stopped "$rz" "readzero runs on, not stopped, untraced"
kill_pid "$rz"

# --- 2. reasons, live ---------------------------------------------------------------
mkdir -p "$TMPD/disk"
start_ui idle --sampler perf --idle -F 200 -r 0.2 --no-confirm \
    -- "$TARGETS/waits" 30 "$TMPD/disk" "$TMPD/waits.rep"
wait_until 20 samples_above idle 500 || { diag "$(screen idle)"; bail_out "no samples"; }
keys idle 4
check "threads view: each thread's time by reason" \
    wait_until 10 screen_has idle 'On CPU, and off it by reason'
check "threads view: w-fsync waits for the disk" \
    wait_until 10 screen_has idle 'w-fsync .*disk I/O [0-9]+%'
check "threads view: w-epoll polls" screen_has idle 'w-epoll .*poll [0-9]+%'
keys idle z
check "z: the header says Time: on-CPU" wait_until 10 screen_has idle 'Time: on-CPU'
keys idle 2
check "z: on-CPU only, no reason in the flat table" \
    wait_until 10 eval '! screen_has idle "\[off-CPU: "'
keys idle z g
check "z again: off-CPU only, the reasons first" \
    wait_until 10 screen_has idle '\[off-CPU: (disk I/O|poll|sleep|network|lock)\]' ||
    diag "$(screen idle)"
keys idle q
wait_until 15 exited idle
is "$(cat "$TMPD/idle.rc" 2>/dev/null)" 0 "q: exit 0 (and waits, launched, ended)" ||
    diag "$(screen idle; cat "$TMPD/idle.err")"

done_testing
