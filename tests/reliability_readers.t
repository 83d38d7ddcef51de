#!/usr/bin/env bash
# reliability_readers.t - crafted profiles through the command line and
# the TUI (issue 11, items 4-9): each is refused with one line, or handled
# at a cost bounded by its size.  The crafted files are built here (a few
# lines of perl encode protobuf); the readers' own unit tests
# (test_pprof, test_profile, test_text, test_callgrind) hold the details.
#   4, 5. pprof memory and CPU bombs (6 million empty strings in 11 KB
#         of gzip; tests/fuzz/regress/pprof/cpu-bomb-4096-lines)
#   6.    a merge whose total passes 2^53
#   7.    a 10,000-character name in the text report
#   8.    the source view on a profile naming a FIFO
#   9.    callgrind output of names made of spaces
. "$(dirname "$0")/lib.sh"
require_sproftop

# pprof FILE NAME SRCFILE [EMPTY]: a one-sample profile of function NAME
# whose source file is SRCFILE, and EMPTY more empty strings in its string
# table.
pprof() {
    perl -e '
        sub v { my $n = shift; my $s = ""; while ($n >= 128) { $s .= chr(($n & 127) | 128); $n >>= 7 } $s . chr($n) }
        sub f { v($_[0] << 3) . v($_[1]) }
        sub b { v($_[0] << 3 | 2) . v(length $_[1]) . $_[1] }
        binmode STDOUT;
        print b(1, f(1, 1) . f(2, 2)),                     # sample_type samples/count
              b(2, f(1, 1) . f(2, 10)),                    # sample: location 1, 10
              b(4, f(1, 1) . b(4, f(1, 1) . f(2, 3))),     # location 1: function 1 line 3
              b(5, f(1, 1) . f(2, 3) . f(4, 4) . f(5, 1)), # function 1: name 3, file 4
              map { b(6, $_) } ("", "samples", "count", $ARGV[0], $ARGV[1]);
        print "\x32\x00" x $ARGV[2];
    ' "$2" "$3" "${4:-0}" >"$1"
}

# --- 4, 5: bombs -------------------------------------------------------------
pprof "$TMPD/memory-bomb-empty-strings.pb" f f.c 6000000
gzip -9 "$TMPD/memory-bomb-empty-strings.pb"
cp "$TOP/tests/fuzz/regress/pprof/cpu-bomb-4096-lines" "$TMPD/cpu-bomb-4096-lines.pb.gz"
for f in memory-bomb-empty-strings cpu-bomb-4096-lines; do
    run_sproftop -i "$TMPD/$f.pb.gz" -o "$TMPD/$f.folded"
    is "$RC" 1 "$f: refused, exit 1"
    assert_one_line_error "$f: one line on stderr"
    check "$f: nothing written" test ! -e "$TMPD/$f.folded"
done
like "$(run_sproftop -i "$TMPD/memory-bomb-empty-strings.pb.gz"; echo "$ERRS")" \
    "too many records: they would take more than [0-9]+ MiB of memory" "memory bomb: says why"
like "$(run_sproftop -i "$TMPD/cpu-bomb-4096-lines.pb.gz"; echo "$ERRS")" \
    "the samples expand to more than [0-9]+ frames" "CPU bomb: says why"

# --- 6: merged totals ------------------------------------------------------------
echo "a;b 9007199254740991" >"$TMPD/max.folded"
run_sproftop -i "$TMPD/max.folded" -i "$TMPD/max.folded" -o "$TMPD/merged.folded"
is "$RC" 1 "merging two files of 2^53 - 1 samples: refused"
is "$ERRS" "sproftop: cannot merge $TMPD/max.folded: the total sample count would reach 2^53" \
    "merge past 2^53: one line naming the file and the limit"
check "merge past 2^53: nothing written" test ! -e "$TMPD/merged.folded"
echo "a;b 9007199254740990" >"$TMPD/almost.folded"
echo "a;b 1" >"$TMPD/one.folded"
run_sproftop -i "$TMPD/almost.folded" -i "$TMPD/one.folded" -o "$TMPD/merged.folded"
is "$RC" 0 "merging up to 2^53 - 1: allowed"
run_sproftop -i "$TMPD/merged.folded" -o "$TMPD/again.folded"
is "$RC" 0 "and sproftop reads its own output back"

# --- 7: a long name in the text report --------------------------------------
long=$(head -c 10000 /dev/zero | tr '\0' x)
for i in $(seq 1 50); do echo "t-1;main;$long;leaf$i 1"; done >"$TMPD/long.folded"
run_sproftop -i "$TMPD/long.folded" -o "$TMPD/long.txt" --hide-self 0 --hide-subs 0
is "$RC" 0 "text report of a 10,000-character name: written"
size=$(stat -c %s "$TMPD/long.txt")
cmp_ok "$size" "<" 200000 "its size follows the input (510 KB), not name x rows ($size bytes)"
is "$(grep -c "$long" "$TMPD/long.txt")" 1 "the node's own row keeps the whole name"

# --- 8: the source view on a FIFO -------------------------------------------------
mkfifo "$TMPD/fifo"
pprof "$TMPD/fifo.pb" fifo_fn "$TMPD/fifo"
printf '2\n5\n:dump %s/src.dump\n' "$TMPD" >"$TMPD/src.keys"
(cd "$TMPD" && env TERM=xterm-256color LINES=24 COLUMNS=100 LC_ALL=C \
    timeout -k 2 15 "$SPROFTOP" -i "$TMPD/fifo.pb" --script "$TMPD/src.keys" \
    </dev/null >"$TMPD/src.out" 2>"$TMPD/src.err")
is "$?" 0 "source view on a profile naming a FIFO: does not block"
like "$(cat "$TMPD/src.dump" 2>/dev/null)" "fifo: not a regular file" "and says the file is not a regular one"

# --- 9: callgrind and blank names ---------------------------------------------------
pprof "$TMPD/blank.pb" "   " "  "
run_sproftop -i "$TMPD/blank.pb" -o "$TMPD/blank.callgrind"
is "$RC" 0 "callgrind of names made of spaces: written"
is "$(grep -cE '^c?(fn|fl|ob|fi|fe)=\([0-9]+\) +$' "$TMPD/blank.callgrind")" 0 \
    "no name definition is blank (callgrind_annotate reads it as a use)"
like "$(cat "$TMPD/blank.callgrind")" "fn=\([0-9]+\) \[unknown\]" "the blank function is written [unknown]"

done_testing
