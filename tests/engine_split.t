#!/usr/bin/env bash
# engine_split.t - measured shares match a known 60/30/10 split of work,
# the folded output is well formed, and the text report names the hot path.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets split

start_target split || bail_out "cannot start split"
pid=$TARGET_PID
out=$TMPD/split.folded

# Until split was stopped 2500 times (a sample each), however long that
# takes on a loaded machine (at most 60 s), then SIGINT.
sample_until 2500 60 -p "$pid" -F 1000 -o "$out"
is "$RC" 0 "sproftop -p PID -F 1000 -o FILE, ended by SIGINT after $STOPS stops, exits 0"
[ "$RC" = 0 ] || diag_file "$ERR"
check "the folded file exists" test -s "$out"
check "folded lines are 'frames COUNT'" folded_well_formed "$out"
assert_not_stopped "$pid" "split running and untraced afterwards"

total=$(folded_total "$out")
cmp_ok "$total" '>=' 2000 "at least 2000 samples from $STOPS stops (got $total)"

# The only thread is the main one: every stack starts with "split-PID".
roots=$(folded_roots "$out")
is "$roots" "split-$pid" "every stack is rooted at the thread frame split-$pid"

a=$(folded_count_frame "$out" func_a)
b=$(folded_count_frame "$out" func_b)
c=$(folded_count_frame "$out" func_c)
pct() { awk -v n="$1" -v t="$total" 'BEGIN { if (t > 0) printf "%.1f", 100 * n / t; else print -1 }'; }
pa=$(pct "$a"); pb=$(pct "$b"); pc=$(pct "$c")
note "shares: func_a $pa%, func_b $pb%, func_c $pc% of $total samples"
cmp_ok "$pa" '>=' 55 "func_a share $pa% >= 55"
cmp_ok "$pa" '<=' 65 "func_a share $pa% <= 65"
cmp_ok "$pb" '>=' 25 "func_b share $pb% >= 25"
cmp_ok "$pb" '<=' 35 "func_b share $pb% <= 35"
cmp_ok "$pc" '>=' 5 "func_c share $pc% >= 5"
cmp_ok "$pc" '<=' 15 "func_c share $pc% <= 15"

# The call chain is whole: main -> func_a -> work_unit, below _start.
chain=$(folded_count_chain "$out" main func_a work_unit)
cmp_ok "$chain" '>' 0 "stacks show main;func_a;work_unit in order"
wu=$(folded_count_frame "$out" work_unit)
cmp_ok "$(pct "$wu")" '>=' 90 "work_unit is in >= 90% of the stacks"
is "$(folded_count_broken "$out" work_unit _start 2>"$TMPD/broken.txt")" 0 \
    "every stack through work_unit is unwound whole (from _start)"
[ -s "$TMPD/broken.txt" ] && diag_file "$TMPD/broken.txt"
withmain=$(folded_count_frame "$out" main)
cmp_ok "$(pct "$withmain")" '>=' 90 "stacks reach main (>= 90%)"

# Without -o and with stdout not a terminal: a text report on stdout.
run_sproftop -p "$pid" -d 1
is "$RC" 0 "text report run exits 0"
like "$OUTS" 'work_unit' "the text report names work_unit"
like "$OUTS" 'func_a' "the text report names func_a"
assert_not_stopped "$pid" "split running and untraced after the report run"

done_testing
