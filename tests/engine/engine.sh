# tests/engine/engine.sh - what tests/engine_*.t share.
#
# Sourced after tests/lib.sh.  It adds profile_target, the run every
# "profile this known program and look at its stacks" test starts with.

# profile_target NAME SECONDS FREQ: start target NAME, profile it with -p
# at FREQ Hz into $TMPD/NAME.folded until it was sampled SECONDS x FREQ /
# 2 times (sample_until: at most 60 s on a loaded machine), and check what
# any such run must give: sproftop exits 0, the target is left running
# and untraced, samples were taken.  Sets PROF_PID, PROF_OUT and
# PROF_TOTAL; bails out when the target cannot start.
profile_target() {
    local name=$1 secs=$2 freq=$3 want
    start_target "$name" || bail_out "cannot start $name"
    PROF_PID=$TARGET_PID
    PROF_OUT=$TMPD/$name.folded
    want=$(awk -v s="$secs" -v f="$freq" 'BEGIN { printf "%d", s * f / 2 }')
    sample_until "$want" 60 -p "$PROF_PID" -F "$freq" -o "$PROF_OUT"
    is "$RC" 0 "$name: sproftop -p PID -F $freq -o FILE ($STOPS stops) exits 0"
    [ "$RC" = 0 ] || diag_file "$ERR"
    assert_not_stopped "$PROF_PID" "$name: running and untraced afterwards"
    PROF_TOTAL=$(folded_total "$PROF_OUT")
    cmp_ok "$PROF_TOTAL" '>' 0 "$name: samples collected ($PROF_TOTAL)"
}
