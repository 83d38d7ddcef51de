#!/usr/bin/env bash
# reliability_kill.t - sproftop killed or signalled at random moments
# never harms its target (PTRACE.md, trap 1).
#
# One multi-threaded target ("threads 2": two spinning workers and a
# main thread blocked in pthread_join).  50 times, a 1 kHz batch sproftop
# is started on it and SIGKILLed a random 0-300 ms after its exec is seen
# (during the attach, or in the middle of sampling).  After each, every
# thread of the target must come back to a state other than t/T and
# TracerPid 0 within 5 s (the kernel detaches the tracees of a dead tracer).  Then SIGINT,
# SIGTERM and SIGHUP, 5 times each at a random 0-300 ms after the attach:
# sproftop exits 0, the target is detached the same way, and the -o file
# is written and well formed.  Finally the target is still running and
# still using CPU.  REL_KILLS and REL_SIG_RUNS change the number of runs;
# the slowest return to a clean state and the slowest exit are noted.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/reliability/rel.sh"
require_sproftop
require_targets threads

SP_TIMEOUT=40
KILLS=${REL_KILLS:-50}
SIG_RUNS=${REL_SIG_RUNS:-5}

start_target threads 2 || bail_out "cannot start threads"
pid=$TARGET_PID
wait_until 10 threads_in "$pid" RS
is "$(thread_count "$pid")" 3 "target has its 3 threads"

# sleep_ms N: sleep N milliseconds (0 is a no-op).
sleep_ms() {
    [ "$1" -gt 0 ] && sleep "$(awk -v m="$1" 'BEGIN { printf "%.3f", m / 1000 }')"
    return 0
}

# --- SIGKILL ---------------------------------------------------------------
stopped="" traced="" misc="" attached_at_kill=0 slowest=0
for ((i = 1; i <= KILLS; i++)); do
    delay=$((RANDOM % 301))
    if ! spawn_sproftop "kill$i" -p "$pid" -F 1000 -d 30 -o "$TMPD/kill$i.folded"; then
        misc="$misc run $i: sproftop did not start;"
        continue
    fi
    sleep_ms "$delay"
    traced_by_sproftop "$pid" && attached_at_kill=$((attached_at_kill + 1))
    kill -KILL "$SP_PID" 2>/dev/null
    wait_sproftop
    [ "$SP_RC" = 137 ] || misc="$misc run $i: sproftop ended with status $SP_RC, not by SIGKILL;"
    t0=$EPOCHREALTIME
    clean=0
    wait_until 5 threads_clean "$pid" && clean=1
    slow=$(awk -v a="$t0" -v b="$EPOCHREALTIME" -v m="$slowest" \
        'BEGIN { d = b - a; print (d > m ? d : m) }')
    slowest=$slow
    if [ "$clean" = 0 ]; then
        case $UNCLEAN in
            *state*) stopped="$stopped run $i (${delay} ms):$UNCLEAN" ;;
            *) traced="$traced run $i (${delay} ms):$UNCLEAN" ;;
        esac
        # Later runs would only repeat the failure.
        [ -d "/proc/$pid" ] || break
    fi
done
note "$attached_at_kill of $KILLS SIGKILLs hit sproftop while it traced the target"
note "the slowest return to a clean state took ${slowest} s (polled every 50 ms)"
is "$misc" "" "all $KILLS sproftop runs started and were killed"
no_problems "$stopped" "after each of $KILLS SIGKILLs no thread is left in t/T"
no_problems "$traced" "after each of $KILLS SIGKILLs every TracerPid returns to 0"
cmp_ok "$attached_at_kill" '>' 0 "some SIGKILLs landed while sproftop was attached"

# --- SIGINT, SIGTERM, SIGHUP: clean detach and output ---------------------
for sig in INT TERM HUP; do
    bad_rc="" unclean="" badout="" samples=0 slowest=0
    for ((r = 1; r <= SIG_RUNS; r++)); do
        out=$TMPD/sig$sig$r.folded
        if ! spawn_sproftop "sig$sig$r" -p "$pid" -F 1000 -d 30 -o "$out"; then
            bad_rc="$bad_rc run $r: did not start;"
            continue
        fi
        if ! wait_until 10 traced_by_sproftop "$pid"; then
            bad_rc="$bad_rc run $r: never attached;"
            diag_file "$TMPD/sig$sig$r.err"
        fi
        delay=$((RANDOM % 301))
        sleep_ms "$delay"
        kill -s "$sig" "$SP_PID"
        t0=$EPOCHREALTIME
        wait_sproftop
        slowest=$(awk -v a="$t0" -v b="$EPOCHREALTIME" -v m="$slowest" \
            'BEGIN { d = b - a; print (d > m ? d : m) }')
        if [ "$SP_RC" != 0 ]; then
            bad_rc="$bad_rc run $r (${delay} ms): exit $SP_RC;"
            diag_file "$TMPD/sig$sig$r.err" 5
        fi
        wait_until 5 threads_clean "$pid" || unclean="$unclean run $r (${delay} ms):$UNCLEAN"
        if ! folded_well_formed "$out" 2>>"$TMPD/sig$sig.badout"; then
            badout="$badout run $r (${delay} ms): $out missing or malformed;"
        else
            samples=$((samples + $(folded_total "$out")))
        fi
    done
    note "SIG$sig: the slowest exit took ${slowest} s after the signal"
    is "$bad_rc" "" "SIG$sig x$SIG_RUNS at random moments: sproftop exits 0 each time"
    no_problems "$unclean" "SIG$sig x$SIG_RUNS: target detached, no thread stopped or traced"
    if is "$badout" "" "SIG$sig x$SIG_RUNS: -o file written and well formed each time"; then :; else
        diag_file "$TMPD/sig$sig.badout"
    fi
    cmp_ok "$samples" '>' 0 "SIG$sig: the files hold samples ($samples)"
done

assert_not_stopped "$pid" "target not stopped, untraced at the end"
before=$(cpu_ticks "$pid")
check "target still running and using CPU" wait_until 5 cpu_grew "$pid" "$before"
kill_pid "$pid"

done_testing
