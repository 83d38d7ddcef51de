#!/usr/bin/env bash
# symbols_keep.t - a big binary's symbols survive the gap between its
# processes (issue 24, item 2).
#
# clang links libLLVM (105 MiB of file on Debian 12) and libclang-cpp
# (56 MiB).  sproftop --children runs clang three times, a second apart:
# each clang has ended, and released its modules, before the next starts.
# The symbol store keeps a module no process holds for the next process
# of its binary (300 s, 256 MiB of files): libLLVM is loaded once for the
# three.  (With 96 MiB of files kept, libLLVM never fitted and was loaded
# for every clang: 3 times here, once a build in a build loop.)
#
# And a binary that comes back further apart than the keep time (a
# build's tools, once a build): symtest --keep loads touch and cat four
# times, each time released and then idle past a keep time of 100 ms;
# each is loaded at most twice: freed past its time once, then kept
# (issue 24: "a binary's module is loaded at most twice"); and when room
# is short, a binary run once in between (perl) is the one it sends
# away.
# About 4 s.
. "$(dirname "$0")/lib.sh"
require_sproftop
SYMTEST=$TOOLS/symtest
[ -x "$SYMTEST" ] || bail_out "no $SYMTEST (make tools)"
KEEP=$(timeout -k 5 60 "$SYMTEST" --keep 100 4 262144 /usr/bin/touch /usr/bin/cat 2>&1)
is "$?" 0 "symtest --keep: exit 0"
note "$KEEP"
like "$(echo "$KEEP" | grep '^symbol loads:')" '^symbol loads: (touch 2, cat 2|cat 2, touch 2)$' \
    "four runs of touch and cat, each past the keep time: each loaded twice"
like "$(echo "$KEEP" | grep '^symbol frees:')" '^symbol frees: 2 idle past their 0.1 s, 0 idle for room' \
    "...freed past their time once each, then kept as binaries that come back"
like "$(echo "$KEEP" | grep '^symbol reuse:')" ' 2 kept now ' "...and kept at the end"
# Room sends a binary run once away before those that came back: the
# same with room for perl (3.7 MiB) and 64 KiB, perl run once in the
# third round: perl goes for room, touch and cat stay (were the oldest
# to go, touch would be loaded a third time in the fourth round).
room=$(( $(stat -Lc %s /usr/bin/perl) / 1024 + 64 ))
KEEP=$(timeout -k 5 60 "$SYMTEST" --keep 100 4 "$room" /usr/bin/touch /usr/bin/cat /usr/bin/perl@3 2>&1)
is "$?" 0 "symtest --keep with room for $room KiB: exit 0"
note "$KEEP"
like "$(echo "$KEEP" | grep '^symbol loads:')" '^symbol loads: (touch 2, cat 2|cat 2, touch 2), perl 1$' \
    "perl run once in between: touch and cat still loaded twice each"
like "$(echo "$KEEP" | grep '^symbol frees:')" '^symbol frees: 2 idle past their 0.1 s, 1 idle for room' \
    "...perl the one sent away for room"
# The clangs need clang and perf_event (--children); the checks above
# need neither, so a machine without them skips these 6 only.
three_clangs() {
    SP_TIMEOUT=60
    printf 'static int twice(int x) { return 2 * x; }\nint f(int x) { return twice(x) + 1; }\n' \
        >"$TMPD/t.c"
    run_sproftop --children -F 999 --stats -o "$TMPD/clang.folded" -- sh -c \
        'for i in 1 2 3; do "$0" -O2 -c "$1" -o "$1.o" || exit 1; sleep 1; done' \
        "$CLANG" "$TMPD/t.c"
    is "$RC" 0 "three clangs under --children: exit 0"
    loads=$(grep '^symbol loads:' "$ERR")
    note "$loads"
    llvm=$(echo "$loads" | grep -o 'libLLVM[^ ,]* [0-9]*' | head -n 1)
    like "$llvm" '^libLLVM' "libLLVM was loaded (its clangs were sampled)"
    cmp_ok "${llvm##* }" '<=' 1 "libLLVM was loaded once for the three clangs ($llvm)"
    like "$(grep '^symbol reuse:' "$ERR")" 'at most 256 MiB, 300 s' \
        "--stats says what is kept, and for how long"
    like "$(grep '^symbol frees:' "$ERR")" '^symbol frees: 0 idle past their 300 s, 0 idle for room' \
        "...and why kept modules went: none here (libLLVM and libclang-cpp fit in 256 MiB)"
    cmp_ok "$(grep -c '^clang[- ]' "$TMPD/clang.folded")" '>' 0 "clang's stacks are in the profile"
}
CLANG=$(command -v clang || true)
if [ -z "$CLANG" ]; then
    skip 6 "no clang here"
elif ! "$SPROFTOP" --version | grep -q '^sampler: auto picks perf'; then
    skip 6 "perf_event_open is not permitted here"
else
    three_clangs
fi

done_testing
