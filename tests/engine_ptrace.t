#!/usr/bin/env bash
# engine_ptrace.t - the engine's end-to-end tests again, on the ptrace
# backend.
#
# make test runs every tests/*.t with the default sampler, `auto`, which
# is the perf_event backend wherever the kernel permits it (as root here).
# This file runs the backend-neutral engine tests once more with
# SPROFTOP_SAMPLER=ptrace, so both backends pass the same checks: the
# 60/30/10 shares, -O2 -fomit-frame-pointer stacks reaching main, the
# 300-deep recursion, C++ names, named and late threads, the launch mode's
# exit status, blocked threads (on-CPU and --idle), exec from a non-leader
# thread, dlopen/dlclose, 1,000 thread creations a second (a 10 s churn
# instead of 20 s) and kill -STOP.  The ptrace-only traps (EINTR restarts,
# signal re-injection, zombie leader and vfork parent, bad unwind data)
# are pinned to ptrace in their own files.  One TAP test per file: it
# passes when that file passes, and its failures are shown.
. "$(dirname "$0")/lib.sh"
require_sproftop

TESTS="engine_split engine_nofp engine_recurse engine_cxx engine_threads
       engine_launch engine_sleeper reliability_exec reliability_dlopen
       reliability_churn reliability_groupstop"

plan $(( $(echo $TESTS | wc -w) + 1 ))

# The variable reaches sproftop and selects the backend.
require_targets split
start_target split || bail_out "cannot start split"
SPROFTOP_SAMPLER=ptrace run_sproftop -p "$TARGET_PID" -d 0.3 --stats -o "$TMPD/probe.folded"
is "$(stats_sampler "$ERR")" ptrace "SPROFTOP_SAMPLER=ptrace runs the ptrace backend"
kill_pid "$TARGET_PID"

for t in $TESTS; do
    out=$TMPD/$t.tap
    SPROFTOP_SAMPLER=ptrace REL_CHURN_S=10 bash "$TOP/tests/$t.t" >"$out" 2>&1
    rc=$?
    if ok "$rc" "$t.t on the ptrace backend"; then :; else
        diag "  exit status $rc; its failures:"
        diag "$(grep -E '^not ok|^# +(Failed|got|expected|  )' "$out" | grep -v '# TODO' | head -n 20)"
    fi
done

done_testing
