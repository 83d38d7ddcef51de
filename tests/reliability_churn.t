#!/usr/bin/env bash
# reliability_churn.t - thread churn under 1 kHz sampling (PTRACE.md,
# trap 4).
#
# churn creates and joins ~1,000 threads a second for 20 s; each thread
# runs ~3 ms (spin, sleep, spin), so sproftop keeps seizing threads that
# are starting, blocking or exiting under it.  A batch sproftop samples it
# at 1 kHz for the first 14 s, then detaches while the churn goes on.
# Meanwhile every thread's state is polled five times a second: a thread
# may be seen in `t` for a sample (microseconds), but one seen in t/T at
# every poll for a whole second is stuck.  Checks: no thread ever stuck;
# sproftop exits 0 with samples and --stats "threads: N live, M seen",
# M > 100; after it, no thread is stopped or traced; churn exits 0.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/reliability/rel.sh"
require_sproftop
require_targets churn

SP_TIMEOUT=60
# REL_CHURN_S shortens the run (tests/engine_ptrace.t); sampling covers
# its first 70%.
RUN_S=${REL_CHURN_S:-20}
SAMPLE_S=$((RUN_S * 7 / 10))

start_target churn "$RUN_S" || bail_out "cannot start churn"
pid=$TARGET_PID
spawn_sproftop run -p "$pid" -F 1000 -d "$SAMPLE_S" -o "$TMPD/churn.folded" --stats \
    || bail_out "sproftop did not start"

# stopped_tids PID: the threads of PID now in t or T, one line.
stopped_tids() {
    awk 'BEGIN {
        for (i = 1; i < ARGC; i++) {
            f = ARGV[i] "/stat"
            if ((getline line < f) > 0) {
                tid = ARGV[i]; sub(/.*\//, "", tid)
                sub(/.*\) /, "", line); split(line, s, " ")
                if (s[1] == "t" || s[1] == "T") out = out " " tid
            }
            close(f)
        }
        print out; exit }' /proc/"$1"/task/* 2>/dev/null
}

declare -A streak=()
stuck="" polls=0 max_streak=0 sp_done=0
# Poll until churn ends (bounded: RUN_S + 40 s of polls).
for ((p = 0; p < (RUN_S + 40) * 5; p++)); do
    is_running "$pid" || break
    now=$(stopped_tids "$pid")
    polls=$((polls + 1))
    declare -A next=()
    for tid in $now; do
        next[$tid]=$(( ${streak[$tid]:-0} + 1 ))
        [ "${next[$tid]}" -gt "$max_streak" ] && max_streak=${next[$tid]}
        if [ "${next[$tid]}" -eq 6 ]; then
            stuck="$stuck thread $tid in t/T at 6 polls in a row (1 s);"
        fi
    done
    streak=()
    for tid in "${!next[@]}"; do streak[$tid]=${next[$tid]}; done
    unset next
    if [ "$sp_done" = 0 ] && ! is_running "$SP_PID"; then
        sp_done=1
        wait_sproftop
        sp_rc=$SP_RC
        # Right after the detach, with the churn still going.
        if wait_until 5 threads_clean "$pid"; then
            detach_unclean=""
        else
            detach_unclean=$UNCLEAN
        fi
    fi
    sleep 0.2
done
note "$polls polls of every thread's state; longest t/T streak: $max_streak poll(s)"
cmp_ok "$polls" '>' $((RUN_S * 5 / 2)) "the threads' states were polled through the run"
is "$stuck" "" "no thread was ever stuck in t/T"

is "$sp_done" 1 "sproftop ended before churn did"
is "${sp_rc:-none}" 0 "sproftop exits 0"
[ "${sp_rc:-}" = 0 ] || diag_file "$TMPD/run.err"
is "${detach_unclean-not checked}" "" "after sproftop, with churn still running: no thread stopped or traced"

if wait_exit "$pid" 30; then
    is "$EXIT_RC" 0 "churn exits 0"
else
    ok 1 "churn exits within $RUN_S s + 30 s"
fi
[ "${EXIT_RC:-}" = 0 ] || diag_file "$TARGET_ERR"
created=$(sed -n 's/^created //p' "$TARGET_OUT")
note "churn created ${created:-no} threads"
cmp_ok "${created:-0}" '>' 1000 "churn created and joined threads (${created:-none})"

samples=$(stats_value "$TMPD/run.err" 'samples: ')
seen=$(stats_value "$TMPD/run.err" 'live, ')
cmp_ok "${samples:-0}" '>' 0 "--stats: samples taken (${samples:-none})"
cmp_ok "${seen:-0}" '>' 100 "--stats: more than 100 threads seen (${seen:-none})"
cmp_ok "$(folded_total "$TMPD/churn.folded")" '>' 0 "the output holds samples"
check "the output is well formed" folded_well_formed "$TMPD/churn.folded"
# The exited threads join one thread, "churn (exited)": the profile keeps
# apart at most the batch alive when sampling ended (before the ptrace
# backend told the collector of its exited threads: one root each).
workers=$(thread_roots "$TMPD/churn.folded" churn "$pid")
cmp_ok "$workers" '<=' 10 "$(stats_sampler "$TMPD/run.err"): the saved profile keeps at most one batch of worker threads apart"
check "...and the exited ones in churn (exited)" grep -q '^churn (exited);' "$TMPD/churn.folded"
# --stats lists the live threads and the newest 64 exited ones, and counts
# the others (the list grew with every thread ever seen on ptrace).  The
# live ones are those --stats counts live: one batch and main, and at
# times a thread of the batch before whose exit the kernel had not yet
# recorded when its joiner started the next (glibc's join wakes at the
# thread's tid clear, before perf's EXIT record is written).
listed=$(grep -cE '^ +[0-9]+ +churn ' "$TMPD/run.err")
live=$(stats_value "$TMPD/run.err" 'threads: ')
note "--stats: ${live:-no} live threads, $listed listed"
cmp_ok "$listed" '<=' $(( ${live:-0} + 64 )) \
    "--stats lists at most the 64 newest exited threads besides the ${live:-0} live ones"
like "$(grep 'more exited threads' "$TMPD/run.err")" \
    '^  \.\.\. and [1-9][0-9]* more exited threads, [0-9]+ samples \(the last 64 exited are listed\)' \
    "...and counts the others"
if [ "$(stats_sampler "$TMPD/run.err")" = perf ]; then
    # The kernel starts each new thread's CPU clock at zero: a thread that
    # uses less than one interval (churn's use ~0.1 ms of 1 ms) is sampled
    # only when it happens to run longer.  Every one is still followed.
    note "perf: $(folded_count_frame "$TMPD/churn.folded" churn_work) churn_work samples"
    cmp_ok "${seen:-0}" '>' $((RUN_S * 1000 / 4)) \
        "perf: the FORK records name most of the threads created (${seen:-none} seen)"
else
    cmp_ok "$(folded_count_frame "$TMPD/churn.folded" churn_work)" '>' 0 \
        "short-lived threads were sampled (churn_work)"
fi

done_testing
