#!/usr/bin/env bash
# reliability_exec.t - exec under sampling (PTRACE.md, trap 5): the new
# image is sampled with its own symbols, sproftop exits with its status,
# and nothing is left stopped.
#
#   1. sproftop -- bash -c 'sleep .3; exec threads 2 1': the workers of
#      the new image are named (spin_worker_0, spin_worker_1, whole stacks
#      from __clone3), exit 0; the same exec of `split 1 3` gives 3.
#   2. exec from a NON-leader thread (exec_thread: its second thread
#      execs split while two other threads spin; the kernel kills them and
#      the caller takes over the PID):
#      - launched: sproftop exits with split's status (3) and has samples
#        of both images, split's unwound whole from _start;
#      - attached (-p) for 3 s, the exec 0.5 s after the attach: sproftop
#        exits 0, both images are sampled, the process is then running
#        split, not stopped, untraced, and exits 0 at its end.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/reliability/rel.sh"
require_sproftop
require_targets threads split exec_thread

SP_TIMEOUT=40

# --- 1. exec from bash -------------------------------------------------------
out=$TMPD/bash-threads.folded
run_sproftop -F 1000 -o "$out" -- bash -c "sleep .3; exec '$TARGETS/threads' 2 1"
is "$RC" 0 "bash -c 'sleep .3; exec threads 2 1': exit 0"
[ "$RC" = 0 ] || diag_file "$ERR"
cmp_ok "$(folded_count_frame "$out" spin_worker_0)" '>' 0 "after exec: spin_worker_0 of the new image is named"
cmp_ok "$(folded_count_frame "$out" spin_worker_1)" '>' 0 "after exec: spin_worker_1 of the new image is named"
cmp_ok "$(folded_count_chain "$out" worker_main spin_worker_0)" '>' 0 \
    "after exec: worker_main;spin_worker_0 chains are unwound"
is "$(folded_count_broken "$out" spin_worker_0 __clone3 2>"$TMPD/broken1.txt")" 0 \
    "after exec: every spin_worker_0 stack is whole (from __clone3)"
[ -s "$TMPD/broken1.txt" ] && diag_file "$TMPD/broken1.txt"

run_sproftop -F 1000 -o "$TMPD/bash-split.folded" -- bash -c "sleep .3; exec '$TARGETS/split' 1 3"
is "$RC" 3 "bash -c 'sleep .3; exec split 1 3': sproftop exits with the new image's status 3"
cmp_ok "$(folded_count_chain "$TMPD/bash-split.folded" main func_a work_unit)" '>' 0 \
    "after exec: split's main;func_a;work_unit sampled"

# --- 2. exec from a non-leader thread -----------------------------------------
# With the default backend, then with ptrace pinned: its maps are read
# at the exec event, before ld.so maps libc (issue 11, item 12).
for sampler in auto ptrace; do
    out=$TMPD/nonleader-$sampler.folded
    SPROFTOP_SAMPLER=$sampler run_sproftop -F 1000 -o "$out" --stats -- \
        "$TARGETS/exec_thread" 0.5 "$TARGETS/split" 1 3
    is "$RC" 3 "$sampler: launched exec_thread -> split 1 3: sproftop exits with split's status 3"
    [ "$RC" = 3 ] || diag_file "$ERR"
    before=$(( $(folded_count_frame "$out" spin_before_exec) + $(folded_count_frame "$out" main_spin) \
        + $(folded_count_frame "$out" caller_spin) ))
    cmp_ok "$before" '>' 0 "$sampler: the image before the exec was sampled ($before)"
    # perf: the exec makes a new image for the collector; the thread the
    # exec ends (exec-spin) ran only the old one, and every sample of it
    # is named, the last ones too (still in the buffer at the exec).
    # (ptrace may catch the exec'ing thread itself mid-exec, unwound by
    # neither image.)
    if [ "$sampler" = auto ]; then
        unnamed=$(grep -E '^exec-spin-' "$out" | grep -c '\[unknown\]')
        is "$unnamed" 0 "$sampler: every stack of the thread the exec ended is named"
    fi
    cmp_ok "$(folded_count_chain "$out" main func_a work_unit)" '>' 0 \
        "$sampler: the image after a non-leader exec is sampled with its symbols (main;func_a;work_unit)"
    is "$(folded_count_broken "$out" work_unit _start 2>"$TMPD/broken2.txt")" 0 \
        "$sampler: after a non-leader exec: every work_unit stack is whole (from _start)"
    [ -s "$TMPD/broken2.txt" ] && diag_file "$TMPD/broken2.txt"
done

# Attached first, then the exec (exec_thread waits for the go file).
start_target exec_thread "@$TMPD/go" "$TARGETS/split" 4 || bail_out "cannot start exec_thread"
pid=$TARGET_PID
split_bin=$(readlink -f "$TARGETS/split")
spawn_sproftop attached -p "$pid" -F 1000 -d 3 -o "$TMPD/attached.folded" \
    || bail_out "sproftop did not start"
wait_until 15 traced_by_sproftop "$pid" || diag "sproftop did not attach"
sleep 0.5
touch "$TMPD/go"
wait_sproftop
is "$SP_RC" 0 "-p across a non-leader exec: sproftop exits 0"
[ "$SP_RC" = 0 ] || diag_file "$TMPD/attached.err"
cmp_ok "$(folded_count_chain "$TMPD/attached.folded" main func_a work_unit)" '>' 0 \
    "-p: split is sampled after the exec, with its symbols"
cmp_ok "$(folded_count_frame "$TMPD/attached.folded" caller_spin)" '>' 0 \
    "-p: exec_thread's caller thread was sampled before the exec"
if _exe_is "$pid" "$split_bin"; then
    ok 0 "-p: the process runs split now"
    wait_until 5 threads_clean "$pid"
    assert_not_stopped "$pid" "-p: after sproftop, split is not stopped and untraced"
else
    ok 1 "-p: the process runs split now (exe: $(readlink "/proc/$pid/exe" 2>/dev/null))"
    skip 1 "not running split"
fi
if wait_exit "$pid" 15; then
    is "$EXIT_RC" 0 "-p: split exits 0 at its end"
else
    ok 1 "-p: split exits within 15 s"
fi

done_testing
