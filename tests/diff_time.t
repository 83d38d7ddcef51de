#!/usr/bin/env bash
# diff_time.t - differential output and profiles with sample times, from
# the command line (issue 13):
#   - `-i after --baseline before -o x.folded` writes both counts per
#     line, every stack of either side, the format difffolded.pl writes;
#   - flamegraph.pl draws that file, and sproftop's own differential SVG
#     (`-o x.svg`) colours every frame as flamegraph.pl's does;
#   - formats that cannot show a change refuse --baseline (exit 2);
#   - a live run in batch mode with --baseline writes two counts too;
#   - a pprof file with timestamp_ns labels (tests/ui/timed.pb.gz, made
#     by tests/tools/timedgen from tests/ui/timed.spec) is rebuilt the
#     same from its spec and loads and saves back to the same bytes, and
#     go tool pprof reads its timestamps.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets demo

UI=$TOP/tests/ui
export HOME=$TMPD/home GOCACHE=$TMPD/gocache PPROF_TMPDIR=$TMPD/pprof
mkdir -p "$HOME"
cd "$TMPD" || bail_out "no temporary directory"

printf 'b-1;main;a;b 60\nb-1;main;a;c 40\n' >before.folded
printf 'b-1;main;a;b 30\nb-1;main;a;d 50\nb-1;main;e 20\n' >after.folded

run_sproftop -i after.folded --baseline before.folded -o diff.folded
is "$RC" 0 "folded with a baseline: exit 0"
is "$(sort diff.folded)" "$(printf '%s\n' 'b-1;main;a;b 60 30' \
    'b-1;main;a;c 40 0' 'b-1;main;a;d 0 50' 'b-1;main;e 0 20')" \
    "folded with a baseline: each stack of either side, before then after"

# fills FILE: "name fill" per frame of a flame graph SVG, sorted (the
# first line of each <title>, its name up to " (" for flamegraph.pl's).
fills() {
    perl -0ne 'while (/<title>([^<\n]*?)(?: \([^<\n]*)?(?:\n[^<]*)?<\/title><rect[^>]*fill="([^"]+)"/g) { print "$1 $2\n" }' "$1" |
        sort
}

FG=$(find / -name flamegraph.pl -path '*FlameGraph*' 2>/dev/null | head -n 1)
run_sproftop -i after.folded --baseline before.folded -o diff.svg
is "$RC" 0 "svg with a baseline: exit 0"
check "the differential SVG says so in its title" grep -q 'Differential Flame Graph' diff.svg
if [ -n "$FG" ]; then
    perl "$FG" diff.folded >fg.svg 2>fg.err
    check "flamegraph.pl draws the two-count file" grep -q 'samples' fg.svg
    ours=$(fills diff.svg | grep -v '^all ')
    theirs=$(fills fg.svg | grep -v '^all ')
    is "$ours" "$theirs" "every frame has flamegraph.pl's difference colour"
    like "$ours" 'd rgb\(255,0,0\)' "the frame that grew most is full red"
    like "$ours" 'b rgb\(84,84,255\)' "a frame that shrank is blue"
else
    skip 4 "flamegraph.pl not found (apt-get install ruby-stackprof)"
fi

run_sproftop -i after.folded --baseline before.folded -o x.pb.gz
is "$RC" 2 "pprof with a baseline: a usage error"
assert_one_line_error "pprof with a baseline: one line"
like "$ERRS" 'only as folded or svg' "pprof with a baseline: says which formats"
run_sproftop -i after.folded --baseline missing.folded -o y.folded
is "$RC" 1 "a baseline that cannot be read: exit 1"
like "$ERRS" '--baseline: .*missing\.folded' "and says which file"

# Live, in batch mode: the demo for 2 s against a recorded demo profile.
run_sproftop -F 200 -d 2 -o live.folded --baseline "$UI/demo.folded" -- \
    "$TARGETS/demo" 3
is "$RC" 0 "live batch with a baseline: exit 0"
check "live batch with a baseline: every line has two counts" \
    awk 'NF < 2 || $(NF) !~ /^[0-9]+$/ || $(NF - 1) !~ /^[0-9]+$/ { bad = 1 }
         END { exit bad || NR == 0 }' live.folded
# (summed over its stacks: which of them the 2 s reach is chance)
check "hash_chunk has samples on both sides" \
    awk '/;hash_chunk / { b += $(NF - 1); a += $NF }
         END { exit !(a > 0 && b > 0) }' live.folded

# Times in pprof: the fixture is what timedgen makes of its spec, and a
# load and a save give it back byte for byte.
TIMEDGEN=$TOOLS/timedgen
if [ -x "$TIMEDGEN" ]; then
    "$TIMEDGEN" 1700000000 <"$UI/timed.spec" >timed.pb.gz
    check "timedgen rebuilds tests/ui/timed.pb.gz from its spec" \
        cmp -s timed.pb.gz "$UI/timed.pb.gz"
else
    skip 1 "$TIMEDGEN not built (make targets)"
fi
run_sproftop -i "$UI/timed.pb.gz" -o again.pb.gz
is "$RC" 0 "a timed pprof file loads and saves"
check "timed pprof: load then save gives the same bytes" \
    cmp -s again.pb.gz "$UI/timed.pb.gz"
if command -v go >/dev/null 2>&1 && go tool pprof -h >/dev/null 2>&1; then
    raw=$(go tool pprof -raw "$UI/timed.pb.gz" 2>/dev/null)
    like "$raw" 'timestamp_ns:\[1700000059000000000 nanoseconds\]' \
        "go tool pprof reads the last second's timestamp"
    is "$(printf '%s\n' "$raw" | grep -c 'timestamp_ns:')" \
        "$(grep -vc '^#' "$UI/timed.spec")" \
        "one timed sample per stack and second of the spec"
else
    skip 2 "go tool pprof not installed (apt-get install golang-go)"
fi

done_testing
