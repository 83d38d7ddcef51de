#!/usr/bin/env bash
# engine_signals_basic.t - SIGINT, SIGTERM, SIGHUP and SIGQUIT to a batch
# sproftop: it detaches, writes its output file and exits; the target is
# left running, not stopped, untraced.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets split

start_target split || bail_out "cannot start split"
pid=$TARGET_PID

for sig in INT TERM HUP QUIT; do
    out=$TMPD/sig-$sig.folded
    # Not through timeout(1): the signal must reach sproftop itself.  A
    # background job of a script ignores SIGINT and SIGQUIT until it
    # installs handlers, which sproftop must do.
    spawn "$SPROFTOP" -p "$pid" -F 99 -d 120 -o "$out" >"$TMPD/sig-$sig.out" 2>"$TMPD/sig-$sig.err"
    sp=$SPAWN_PID
    attached() { sproftop_attached "$sp" "$pid"; }
    if ! wait_until 15 attached; then
        ok 1 "SIG$sig: sproftop attached (TracerPid $(tracer_pid "$pid"))"
        diag_file "$TMPD/sig-$sig.err"
        kill_pid "$sp"
        skip 4 "not attached"
        continue
    fi
    ok 0 "SIG$sig: sproftop (PID $sp) attached"
    # Let it take samples (a file with none would prove nothing): 20 of
    # split's (its stops, or its CPU time at 99 Hz; lib.sh _stops_since).
    _stops_snapshot "$pid"
    sampled() { [ "$(_stops_since "$pid" "")" -ge 20 ]; }
    wait_until 30 sampled || diag "SIG$sig: split stopped $(_stops_since "$pid" "") times"
    kill -s "$sig" "$sp"
    if wait_exit "$sp" 15; then
        ok 0 "SIG$sig: sproftop exited (status $EXIT_RC)"
    else
        ok 1 "SIG$sig: sproftop exited within 15 s"
        kill_pid "$sp"
    fi
    check "SIG$sig: the output file is written" test -s "$out"
    cmp_ok "$(folded_total "$out")" '>' 0 "SIG$sig: it holds samples"
    assert_not_stopped "$pid" "SIG$sig: split running and untraced afterwards"
done
check "split is still running" is_running "$pid"

done_testing
