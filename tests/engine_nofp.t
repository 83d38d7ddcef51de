#!/usr/bin/env bash
# engine_nofp.t - unwinding without frame pointers (-O2
# -fomit-frame-pointer: .eh_frame only) reaches main through all 27
# levels; the same with frame pointers; and a binary with neither frame
# pointers nor unwind tables is survived (samples, clean exit, target fine).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/engine/engine.sh"
require_sproftop
require_targets deep deep_nofp deep_nounwind

levels=$(seq -f 'level%g' 1 27 | tr '\n' ' ')

# check_deep NAME: profile target NAME for 2 s and check its stacks.
check_deep() {
    local name=$1 out total stats withmain full
    profile_target "$name" 2 200
    out=$PROF_OUT total=$PROF_TOTAL
    withmain=$(folded_count_frame "$out" main)
    # main, then level1 .. level27 consecutively, then deep_hot.
    full=$(folded_count_chain "$out" main $levels deep_hot)
    stats=$(awk -v m="$withmain" -v f="$full" -v t="$total" \
        'BEGIN { if (t == 0) t = 1; printf "%.1f %.1f", 100 * m / t, 100 * f / t }')
    read -r pm pf <<<"$stats"
    note "$name: $pm% of stacks reach main, $pf% hold main;level1..level27;deep_hot"
    cmp_ok "$pm" '>=' 90 "$name: >= 90% of the stacks reach main"
    cmp_ok "$pf" '>=' 90 "$name: >= 90% hold main;level1;...;level27;deep_hot in order"
    kill_pid "$PROF_PID"
}

check_deep deep_nofp
check_deep deep

# No frame pointers, no .eh_frame/.debug_frame for the target's code: the
# unwinder cannot get past deep_hot soundly.  It must stop (truncated or
# short stacks are fine), not crash, hang or leave the target stopped.
profile_target deep_nounwind 2 200
out=$PROF_OUT
cmp_ok "$(folded_count_frame "$out" deep_hot)" '>' 0 "deep_nounwind: the leaf deep_hot is still named"
check "deep_nounwind: folded lines are well formed" folded_well_formed "$out"

done_testing
