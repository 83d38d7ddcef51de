#!/usr/bin/env bash
# reliability_signals.t - no signal is lost or duplicated while sampling
# at 1 kHz (PTRACE.md, trap 2).
#
# sigcount (two spinning threads) counts the signals its handlers run for.
# During a 1 kHz batch sproftop on it:
#   - sigsend queues 200 SIGRTMIN+1 with sigqueue, one every 2 ms, each
#     carrying its number 1..200: real-time signals queue, so all 200
#     must be handled, exactly once each (their values sum to 20100);
#   - 50 SIGUSR1 are sent one at a time, each only after the target has
#     written that it handled the previous one (SIGUSR1 does not queue:
#     two sent together may merge, with or without a tracer).
# Then sproftop is stopped with SIGINT; the target, still running and
# untraced, prints its counts on SIGTERM and exits 0.  A sampler that
# swallows signal-delivery stops would leave the counts short.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/reliability/rel.sh"
# A trap of the ptrace backend (PTRACE.md): pinned to it.  The perf
# backend never stops the target; its own checks are in tests/perf_*.t.
export SPROFTOP_SAMPLER=ptrace
require_sproftop
require_targets sigcount sigsend

SP_TIMEOUT=60
counts=$TMPD/counts

start_target sigcount "$counts" 120 || bail_out "cannot start sigcount"
pid=$TARGET_PID
wait_until 10 test -s "$counts"
is "$(cat "$counts" 2>/dev/null)" "rt 0 rtsum 0 usr1 0" "sigcount starts with no signal counted"

spawn_sproftop run -p "$pid" -F 1000 -d 50 -o "$TMPD/sig.folded" --stats \
    || bail_out "sproftop did not start"
if ! wait_until 15 traced_by_sproftop "$pid"; then
    diag_file "$TMPD/run.err"
    bail_out "sproftop did not attach"
fi
# Sampling is under way once samples are being taken: give it 0.3 s.
sleep 0.3

# usr1_is N: the count file says N SIGUSR1 were handled.
usr1_is() {
    local c
    c=$(cat "$counts" 2>/dev/null) || return 1
    [ "${c##* usr1 }" = "$1" ]
}

# rt_is N: the count file says N real-time signals were handled.
rt_is() {
    local c
    c=$(cat "$counts" 2>/dev/null) || return 1
    c=${c#rt }
    [ "${c%% *}" = "$1" ]
}

"$TARGETS/sigsend" "$pid" RTMIN+1 200 2000 2>"$TMPD/sigsend.err" &
sender=$!
_pids+=("$sender")
lost_usr1=""
for ((i = 1; i <= 50; i++)); do
    kill -USR1 "$pid"
    if ! wait_until 5 usr1_is "$i"; then
        lost_usr1="SIGUSR1 number $i not handled within 5 s (counts: $(cat "$counts"))"
        break
    fi
done
wait "$sender"
is "$?" 0 "sigsend queued all 200 SIGRTMIN+1"
[ -s "$TMPD/sigsend.err" ] && diag_file "$TMPD/sigsend.err"
is "$lost_usr1" "" "each of 50 SIGUSR1 was handled before the next was sent"
wait_until 10 rt_is 200
check "sproftop was still attached through all the signals" traced_by_sproftop "$pid"

kill -INT "$SP_PID"
wait_sproftop
is "$SP_RC" 0 "sproftop exits 0 on SIGINT"
samples=$(folded_total "$TMPD/sig.folded")
cmp_ok "$samples" '>' 500 "it sampled the target meanwhile ($samples samples)"
reinjected=$(stats_value "$TMPD/run.err" 'signals re-injected: ')
cmp_ok "${reinjected:-0}" '>=' 250 "--stats: >= 250 signals re-injected (${reinjected:-none})"
wait_until 5 threads_clean "$pid"
assert_not_stopped "$pid" "sigcount running and untraced after sproftop"

kill -TERM "$pid"
if wait_exit "$pid" 10; then
    is "$EXIT_RC" 0 "sigcount exits 0 on SIGTERM"
else
    ok 1 "sigcount exits within 10 s of SIGTERM"
fi
final=$(cat "$TARGET_OUT")
is "$final" "rt 200 rtsum 20100 usr1 50" \
    "the target handled all 200 real-time signals exactly once and all 50 SIGUSR1"

done_testing
