#!/usr/bin/env bash
# procs_view.t - the processes view on a live multi-process session
# (issue 14): `sproftop -p MASTER,W1,W2` on forkwork, in tmux; view 7
# lists the three processes with their command, %CPU, CPU time and
# state, and Enter on one limits the tree to it (its function, not the
# others').
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets forkwork
use_tmux sproftop-procs 120x30

_workers_known() { grep -q '^WORKERS ' "$TARGET_OUT"; }

start_target forkwork || bail_out "cannot start forkwork"
m=$TARGET_PID
wait_until 10 _workers_known || bail_out "forkwork did not print its workers"
read -r _ w1 w2 <"$TARGET_OUT"
note "master $m, workers $w1 $w2"

tmux_sproftop pv -p "$m,$w1,$w2" -F 200 -r 0.2 --no-confirm

# row PID: the processes view has a row for PID, running forkwork, with
# samples, one thread, its %CPU (a number once two reads are half a
# second apart), CPU time and state from /proc.
row() {
    screen pv | grep -Eq "^[>* ]+$1 +[0-9.]+% +[0-9]+ +1 +[0-9]+\.[0-9] +[0-9]+:[0-9]{2}\.[0-9]{2} +[a-z]+ +forkwork *\$"
}
rows() { row "$m" && row "$w1" && row "$w2"; }

wait_until 15 screen_has pv 'Samples: [1-9]' ||
    diag "$(screen pv; cat "$TMPD/pv.err")"
keys pv 7
check "the processes view lists the master and both workers, named forkwork, with their CPU" \
    wait_until 15 rows
rows || diag "$(screen pv)"

# Enter on the first worker: the header names it, and the tree (merged
# threads, one process: no process root) has worker_one and neither of the
# others' functions.
keys pv / "$w1" Enter Enter
check "Enter limits the views to that process (the header says so)" \
    wait_until 10 screen_has pv "Process: forkwork \\(pid $w1\\)"
keys pv 1 E
check "the tree of that process reaches worker_one" \
    wait_until 10 screen_has pv 'worker_one'
check "...and shows no other process's function" \
    eval '! screen_has pv "master_spin|worker_two"'
keys pv A
check "A shows every process again" \
    wait_until 10 screen_has pv 'Process: all'
keys pv q
wait_until 10 eval '! "${T[@]}" has-session -t pv 2>/dev/null'

# -a has no target PID: the header's first line names the whole machine
# and shows no "PID 0"
par=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
if [ "$(id -u)" = 0 ] || [ "$par" -le 0 ]; then
    tmux_sproftop pa -a -r 0.2 --no-confirm
    check "-a: the header names every process" \
        wait_until 15 screen_has pa '^ +every process \(-a\)'
    unlike "$(screen pa | head -n 1)" 'PID' "-a: ...and shows no PID" ||
        diag "$(screen pa | head -n 3; cat "$TMPD/pa.err")"
    keys pa q
    wait_until 10 eval '! "${T[@]}" has-session -t pa 2>/dev/null'
else
    skip 2 "-a needs root, CAP_PERFMON or perf_event_paranoid <= 0"
fi

for p in "$m" "$w1" "$w2"; do
    assert_not_stopped "$p" "PID $p running and untraced afterwards"
done
done_testing
