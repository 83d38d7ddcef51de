#!/usr/bin/env bash
# procs_all.t - -a samples every process: two targets running at the start
# both appear with their hot functions under their own process roots, a
# process started after sproftop appears too, and without root,
# CAP_PERFMON or perf_event_paranoid <= 0 -a fails with one line saying so.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets split forkwork recurse

par=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
if [ "$(id -u)" != 0 ] && [ "$par" -gt 0 ]; then
    skip_all "-a needs root, CAP_PERFMON or perf_event_paranoid <= 0"
fi

start_target split || bail_out "cannot start split"
sp=$TARGET_PID
start_target forkwork || bail_out "cannot start forkwork"
fw=$TARGET_PID

out=$TMPD/all.folded
_run_seq=$((_run_seq + 1))
ERR=$TMPD/all.err
# -d bounds the run, above the waits below (20 s + 60 s).  No timeout
# wrapper: told SIGINT, `timeout -k 5` kills its command 5 s later, and a
# sanitizer build of sproftop -a may take longer than that to write.
spawn "$SPROFTOP" -a -d 150 -F 200 -o "$out" 2>"$ERR" >/dev/null
sprof=$SPAWN_PID
# a process started once sproftop samples: wait until it has attached
# (its sampler and collector threads have started: the count stops
# growing), then start recurse from this shell
_last=-1
_attached() {
    local n
    n=$(ls "/proc/$sprof/task" 2>/dev/null | wc -l)
    [ "$n" -gt 2 ] && [ "$n" = "$_last" ] && return 0
    _last=$n
    sleep 0.45
    return 1
}
wait_until 20 _attached || diag "sproftop's threads still grow after 20 s"
start_target recurse 120 || bail_out "cannot start recurse"
late=$TARGET_PID
# sampling ends (SIGINT) once the late process has run
# 0.5 s of CPU (100 samples at 200 Hz), and split and forkwork as much
# since then, however loaded the machine is
cpu_mark "$sp" "$fw"
_ran() { cpu_ran 500 "$late" "$sp" "$fw"; }
wait_until 60 _ran || diag "recurse ran $(proc_cpu_ms "$late") ms of CPU in 60 s"
kill -INT "$sprof" 2>/dev/null
wait_exit "$sprof" 60
is "$EXIT_RC" 0 "sproftop -a -o FILE, ended by SIGINT, exits 0"
[ "$EXIT_RC" = 0 ] || diag_file "$ERR"
check "folded lines are 'frames COUNT'" folded_well_formed "$out"

read -r yes no < <(folded_under_root "$out" "split-$sp" work_unit)
cmp_ok "$yes" '>' 20 "split's work_unit under split-$sp ($yes samples)"
read -r yes _ < <(folded_under_root "$out" "forkwork-$fw" work_unit)
is "$yes" 0 "...and not under forkwork-$fw"
read -r yes _ < <(folded_under_root "$out" "forkwork-$fw" master_spin)
cmp_ok "$yes" '>' 20 "forkwork's master_spin under forkwork-$fw ($yes samples)"
cmp_ok "$(folded_count_frame "$out" worker_one)" '>' 20 "forkwork's first worker is sampled"
# it ran 2 s of a 12 s session: once 64 processes of a busy machine have
# exited after it, it is among its command's exited ones (issue 24)
read -r yes _ < <(folded_under_root "$out" "recurse-$late" recurse)
agg=$(folded_roots "$out" | grep -E '^recurse \([0-9,]+ exited\)$' | head -n 1)
folded=0
[ -n "$agg" ] && read -r folded _ < <(folded_under_root "$out" "$agg" recurse)
# (2 s of wall time: on a loaded machine it may get a few dozen samples)
cmp_ok "$((yes + folded))" '>' 0 "recurse, started after sproftop, appears under recurse-$late or its command's exited ones ($yes + $folded samples)"
assert_not_stopped "$sp" "split running and untraced afterwards"
assert_not_stopped "$fw" "forkwork running and untraced afterwards"
kill_pid "$late"

# without the right: one line naming what is missing
if [ "$(id -u)" = 0 ] && [ "$par" -gt 0 ] && command -v setpriv >/dev/null; then
    mkdir "$TMPD/nobody" && chmod 777 "$TMPD/nobody" && chmod 711 "$TMPD"
    timeout -k 5 30 setpriv --reuid 65534 --regid 65534 --clear-groups \
        "$SPROFTOP" -a -d 1 -o "$TMPD/nobody/x.folded" >/dev/null 2>"$TMPD/nobody.err"
    RC=$?
    ERR=$TMPD/nobody.err
    ERRS=$(cat "$ERR")
    is "$RC" 1 "uid 65534 at perf_event_paranoid=$par: -a fails"
    assert_one_line_error "...with one line"
    like "$ERRS" "needs root, CAP_PERFMON or perf_event_paranoid <= 0 \\(it is $par" \
        "...naming root, CAP_PERFMON and the paranoid level"
else
    skip 3 "needs root, perf_event_paranoid > 0 and setpriv to run -a unprivileged"
fi

run_sproftop -a --sampler ptrace -d 1
is "$RC" 2 "-a with --sampler ptrace is a usage error"
run_sproftop -a -p "$sp" -d 1
is "$RC" 2 "-a with -p is a usage error"

done_testing
