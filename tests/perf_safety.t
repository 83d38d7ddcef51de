#!/usr/bin/env bash
# perf_safety.t - the perf_event backend never touches the target.
#
# While `sproftop --sampler perf` samples at 1 kHz:
#   1. every thread's TracerPid is 0 and no thread is ever in a tracing
#      stop (`t`): each thread's state is polled through a 3 s run of a
#      5-thread target;
#   2. sproftop makes no ptrace system call at all, attached (-p), with
#      --idle (threads found blocked are read from /proc, not stopped) and
#      launching a command that execs: strace -f -e trace=ptrace,
#      perf_event_open sees perf_event_open calls and not one ptrace;
#   3. every signal sent arrives: 200 queued SIGRTMIN+1 (each exactly
#      once: their values sum to 20100) and 50 SIGUSR1, without and with
#      two extra CPU-bound processes on the machine; --stats re-injected
#      nothing (perf intercepts no signal);
#   4. a process strace is tracing can be sampled, and strace stays its
#      tracer;
#   5. a zombie leader (main called pthread_exit): the other threads are
#      sampled;
#   6. bad unwind data (no frame pointers, no unwind tables) ends stacks
#      marked [truncated], never deeper than the 512-frame cap.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/reliability/rel.sh"
require_sproftop
require_targets threads sigcount sigsend split sleeper zombie_leader deep_nounwind
"$SPROFTOP" --version | grep -q '^sampler: auto picks perf' ||
    skip_all "perf_event_open is not permitted here: $("$SPROFTOP" --version | grep '^sampler:')"

SP_TIMEOUT=60

# --- 1. TracerPid 0, never `t` -------------------------------------------------
start_target threads 4 || bail_out "cannot start threads"
pid=$TARGET_PID
wait_until 10 threads_in "$pid" RS
spawn_sproftop poll --sampler perf -p "$pid" -F 1000 -d 3 --stats -o "$TMPD/poll.folded" \
    || bail_out "sproftop did not start"
wait_until 10 traced_by_sproftop "$pid" || diag "sproftop did not attach"
polls=0 bad=""
while is_running "$SP_PID" && [ "$polls" -lt 400 ]; do
    threads_clean "$pid" || bad="$bad$UNCLEAN"
    polls=$((polls + 1))
    sleep 0.02
done
wait_sproftop
is "$SP_RC" 0 "sproftop --sampler perf exits 0"
cmp_ok "$polls" '>' 5 "every thread's state and TracerPid polled through the run ($polls polls)"
is "$bad" "" "no thread was ever in t/T, every TracerPid stayed 0"
is "$(stats_sampler "$TMPD/poll.err")" perf "--stats: sampler perf"
cmp_ok "$(folded_count_frame "$TMPD/poll.folded" spin_worker_3)" '>' 0 "the workers were sampled"
kill_pid "$pid"

# --- 2. no ptrace call --------------------------------------------------------------
if command -v strace >/dev/null; then
    # strace_run NAME ARGS...: sproftop ARGS under strace -f; sets CALLS.
    # LeakSanitizer's exit check stops the process's threads with ptrace,
    # which a process strace already traces cannot do: an ASan build
    # traced here runs without it (detect_leaks=0, for this child only;
    # every other run of the suite keeps it).
    strace_run() {
        local name=$1
        shift
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        timeout -k 5 60 strace -f -qq -e trace=ptrace,perf_event_open -o "$TMPD/$name.strace" \
            "$SPROFTOP" --sampler perf "$@" >/dev/null 2>"$TMPD/$name.err"
        RC=$?
        PTRACE_CALLS=$(grep -c 'ptrace(' "$TMPD/$name.strace")
        PERF_CALLS=$(grep -c 'perf_event_open(' "$TMPD/$name.strace")
    }
    start_target threads 4 || bail_out "cannot start threads"
    strace_run attach -p "$TARGET_PID" -F 1000 -d 1.5 -o "$TMPD/s1.folded"
    is "$RC" 0 "under strace, -p: exit 0"
    cmp_ok "$PERF_CALLS" '>' 0 "strace sees the perf_event_open calls ($PERF_CALLS)"
    is "$PTRACE_CALLS" 0 "-p: not one ptrace call"
    kill_pid "$TARGET_PID"
    start_target sleeper || bail_out "cannot start sleeper"
    wait_until 10 threads_in "$TARGET_PID" S
    strace_run idle -p "$TARGET_PID" --idle -F 100 -d 1 -o "$TMPD/s2.folded"
    is "$RC" 0 "under strace, --idle: exit 0"
    is "$PTRACE_CALLS" 0 "--idle: not one ptrace call"
    cmp_ok "$(folded_count_chain "$TMPD/s2.folded" sleep_outer sleep_inner)" '>' 0 \
        "--idle: the thread blocked since before the attach shows its stack"
    kill_pid "$TARGET_PID"
    strace_run launch -F 1000 -o "$TMPD/s3.folded" -- bash -c "exec '$TARGETS/split' 1"
    is "$RC" 0 "under strace, -- bash -c 'exec split 1': exit 0"
    is "$PTRACE_CALLS" 0 "launch and exec: not one ptrace call"
else
    skip 8 "strace not installed"
fi

# --- 3. every signal arrives ------------------------------------------------------------
counts=$TMPD/counts
# usr1_is N / rt_is N: the count file says so.
usr1_is() { local c; c=$(cat "$counts" 2>/dev/null) || return 1; [ "${c##* usr1 }" = "$1" ]; }
rt_is() { local c; c=$(cat "$counts" 2>/dev/null) || return 1; c=${c#rt }; [ "${c%% *}" = "$1" ]; }

# signals_run DESC: 250 signals to a sigcount sampled at 1 kHz.
signals_run() {
    local desc=$1 i lost=""
    rm -f "$counts"
    start_target sigcount "$counts" 120 || bail_out "cannot start sigcount"
    local pid=$TARGET_PID
    wait_until 10 test -s "$counts"
    spawn_sproftop "sig-$desc" --sampler perf -p "$pid" -F 1000 -d 50 --stats \
        -o "$TMPD/sig-$desc.folded" || bail_out "sproftop did not start"
    wait_until 15 traced_by_sproftop "$pid" || diag "sproftop did not attach"
    "$TARGETS/sigsend" "$pid" RTMIN+1 200 2000 2>"$TMPD/sigsend.err" &
    local sender=$!
    _pids+=("$sender")
    for ((i = 1; i <= 50; i++)); do
        kill -USR1 "$pid"
        wait_until 5 usr1_is "$i" || { lost="SIGUSR1 $i not handled (counts: $(cat "$counts"))"; break; }
    done
    wait "$sender"
    is "$?" 0 "$desc: sigsend queued all 200 SIGRTMIN+1"
    is "$lost" "" "$desc: each of 50 SIGUSR1 handled before the next was sent"
    wait_until 10 rt_is 200
    check "$desc: sproftop sampled through all the signals" traced_by_sproftop "$pid"
    kill -INT "$SP_PID"
    wait_sproftop
    is "$SP_RC" 0 "$desc: sproftop exits 0 on SIGINT"
    cmp_ok "$(folded_total "$TMPD/sig-$desc.folded")" '>' 100 "$desc: samples taken meanwhile"
    is "$(stats_value "$TMPD/sig-$desc.err" 'signals re-injected: ')" 0 \
        "$desc: no signal was intercepted (0 re-injected)"
    assert_not_stopped "$pid" "$desc: sigcount running and untraced"
    kill -TERM "$pid"
    wait_exit "$pid" 10
    is "$(cat "$TARGET_OUT")" "rt 200 rtsum 20100 usr1 50" \
        "$desc: 250 of 250 signals arrived, the real-time ones exactly once"
}
signals_run "quiet"
start_target split || bail_out "cannot start a CPU hog"
start_target split || bail_out "cannot start a CPU hog"
signals_run "two CPU hogs"

# --- 4. a process strace traces ---------------------------------------------------------
if command -v strace >/dev/null; then
    start_target split || bail_out "cannot start split"
    pid=$TARGET_PID
    if strace_attach "$pid"; then
        run_sproftop --sampler perf -p "$pid" -d 1 -o "$TMPD/traced.folded"
        is "$RC" 0 "a process traced by strace: perf samples it, exit 0"
        cmp_ok "$(folded_count_frame "$TMPD/traced.folded" work_unit)" '>' 0 "its samples name work_unit"
        is "$(tracer_pid "$pid")" "$STRACE_PID" "strace is still its tracer"
    else
        skip 3 "strace did not attach"
    fi
    kill_pid "$STRACE_PID"
else
    skip 3 "strace not installed"
fi

# --- 5. zombie leader -----------------------------------------------------------------------
spawn "$TARGETS/zombie_leader" 5 >"$TMPD/zl.out" 2>"$TMPD/zl.err"
zl=$SPAWN_PID
leader_is_zombie() { [ "$(target_state "$zl")" = Z ]; }
check "zombie_leader: the leader is a zombie" wait_until 10 leader_is_zombie
run_sproftop --sampler perf -p "$zl" -F 1000 -d 1 -o "$TMPD/zl.folded"
is "$RC" 0 "zombie leader: exit 0"
cmp_ok "$(folded_count_frame "$TMPD/zl.folded" zl_spin_a)" '>' 0 "zombie leader: worker a sampled"
cmp_ok "$(folded_count_frame "$TMPD/zl.folded" zl_spin_b)" '>' 0 "zombie leader: worker b sampled"

# --- 6. bad unwind data ---------------------------------------------------------------------------
start_target deep_nounwind || bail_out "cannot start deep_nounwind"
run_sproftop --sampler perf -p "$TARGET_PID" -F 1000 -d 1.5 --stats -o "$TMPD/nu.folded"
is "$RC" 0 "no unwind tables: exit 0"
cmp_ok "$(folded_count_frame "$TMPD/nu.folded" deep_hot)" '>' 0 "no unwind tables: the leaf deep_hot is named"
cmp_ok "$(folded_max_frames "$TMPD/nu.folded")" '<=' 514 "no unwind tables: no stack deeper than the cap"
short=$(awk '{ s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";"); m = 0
               for (i = 2; i <= k; i++) if (f[i] == "[truncated]") m = 1
               if (!m && f[2] != "_start") n += $NF } END { print n + 0 }' "$TMPD/nu.folded")
is "$short" 0 "no unwind tables: every stack short of _start is marked [truncated]"
is "$(stats_value "$ERR" 'lost ')" 0 "no unwind tables: no sample lost"

done_testing
