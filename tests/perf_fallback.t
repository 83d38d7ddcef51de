#!/usr/bin/env bash
# perf_fallback.t - choosing the backend: --sampler, SPROFTOP_SAMPLER, and
# auto's fallback to ptrace, with its one-line cause and fix, when the
# kernel refuses perf_event.
#
# Refusals are made without touching the machine's settings:
#   - noperf runs sproftop under a seccomp filter that makes
#     perf_event_open fail with EACCES (as a container profile would);
#   - an unprivileged user (uid 65534) at perf_event_paranoid >= 2 may
#     sample its own processes in user mode only, so --idle (whose
#     context-switch samples happen in the kernel) is refused while the
#     on-CPU mode is not.
# Checks: --version says which backend auto picks, and why; --stats names
# the backend and, after a fallback, the cause and the fix; --sampler perf
# fails with that line instead of falling back; bad values are usage
# errors; --stack-size too small for a 300-deep recursion counts the
# stacks it cuts short as "stack-copy" and marks them [truncated].
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/reliability/rel.sh"
require_sproftop
require_targets split noperf halfsleep recurse

SP_TIMEOUT=30
NOPERF=$TARGETS/noperf

# --- forced by a seccomp filter -------------------------------------------------
ver=$("$NOPERF" "$SPROFTOP" --version)
like "$ver" '^sampler: auto picks ptrace \(perf_event_open refused.*for the faster sampler\)' \
    "under noperf, --version: auto picks ptrace, with the cause and the fix"
start_target split || bail_out "cannot start split"
pid=$TARGET_PID

_run_seq=$((_run_seq + 1))
ERR=$TMPD/noperf.err
timeout -k 5 30 "$NOPERF" "$SPROFTOP" -p "$pid" -d 1 --stats -o "$TMPD/np.folded" 2>"$ERR"
is "$?" 0 "under noperf, auto: exit 0"
is "$(stats_sampler "$ERR")" ptrace "under noperf, auto: --stats says ptrace"
like "$(grep '^sampler:' "$ERR")" \
    'perf_event_open refused \(Permission denied\).*: using ptrace; .*CAP_PERFMON.* for the faster sampler' \
    "under noperf, auto: --stats gives the cause and the fix in one line"
cmp_ok "$(folded_total "$TMPD/np.folded")" '>' 0 "under noperf, auto: ptrace took the samples"
cmp_ok "$(folded_count_frame "$TMPD/np.folded" work_unit)" '>' 0 "under noperf, auto: the same hot function"

timeout -k 5 30 "$NOPERF" "$SPROFTOP" --sampler perf -p "$pid" -d 1 -o "$TMPD/np2.folded" 2>"$ERR"
is "$?" 1 "under noperf, --sampler perf: exit 1"
is "$(line_count "$ERR")" 1 "under noperf, --sampler perf: one line on stderr"
like "$(cat "$ERR")" 'perf_event.*refused.*CAP_PERFMON.*--sampler ptrace' \
    "under noperf, --sampler perf: the cause, the fix and the other backend"
check "under noperf, --sampler perf: no output written" test ! -e "$TMPD/np2.folded"

# --- not forced: auto picks perf here (as root) ------------------------------------
if "$SPROFTOP" --version | grep -q '^sampler: auto picks perf'; then
    run_sproftop -p "$pid" -d 1 --stats -o "$TMPD/auto.folded"
    is "$(stats_sampler "$ERR")" perf "auto picks perf when it is permitted"
    unlike "$(grep '^sampler:' "$ERR")" 'using ptrace' "auto on perf: no fallback reason"
    SPROFTOP_SAMPLER=ptrace run_sproftop -p "$pid" -d 0.5 --stats -o "$TMPD/env.folded"
    is "$(stats_sampler "$ERR")" ptrace "SPROFTOP_SAMPLER=ptrace picks ptrace"
    SPROFTOP_SAMPLER=ptrace run_sproftop --sampler perf -p "$pid" -d 0.5 --stats -o "$TMPD/env2.folded"
    is "$(stats_sampler "$ERR")" perf "--sampler wins over SPROFTOP_SAMPLER"
else
    skip 4 "perf_event is not permitted here"
fi

# --- an unprivileged user: user-mode samples only --------------------------------------
par=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
if [ "$(id -u)" = 0 ] && [ "$par" -ge 2 ] && command -v setpriv >/dev/null; then
    mkdir "$TMPD/nobody" && chmod 777 "$TMPD/nobody" && chmod 711 "$TMPD"
    as_nobody() {
        timeout -k 5 30 setpriv --reuid 65534 --regid 65534 --clear-groups "$SPROFTOP" "$@" \
            >/dev/null 2>"$TMPD/nobody.err"
        RC=$?
    }
    as_nobody --idle -d 1 --stats -o "$TMPD/nobody/idle.folded" -- "$TARGETS/halfsleep" 1.5
    is "$RC" 0 "uid 65534, --idle: exit 0"
    is "$(stats_sampler "$TMPD/nobody.err")" ptrace "uid 65534, --idle: auto falls back to ptrace"
    like "$(grep '^sampler:' "$TMPD/nobody.err")" \
        "--idle needs kernel samples, refused at perf_event_paranoid=$par: using ptrace; .*paranoid=1 or run as root for the faster sampler" \
        "uid 65534, --idle: the cause (paranoid $par) and the fix"
    cmp_ok "$(folded_count_frame "$TMPD/nobody/idle.folded" sleep_inner)" '>' 0 \
        "uid 65534, --idle: ptrace samples the sleeping chain"
    as_nobody -d 1 --stats -o "$TMPD/nobody/cpu.folded" -- "$TARGETS/split" 1.5
    is "$(stats_sampler "$TMPD/nobody.err")" perf "uid 65534, on-CPU: perf, in user mode"
    cmp_ok "$(folded_count_frame "$TMPD/nobody/cpu.folded" work_unit)" '>' 0 \
        "uid 65534, on-CPU: user-mode samples name work_unit"
else
    skip 6 "needs root and perf_event_paranoid >= 2 (it is $par)"
fi

# --- usage errors ---------------------------------------------------------------------
usage() { # DESC ERE ARGS...
    local desc=$1 ere=$2
    shift 2
    run_sproftop "$@"
    is "$RC" 2 "$desc: exit 2"
    like "$ERRS" "$ere" "$desc: the message names it"
}
usage "--sampler bogus" "sampler 'bogus'" --sampler bogus -p "$pid" -d 1
usage "--stack-size 3x" "stack size '3x'" --stack-size 3x -p "$pid" -d 1
usage "--dump --sampler perf" "--dump.*ptrace" --dump --sampler perf -p "$pid"
SPROFTOP_SAMPLER=bogus run_sproftop -p "$pid" -d 1
is "$RC" 2 "SPROFTOP_SAMPLER=bogus: exit 2"

# --- a stack copy too small -----------------------------------------------------------------
if "$SPROFTOP" --version | grep -q '^sampler: auto picks perf'; then
    start_target recurse || bail_out "cannot start recurse"
    run_sproftop --sampler perf --stack-size 2K -p "$TARGET_PID" -F 500 -d 1 --stats -o "$TMPD/small.folded"
    is "$RC" 0 "--stack-size 2K: exit 0"
    like "$(grep '^sampler:' "$ERR")" '2048-byte stack copies' "--stats: 2048-byte stack copies"
    cmp_ok "$(stats_value "$ERR" 'stack-copy ')" '>' 0 "--stats counts the stacks cut short by cause: stack-copy"
    cmp_ok "$(folded_count_frame "$TMPD/small.folded" '[truncated]')" '>' 0 "they are marked [truncated]"
    # The kernel's copy of the user stack stops at the first page it
    # cannot read without a fault: once, in a sanitizer pass, 463 of 500
    # samples of the cold upper frames were cut that way for a whole
    # second (the same run again: none).  A second second is taken then.
    for try in 1 2; do
        run_sproftop --sampler perf -p "$TARGET_PID" -F 500 -d 1 --stats -o "$TMPD/dflt.folded"
        cut=$(stats_value "$ERR" 'stack-copy ')
        [ "$cut" = 0 ] && break
        note "default stack copy, run $try: $cut samples cut short"
    done
    is "$cut" 0 "the default stack copy holds the 300-deep recursion"
else
    skip 5 "perf_event is not permitted here"
fi

done_testing
