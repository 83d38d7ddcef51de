# tests/engine/engine.sh - what tests/engine_*.t share.
#
# Sourced after tests/lib.sh.  It adds profile_target, the run every
# "profile this known program and look at its stacks" test starts with.

# profile_target NAME SECONDS FREQ: start target NAME, profile it with -p
# for SECONDS at FREQ Hz into $TMPD/NAME.folded, and check what any such
# run must give: sproftop exits 0, the target is left running and
# untraced, samples were taken.  Sets PROF_PID, PROF_OUT and PROF_TOTAL;
# bails out when the target cannot start.
profile_target() {
    local name=$1 secs=$2 freq=$3
    start_target "$name" || bail_out "cannot start $name"
    PROF_PID=$TARGET_PID
    PROF_OUT=$TMPD/$name.folded
    run_sproftop -p "$PROF_PID" -d "$secs" -F "$freq" -o "$PROF_OUT"
    is "$RC" 0 "$name: sproftop -p PID -d $secs -F $freq -o FILE exits 0"
    [ "$RC" = 0 ] || diag_file "$ERR"
    assert_not_stopped "$PROF_PID" "$name: running and untraced afterwards"
    PROF_TOTAL=$(folded_total "$PROF_OUT")
    cmp_ok "$PROF_TOTAL" '>' 0 "$name: samples collected ($PROF_TOTAL)"
}
