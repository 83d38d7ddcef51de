#!/usr/bin/env bash
# reliability_dlopen.t - dlopen and dlclose under sampling (PTRACE.md,
# trap 9): code is named after the library mapped at its address now, not
# the one mapped there before.
#
# dlswap runs a_spin from libA.so for 1.5 s (called from run_phase_a),
# dlcloses it, dlopens libB.so - a twin of libA, which the loader usually
# maps at A's old address - and runs b_spin for 1.5 s (from run_phase_b).
# It writes both load addresses to a file; when they differ the test says
# so (it still checks the names).  Under a 1 kHz sproftop, launched, and
# attached with -p during A's phase (which lasts until the test has seen
# sproftop attach):
#   - both a_spin and b_spin are sampled, each under its own caller;
#   - B's code is never named as A's: no run_phase_b;a_spin stack (nor
#     run_phase_a;b_spin), and at least 90% of the stacks through
#     run_phase_b go on to b_spin (not [unknown] or a stale name).
# A third run gives dlswap 30,000 extra mappings: reading its maps then
# takes tens of ms, so the ptrace backend (pinned for it) polls them
# seconds apart, and only its check of each library's identity (issue 11,
# item 13) tells B from A.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/reliability/rel.sh"
require_sproftop
require_targets dlswap libA.so libB.so

SP_TIMEOUT=90
# Each phase of dlswap goes on until it has run this much CPU time
# (bounded): its on-CPU samples follow CPU time, and shares over a fixed
# 1.5 s would rest on whatever CPU a loaded machine allowed.
MIN_CPU=0.5

# check_swap DESC FOLDED BASEFILE: the checks above on one run's output.
check_swap() {
    local desc=$1 out=$2 bases=$3 a b pa pb via_b
    a=$(sed -n 's/^A //p' "$bases")
    b=$(sed -n 's/^B //p' "$bases")
    if [ -n "$a" ] && [ "$a" = "$b" ]; then
        note "$desc: libB.so was loaded at libA.so's old address $a"
    else
        note "$desc: libA.so at ${a:-?}, libB.so at ${b:-?}: not the same address this time"
    fi
    pa=$(folded_count_chain "$out" run_phase_a a_spin)
    pb=$(folded_count_chain "$out" run_phase_b b_spin)
    cmp_ok "$pa" '>' 0 "$desc: A's code is named a_spin under run_phase_a ($pa)"
    cmp_ok "$pb" '>' 0 "$desc: B's code is named b_spin under run_phase_b ($pb)"
    # sproftop checks that each library a stack runs through is still the
    # file its maps name (issue 11, item 13), and drops the stacks of the
    # batch in which it finds one replaced, so none should carry A's name
    # (3% was the bound when only the maps poll told them apart; kept).
    stale=$(folded_count_chain "$out" run_phase_b a_spin)
    cmp_ok "$(awk -v s="$stale" -v b="$pb" 'BEGIN { printf "%.1f", (s + b) ? 100 * s / (s + b) : 0 }')" '<=' 3 \
        "$desc: B's code is named a_spin in at most 3% of its samples ($stale)"
    is "$(folded_count_chain "$out" run_phase_a b_spin)" 0 "$desc: A's code is never named b_spin"
    via_b=$(folded_count_frame "$out" run_phase_b)
    cmp_ok "$(awk -v a="$pb" -v b="$via_b" 'BEGIN { printf "%.1f", b ? 100 * a / b : 0 }')" '>=' 90 \
        "$desc: >= 90% of the stacks through run_phase_b reach b_spin ($pb of $via_b)" \
        || grep -F 'run_phase_b' "$out" | grep -Fv 'run_phase_b;b_spin' | head -n 3 | while IFS= read -r l; do diag "  $l"; done
}

# Launched: sproftop sees the whole life of both libraries.
bases=$TMPD/bases-launch
DLSWAP_MIN_CPU=$MIN_CPU run_sproftop -F 1000 -o "$TMPD/launch.folded" -- "$TARGETS/dlswap" 1.5 1.5 "$bases"
is "$RC" 0 "launched dlswap: sproftop exits with its status 0"
[ "$RC" = 0 ] || diag_file "$ERR"
check_swap "launched" "$TMPD/launch.folded" "$bases"

# Launched, with a /proc/PID/maps too long to poll often.
bases=$TMPD/bases-many
SPROFTOP_SAMPLER=ptrace DLSWAP_MAPPINGS=30000 DLSWAP_MIN_CPU=$MIN_CPU run_sproftop -F 1000 -o "$TMPD/many.folded" -- "$TARGETS/dlswap" 1.5 1.5 "$bases"
is "$RC" 0 "ptrace, launched dlswap with 30,000 mappings: exit 0"
[ "$RC" = 0 ] || diag_file "$ERR"
check_swap "30,000 mappings" "$TMPD/many.folded" "$bases"

# Attached while A runs (dlswap stays in phase A until the go file
# exists): A's symbols are loaded before B replaces it.
bases=$TMPD/bases-attach
DLSWAP_MIN_CPU=$MIN_CPU start_target dlswap 0.5 1.5 "$bases" "$TMPD/go" ||
    bail_out "cannot start dlswap"
pid=$TARGET_PID
spawn_sproftop attach -p "$pid" -F 1000 -o "$TMPD/attach.folded" -d 80 \
    || bail_out "sproftop did not start"
wait_until 15 traced_by_sproftop "$pid" || diag "sproftop did not attach"
sleep 0.8
touch "$TMPD/go"
if wait_exit "$pid" 70; then
    is "$EXIT_RC" 0 "-p dlswap: dlswap exits 0"
else
    ok 1 "-p dlswap: dlswap ends within 70 s"
fi
wait_sproftop
is "$SP_RC" 0 "-p dlswap: sproftop exits 0 when dlswap ends"
[ "$SP_RC" = 0 ] || diag_file "$TMPD/attach.err"
check_swap "-p" "$TMPD/attach.folded" "$bases"

done_testing
