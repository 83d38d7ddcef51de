#!/usr/bin/env bash
# diff_formats.t - a baseline in another format than the profile (issue
# 19, item 1).  Frames must pair by what the user sees, their names (and
# file:line where both sides know them), as difffolded.pl pairs folded
# lines; a module or a build-id, which pprof and a live run carry and
# folded files lack, must not keep them apart.
#
# Two runs of the demo (two processes, as a user compares two runs) are
# recorded as pprof, then converted to folded and Sampler files:
#   - batch, every pair of formats: `-i after.A --baseline before.B -o
#     diff.folded` writes each stack once (never once per side), and the
#     hot stack through hash_chunk has samples on both sides.  Sampler
#     files name threads by their ids (Thread_XXXX), which another run
#     never has: their pairs are compared with --no-thread-root;
#   - the TUI on `-i after.pb.gz --baseline before.folded` (the README's
#     example): hash_chunk's row in the flat view has a change of share,
#     not the "+" of a function only the profile has;
#   - live, batch: `-o live.folded --baseline before.folded -- demo`;
#   - live, the TUI in tmux on a running demo with --baseline
#     before.folded: one hash_chunk row in the flat view, on both sides.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets demo
cd "$TMPD" || bail_out "no temporary directory"

# record NAME: sample a new demo until 300 samples, into NAME.pb.gz, then
# convert it to NAME.folded and NAME.sampler.
record() {
    start_target demo 60 || bail_out "cannot start demo"
    sample_until 300 30 -p "$TARGET_PID" -F 300 -o "$1.pb.gz"
    [ "$RC" = 0 ] || { diag_file "$ERR"; bail_out "cannot record $1"; }
    kill_pid "$TARGET_PID"
    "$SPROFTOP" -i "$1.pb.gz" -o "$1.folded" &&
        "$SPROFTOP" -i "$1.pb.gz" -o "$1.sampler" ||
        bail_out "cannot convert $1.pb.gz"
}
record before
record after

# one_line_each FILE: no stack is written twice (two counts per line).
one_line_each() {
    [ -s "$1" ] &&
        [ "$(awk '{ NF -= 2; print }' "$1" | sort | uniq -d | wc -l)" = 0 ]
}
# hot_both FILE: the stack ending in hash_chunk has samples on both sides.
hot_both() {
    awk '$(NF - 2) ~ /;hash_chunk$/ && $(NF - 1) > 0 && $NF > 0 { ok = 1 }
         END { exit !ok }' "$1"
}

for a in pb.gz folded sampler; do
    for b in pb.gz folded sampler; do
        opt=()
        case "$a $b" in *sampler*) opt=(--no-thread-root) ;; esac
        run_sproftop -i "after.$a" --baseline "before.$b" "${opt[@]}" \
            -o "d-$a-$b.folded"
        is "$RC" 0 "-i after.$a --baseline before.$b: exit 0"
        check "$a against $b: every stack on one line" one_line_each "d-$a-$b.folded"
        check "$a against $b: hash_chunk's stack on both sides" hot_both "d-$a-$b.folded" ||
            diag_file "d-$a-$b.folded"
    done
done

# The TUI on the README's example: the flat view's hash_chunk row.
printf '2\n:dump flat.dump\n' >flat.keys
TERM=xterm-256color LINES=24 COLUMNS=100 run_sproftop -i after.pb.gz \
    --baseline before.folded --script flat.keys
is "$RC" 0 "TUI -i after.pb.gz --baseline before.folded: exit 0"
row=$(grep ' hash_chunk' flat.dump 2>/dev/null)
is "$(printf '%s\n' "$row" | grep -c .)" 1 "TUI: one hash_chunk row in the flat view"
# (a change may be 0.0: unsigned)
like "$row" '[-+ ][0-9]+\.[0-9] +[-+ ][0-9]+\.[0-9] +hash_chunk' "TUI: it shows a change of share"
unlike "$row" '\.[0-9] +\+ +' "TUI: ...not marked + (only in the profile)"

# Live, batch mode.
run_sproftop -F 200 -d 2 -o live.folded --baseline before.folded -- \
    "$TARGETS/demo" 3
is "$RC" 0 "live batch with --baseline before.folded: exit 0"
check "live batch: every stack on one line" one_line_each live.folded
check "live batch: hash_chunk's stack on both sides" hot_both live.folded ||
    diag_file live.folded

# Live, the TUI in tmux.
if command -v tmux >/dev/null 2>&1; then
    use_tmux sproftop-diff
    start_target demo 60 || bail_out "cannot start demo"
    "${T[@]}" new-session -d -s live -x 100 -y 30 \
        "'$SPROFTOP' -r 0.3 -p $TARGET_PID --baseline '$TMPD/before.folded' 2>'$TMPD/live.err'"
    wait_until 20 screen_has live "PID $TARGET_PID" || diag "$(screen live)"
    keys live 2
    # hot_row: the flat view's one hash_chunk row, with a change on both
    # sides (not "+" or "-", one side only).  The flat view opens on the
    # tree's function (_start, or another while the first samples come),
    # which may be below the rows with self time on a 30-row screen: g
    # goes to the top first.
    hot_row() {
        local r
        keys live g
        r=$(screen live | grep ' hash_chunk')
        [ "$(printf '%s\n' "$r" | grep -c .)" = 1 ] &&
            printf '%s\n' "$r" | grep -Eq '[-+ ][0-9]+\.[0-9] +[-+ ][0-9]+\.[0-9] +hash_chunk'
    }
    check "live TUI: one hash_chunk row, with its change from before.folded" \
        wait_until 20 hot_row || diag "$(screen live)"
    keys live q
    keys live q
    kill_pid "$TARGET_PID"
else
    skip 1 "tmux not installed"
fi

done_testing
