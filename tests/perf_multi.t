#!/usr/bin/env bash
# perf_multi.t - one perf sampler serves every process of a session.
#   1. -a: --stats shows one sampler thread and one event per CPU, however
#      many processes run, and a busy target's function under its process;
#   2. --children: the workers a master forks after the attach inherit its
#      events (no event is opened for them, the same rings carry their
#      records) and are sampled under their own process roots by the one
#      sampler thread;
#   3. a ring that overflows while sproftop cannot read it (stopped) is
#      counted: the kernel's LOST records reach --stats.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets split forkwork
"$SPROFTOP" --version | grep -q '^sampler: auto picks perf' ||
    skip_all "perf_event is refused here: $("$SPROFTOP" --version | grep '^sampler:')"

ncpu=$(awk -F, '{n = 0; for (i = 1; i <= NF; i++) { split($i, r, "-"); n += (r[2] == "" ? 1 : r[2] - r[1] + 1) } print n}' \
    /sys/devices/system/cpu/online)
SP_TIMEOUT=40

stat_line() { grep "^$1" "$ERR" | head -n 1; }

# --- 1. -a -------------------------------------------------------------------
par=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
start_target split || bail_out "cannot start split"
sp=$TARGET_PID
if [ "$(id -u)" = 0 ] || [ "$par" -le 0 ]; then
    run_sproftop -a -d 4 -F 99 --stats -o "$TMPD/all.folded"
    is "$RC" 0 "-a -d 4 --stats exits 0"
    [ "$RC" = 0 ] || diag_file "$ERR"
    like "$(stat_line 'perf:')" "^perf: 1 sampler thread\\(s\\), $ncpu events open on $ncpu CPUs;" \
        "-a: one sampler thread, one event per CPU ($ncpu)"
    like "$(stat_line 'threads:')" 'processes: [0-9]+ live, [0-9]+ seen' "...and --stats counts the processes"
    read -r yes _ < <(folded_under_root "$TMPD/all.folded" "split-$sp" work_unit)
    cmp_ok "$yes" '>' 20 "split's work_unit under split-$sp ($yes samples)"
else
    skip 4 "-a needs root, CAP_PERFMON or perf_event_paranoid <= 0"
fi

# --- 2. --children: inherited events, the same rings --------------------------
start_target forkwork 0 1 || bail_out "cannot start forkwork with a delay"
m=$TARGET_PID
out=$TMPD/children.folded
run_sproftop --children -p "$m" -d 4 -F 500 --stats -o "$out"
is "$RC" 0 "--children -p MASTER --stats exits 0"
[ "$RC" = 0 ] || diag_file "$ERR"
read -r _ c1 c2 <"$TARGET_OUT"
check "the master forked its workers during the run" test -n "$c2"
# the master has one thread: a ring owner and one event per CPU
like "$(stat_line 'perf:')" "^perf: 1 sampler thread\\(s\\), $((2 * ncpu)) events open on $ncpu CPUs;" \
    "one sampler thread; no event opened for the workers (they inherit the master's)"
like "$(stat_line 'threads:')" 'processes: [0-9]+ live, 3 seen' "...which serves the three processes"
for pair in "$c1 worker_one" "$c2 worker_two"; do
    set -- $pair
    read -r yes _ < <(folded_under_root "$out" "forkwork-$1" "$2")
    cmp_ok "$yes" '>' 50 "$2 sampled under forkwork-$1 ($yes samples)"
done
for p in "$m" "$c1" "$c2"; do
    assert_not_stopped "$p" "PID $p running and untraced after --children"
done
kill_pid "$m" # its workers die with it (PR_SET_PDEATHSIG): split gets the CPUs

# --- 3. a ring overflowing is counted ------------------------------------------
ERR=$TMPD/lost.err
spawn timeout -k 5 "$SP_TIMEOUT" "$SPROFTOP" --sampler perf -p "$sp" -F 2000 -d 5 --stats \
    -o "$TMPD/lost.folded" 2>"$ERR" >/dev/null
tmo=$SPAWN_PID
sprof=
_sampling() {
    sprof=$(pgrep -P "$tmo" | head -n 1)
    [ -n "$sprof" ] && [ "$(ls "/proc/$sprof/task" 2>/dev/null | wc -l)" -ge 3 ]
}
wait_until 10 _sampling || bail_out "sproftop did not start sampling"
# stopped, sproftop reads nothing: at 2 kHz of 16 KiB copies the rings
# (about 0.2 s of samples each) overflow well within the 2.5 s, even
# with split on a CPU a quarter of the time
sleep 0.5
kill -STOP "$sprof"
sleep 2.5
kill -CONT "$sprof"
wait_exit "$tmo" 30
is "$EXIT_RC" 0 "sproftop stopped for 2.5 s, then let go: exits 0"
[ "$EXIT_RC" = 0 ] || diag_file "$ERR"
lost=$(sed -n 's/.*lost in the ring buffers \([0-9]*\),.*/\1/p' "$ERR" | head -n 1)
cmp_ok "${lost:-0}" '>' 0 "the overflow is counted: ${lost:-0} samples lost in the ring buffers" ||
    diag_file "$ERR"
total=$(sed -n 's/^samples: .*, lost \([0-9]*\),.*/\1/p' "$ERR" | head -n 1)
cmp_ok "${total:-0}" '>=' "${lost:-0}" "...and in the lost total ($total)"
assert_not_stopped "$sp" "split running and untraced afterwards"

done_testing
