#!/usr/bin/env bash
# formats_racket.t - Racket's JSON profile (issue 28), checked by Racket:
#   - written by sproftop (-f racket-json, .racket.json), read by Debian's
#     racket: json->profile, then its text renderer with both thresholds
#     at 0 (tests/formats/racket_render.rkt), prints exactly sproftop's
#     own `-f text --hide-self 0 --hide-subs 0` report of the same
#     profile (less the two header lines Racket has no data for: the
#     command and the wall-clock duration), on FORMATS.md's example (also
#     Racket's golden output) and on a live profile of several threads
#     and a 300-deep recursion;
#   - read back by sproftop: the call graph's text report is Racket's,
#     written again it is the same bytes, dot takes it, the stack formats
#     and merges refuse it with the one line, and a file made by Racket's
#     own profiler loads;
#   - bad input (edges out of range or one-sided, huge numbers, deep
#     nesting, a broken "*" node) is one line and exit 1; dense cycles
#     are a call graph's right (recursion) and load.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets threads recurse
command -v racket >/dev/null 2>&1 ||
    skip_all "racket not installed (apt-get install racket; make deps)"

RENDER=$TOP/tests/formats/racket_render.rkt
GOLDEN_PB=$TOP/tests/formats/example.pb.gz
MADE_BY_RACKET=$TOP/tests/fuzz/corpus/racket/made-by-racket.json

# racket_text JSON OUT: Racket's own report of JSON into OUT.
racket_text() {
    timeout -k 5 60 racket "$RENDER" "$1" >"$2" 2>"$2.err"
}

# sproftop_text IN OUT: sproftop's report of IN, without the header lines
# that are sproftop's own (not in Racket's report).
sproftop_text() {
    "$SPROFTOP" -i "$1" -o - -f text --hide-self 0 --hide-subs 0 2>"$2.err" |
        grep -v -e '^  Command:  ' -e '^  Wall-clock duration: ' >"$2"
}

# same NAME IN: Racket's report of IN's Racket JSON equals sproftop's of IN.
same() {
    local name=$1 in=$2
    run_sproftop -i "$in" -o "$TMPD/$name.racket.json"
    is "$RC:$ERRS" "0:" "$name: sproftop writes $name.racket.json"
    racket_text "$TMPD/$name.racket.json" "$TMPD/$name.racket.txt"
    ok $? "$name: racket's json->profile and render read it" ||
        diag_file "$TMPD/$name.racket.txt.err"
    sproftop_text "$in" "$TMPD/$name.sproftop.txt"
    if diff -u "$TMPD/$name.sproftop.txt" "$TMPD/$name.racket.txt" >"$TMPD/$name.diff"; then
        ok 0 "$name: Racket prints sproftop's own text report"
    else
        ok 1 "$name: Racket prints sproftop's own text report"
        diag "$(head -n 40 "$TMPD/$name.diff")"
    fi
}

# --- FORMATS.md's example ----------------------------------------------------
same example "$GOLDEN_PB"
is "$(cat "$TMPD/example.racket.txt")" "$(cat "$TOP/tests/unit/data/racket-text.expected")" \
    "example: ...which is Racket 8.7's golden report (shared/formats/racket-text.expected)"

# --- a live profile: several threads, and recursion ----------------------------
start_target threads 3 || bail_out "cannot start threads"
tpid=$TARGET_PID
start_target recurse || bail_out "cannot start recurse"
rpid=$TARGET_PID
sample_until 150 60 -p "$tpid" -F 100 -o "$TMPD/threads.pb.gz"
is "$RC" 0 "a live run of threads (3 workers) to pprof"
sample_until 100 60 -p "$rpid" -F 100 -o "$TMPD/recurse.pb.gz"
is "$RC" 0 "a live run of recurse (300 deep) to pprof"
kill_pid "$tpid"
kill_pid "$rpid"
run_sproftop -i "$TMPD/threads.pb.gz" -i "$TMPD/recurse.pb.gz" -o "$TMPD/live.pb.gz"
is "$RC" 0 "both in one profile"
same live "$TMPD/live.pb.gz"
like "$(cat "$TMPD/live.racket.txt")" 'Threads observed: +[4-9]' \
    "live: several threads observed ($(grep -o 'Threads observed: *[0-9]*' "$TMPD/live.racket.txt"))"
like "$(cat "$TMPD/live.racket.txt")" $'\n +recurse \\[[0-9]+\\] +[0-9.]+%\n\\[[0-9]+\\] .* recurse ' \
    "live: recurse is its own caller (the recursion is in the graph)"

# --- read back by sproftop --------------------------------------------------------
RJ=$TMPD/live.racket.json
run_sproftop -i "$RJ" -o - -f text --hide-self 0 --hide-subs 0
is "$RC" 0 "-i live.racket.json -f text exits 0"
is "$OUTS" "$(cat "$TMPD/live.racket.txt")" \
    "the call graph read back gives Racket's report again, header included"
run_sproftop -i "$RJ" -o "$TMPD/again.racket.json"
check "written again, the same Racket JSON bytes" cmp "$RJ" "$TMPD/again.racket.json"
run_sproftop -i "$RJ" -o "$TMPD/live.dot"
is "$RC" 0 "-i live.racket.json -o live.dot exits 0"
if command -v dot >/dev/null 2>&1; then
    dot -Tsvg "$TMPD/live.dot" >"$TMPD/live.svg" 2>"$TMPD/dot.err"
    ok $? "dot -Tsvg draws it" || diag_file "$TMPD/dot.err"
else
    skip 1 "graphviz not installed"
fi
LINE="this file holds a call graph, not stacks"
for pair in folded:x.folded pprof:x.pb.gz speedscope:x.speedscope.json svg:x.svg; do
    fmt=${pair%%:*} out=${pair#*:}
    run_sproftop -i "$RJ" -o "$TMPD/$out"
    is "$RC:$ERRS" "1:sproftop: cannot write $TMPD/$out as $fmt: $LINE (write it as text, racket-json, dot)" \
        "$out, a stack format, is refused with the one line"
    check "...and nothing is written to $out" test ! -e "$TMPD/$out"
done
run_sproftop -i "$RJ" -i "$TMPD/live.pb.gz" -o "$TMPD/m.txt"
is "$RC:$ERRS" "1:sproftop: cannot merge $TMPD/live.pb.gz: $LINE" \
    "a call graph does not merge with stacks: one line"
run_sproftop -i "$TMPD/live.pb.gz" --baseline "$RJ" -o "$TMPD/d.folded"
is "$RC:$ERRS" "1:sproftop: --baseline: $RJ: $LINE" "nor serves as a baseline"
run_sproftop -i "$MADE_BY_RACKET" -o - -f text --hide-self 0 --hide-subs 0
is "$RC" 0 "a file made by Racket's own profiler (profile->json) loads"
like "$OUTS" $'\n\\[[0-9]+\\] .* fib .*\n' "...with its functions (fib)"

# --- bad input ---------------------------------------------------------------------------
bad() {
    local name=$1 want=$2
    run_sproftop -i "$TOP/tests/fuzz/regress/racket/$name" -o "$TMPD/bad.txt" -f text
    is "$RC" 1 "$name: exit 1"
    is "$ERRS" "sproftop: $TOP/tests/fuzz/regress/racket/$name: $want" "$name: one line saying why"
}
bad edge-callee-out-of-range "node 1: an edge's caller or callee is not one of the 6 nodes"
bad edge-times-disagree "node 2: the edge from node 1 has other times in its callees list"
bad caller-edge-without-any-callee-edge "node 1: the edge from node 1 is not once in that node's callees"
bad huge-total "node 1: total and self are not times in range, self at most total"
bad deep-nesting "byte 110: nested too deep"
bad star-node-missing 'node 0 is not the "*" node (id and src false)'
run_sproftop -i "$TOP/tests/fuzz/regress/racket/dense-cycles-with-self-loops" -o "$TMPD/cyc.txt" -f text
is "$RC:$ERRS" "0:" "dense cycles with self loops (every function calls every other) load and print"
is "$(grep -cE '^ *\[[0-9]+\] ' "$TMPD/cyc.txt")" 40 "...all 40 functions"

done_testing
