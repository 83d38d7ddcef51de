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
    # > 20 samples of split at 99 Hz: 0.2 s of its CPU; 0.6 s for a margin
    cpu_mark "$sp"
    _split_ran() { cpu_ran 600 "$sp"; }
    sample_while 60 _split_ran -a -F 99 --stats -o "$TMPD/all.folded"
    is "$RC" 0 "-a --stats exits 0 (ended by SIGINT)"
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
# it forks once sproftop has attached (go file), however long that takes
start_target forkwork 0 "@$TMPD/go-children" || bail_out "cannot start forkwork"
m=$TARGET_PID
out=$TMPD/children.folded
# > 50 samples of each worker at 500 Hz: 0.1 s of its CPU; 0.3 s for a
# margin, however long the load makes that take
_workers_ran() {
    local c1 c2
    [ -e "$TMPD/go-children" ] ||
        { sproftop_attached "$SAMPLE_PID" "$m" && touch "$TMPD/go-children"; }
    read -r _ c1 c2 <"$TARGET_OUT" 2>/dev/null && [ -n "$c2" ] && cpu_ran 300 "$c1" "$c2"
}
sample_while 60 _workers_ran --children -p "$m" -F 500 --stats -o "$out"
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
spawn timeout -k 5 "$SP_TIMEOUT" "$SPROFTOP" --sampler perf -p "$sp" -F 2000 -d 120 --stats \
    --ring-size 64K -o "$TMPD/lost.folded" 2>"$ERR" >/dev/null
tmo=$SPAWN_PID
sprof=
_sampling() {
    sprof=$(pgrep -P "$tmo" | head -n 1)
    [ -n "$sprof" ] && [ "$(ls "/proc/$sprof/task" 2>/dev/null | wc -l)" -ge 3 ]
}
wait_until 10 _sampling || bail_out "sproftop did not start sampling"
# Stopped, sproftop reads nothing.  It stays stopped until split has run
# long enough to fill every ring (their sizes from sproftop's mappings)
# with 2 kHz samples of 16 KiB and more, ten times over and at least
# 0.2 s: a condition on split's CPU time, bounded, not a fixed time.
# Every CPU's ring, not the first: split moves between CPUs, and the
# wait for one ring's worth left the other half empty (an ASan run lost
# nothing that way).
_rings() { grep -c 'anon_inode:\[perf_event\]' "/proc/$sprof/maps" 2>/dev/null; }
ncpu=$(getconf _NPROCESSORS_ONLN)
wait_until 10 eval '[ "$(_rings)" -ge "$ncpu" ]' ||
    bail_out "sproftop mapped $(_rings) rings, not one per CPU ($ncpu)"
# (the maps read at once, and each ring's size checked: a sanitizer run
# once summed a size past every ring's, so the wait below never ended)
ring_total=0
while read -r range _ _ _ _ name; do
    [ "$name" = 'anon_inode:[perf_event]' ] || continue
    [[ $range =~ ^([0-9a-f]+)-([0-9a-f]+)$ ]] || continue
    size=$((0x${BASH_REMATCH[2]} - 0x${BASH_REMATCH[1]}))
    [ "$size" -gt 0 ] && [ "$size" -le $((1 << 30)) ] || continue
    ring_total=$((ring_total + size))
done <<<"$(cat "/proc/$sprof/maps")"
# (64-KiB rings, a few samples each, and ten times the time to fill
# them: with the default 16 MiB ones and half again to spare, a TSan run
# in CI got 785 samples a second of split's CPU, not 2,000, and its rings
# never filled)
need_ns=$((ring_total / 16384 * 500000 * 10))
[ "$need_ns" -ge 200000000 ] || need_ns=200000000
note "rings: $ring_total bytes; sproftop stays stopped for $need_ns ns of split's CPU"
split_ns() { cat /proc/"$sp"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'; }
kill -STOP "$sprof"
c0=$(split_ns)
_filled() { [ $(($(split_ns) - c0)) -ge "$need_ns" ]; }
# (within sproftop's own bound, SP_TIMEOUT)
wait_until 25 _filled || diag "split ran less than $need_ns ns in 25 s"
kill -CONT "$sprof"
# the kernel writes its LOST record at the first sample after the drain
# makes room: let split run on (a tenth of a second of CPU: 200 samples),
# then end sampling with SIGINT, whose last drain reads it
c1=$(split_ns)
_ran_on() { [ $(($(split_ns) - c1)) -ge 100000000 ]; }
wait_until 30 _ran_on || diag "split did not run on after the CONT"
kill -INT "$sprof"
wait_exit "$tmo" 30
is "$EXIT_RC" 0 "sproftop stopped until its rings overflowed, then let go: exits 0"
[ "$EXIT_RC" = 0 ] || diag_file "$ERR"
lost=$(sed -n 's/.*lost in the ring buffers \([0-9]*\),.*/\1/p' "$ERR" | head -n 1)
cmp_ok "${lost:-0}" '>' 0 "the overflow is counted: ${lost:-0} samples lost in the ring buffers" ||
    diag_file "$ERR"
total=$(sed -n 's/^samples: .*, lost \([0-9]*\),.*/\1/p' "$ERR" | head -n 1)
cmp_ok "${total:-0}" '>=' "${lost:-0}" "...and in the lost total ($total)"
assert_not_stopped "$sp" "split running and untraced afterwards"

done_testing
