#!/usr/bin/env bash
# cli_merge.t - `-i` given several times merges the profiles (as pprof and
# Racket's profile-merge do): threads with the same name become one, the
# others are kept; stacks add up.
. "$(dirname "$0")/lib.sh"
require_sproftop

a=$TMPD/a.folded b=$TMPD/b.folded out=$TMPD/merged.folded
printf 'main-100;main;a;b 3\nmain-100;main;a;c 1\nworker-101;main;d 2\n' >"$a"
printf 'main-200;main;a;b 4\nio-201;main;poll 5\n' >"$b"

run_sproftop -i "$a" -i "$b" -o "$out"
is "$RC" 0 "sproftop -i A -i B -o OUT exits 0"
check "the merged file is well formed" folded_well_formed "$out"
is "$(folded_total "$out")" 15 "all 15 samples are kept"
# threads named "main" in both files are one thread (its tid from A)
is "$(grep -c '^main-' "$out" | tr -d ' ')" 2 "one main thread: its 2 distinct stacks"
is "$(awk '$1 ~ /^main-[0-9]+;main;a;b$/ {print $2}' "$out")" 7 "main;a;b adds up across files (3 + 4)"
is "$(awk '$1 ~ /^io-[0-9]+;main;poll$/ {print $2}' "$out")" 5 "B's io thread is kept"
is "$(awk '$1 ~ /^worker-[0-9]+;main;d$/ {print $2}' "$out")" 2 "A's worker thread is kept"

# the order of the files does not change the sums
run_sproftop -i "$b" -i "$a" -o "$TMPD/merged2.folded"
is "$(folded_total "$TMPD/merged2.folded")" 15 "B then A: same total"

# a bad file among them: one line naming it, non-zero exit, nothing written
printf 'garbage without a count\n' >"$TMPD/bad.folded"
run_sproftop -i "$a" -i "$TMPD/bad.folded" -o "$TMPD/never.folded"
isnt "$RC" 0 "a bad file among the inputs fails"
is "$(wc -l <"$ERR" | tr -d ' ')" 1 "with one line on stderr"
like "$(cat "$ERR")" 'bad\.folded' "naming the bad file"
check "and writes nothing" test ! -e "$TMPD/never.folded"
done_testing
