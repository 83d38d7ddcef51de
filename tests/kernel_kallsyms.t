#!/usr/bin/env bash
# kernel_kallsyms.t - odd kernel symbols never crash or hang sproftop
# (issue 21, item 7).  SPROFTOP_KALLSYMS names the file sproftop reads
# instead of /proc/kallsyms; readzero's read() loop gives kernel stacks.
#
#   1. addresses outside every symbol (a table with one symbol): frames
#      read [kernel]+0x..., and --stats counts them;
#   2. garbage (random bytes, NULs), and a file that cannot be read: the
#      same, bad lines counted, "unreadable" said;
#   3. a module loaded and unloaded while sampling: the file changes from
#      a table without read_zero to one where read_zero is a module's
#      function, and back; each is put in place once sproftop has read
#      the one before (its access time says so), and the profile holds the
#      unnamed frames of the first and last phase and the module's named
#      ones of the middle, three tables read.
# (The all-zero table of kptr_restrict is in kernel_refusal.t.)
# About 10 s.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/reliability/rel.sh"
require_sproftop
require_targets readzero

[ "$(id -u)" = 0 ] || skip_all "needs root (kernel samples)"
"$SPROFTOP" --version | grep -q '^kernel frames on' ||
    skip_all "no kernel frames here: $("$SPROFTOP" --version | tail -n 1)"

SP_TIMEOUT=40
start_target readzero || bail_out "cannot start readzero"
rz=$TARGET_PID

# odd NAME FILE: sample readzero for 1 s with FILE as kallsyms.
odd() {
    SPROFTOP_KALLSYMS=$2 run_sproftop --sampler perf -p "$rz" -d 1 --stats \
        -o "$TMPD/$1.folded"
    is "$RC" 0 "$1: exit 0"
    cmp_ok "$(folded_count_substr "$TMPD/$1.folded" '[kernel]+0xffff')" '>' 0 \
        "$1: kernel frames read [kernel]+0x..."
    like "$(grep '^kernel:' "$ERR")" '[1-9][0-9]* samples with an address outside every symbol' \
        "$1: --stats counts the samples with unnamed kernel frames"
    folded_well_formed "$TMPD/$1.folded"
    ok $? "$1: the profile is well formed"
}

# --- 1. outside every symbol ---------------------------------------------------
printf 'ffffffff81000000 T _text\n' >"$TMPD/one"
odd outside "$TMPD/one"
like "$(grep '^kallsyms:' "$ERR")" '^kallsyms: 1 symbols, 0 modules, [0-9]+ lookups, [1-9][0-9]* outside every symbol' \
    "outside: --stats: lookups outside every symbol"

# --- 2. garbage, and nothing to read ----------------------------------------------
head -c 300000 /dev/urandom >"$TMPD/garbage"
odd garbage "$TMPD/garbage"
like "$(grep '^kallsyms:' "$ERR")" ' [1-9][0-9]* bad lines' "garbage: --stats counts the bad lines"
odd missing "$TMPD/no-such-file"
like "$(grep '^kallsyms:' "$ERR")" 'unreadable' "missing: --stats says it cannot be read"

# --- 3. a module comes and goes -------------------------------------------------------
# A: the kernel without read_zero (its lines dropped, and those after it up
# to 64 KiB, so no symbol below claims it); B: read_zero a module's.
rzaddr=$(awk '$3 == "read_zero" { print $1; exit }' /proc/kallsyms)
if [ -z "$rzaddr" ]; then
    skip 6 "no read_zero in /proc/kallsyms"
else
    awk -v a="$rzaddr" '
        function hex(s,   i, v) { v = 0; for (i = 1; i <= length(s); i++)
                                    v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
                                  return v }
        BEGIN { lo = hex(a) - 65536; hi = hex(a) + 65536 }
        { x = hex($1); if (x < lo || x > hi) print }' /proc/kallsyms >"$TMPD/A"
    awk -v a="$rzaddr" '$1 == a && $3 == "read_zero" { print $0 "\t[zeromod]"; next } { print }' \
        /proc/kallsyms >"$TMPD/B"
    # put FILE in place as ks, its times in the past: reading it moves
    # its access time past its modification time
    place() { cp "$1" "$TMPD/ks.new" && touch -d '1 minute ago' "$TMPD/ks.new" &&
              mv "$TMPD/ks.new" "$TMPD/ks"; }
    read_since() { [ "$(stat -c %X "$TMPD/ks")" -gt "$(stat -c %Y "$TMPD/ks")" ]; }
    place "$TMPD/A"
    SPROFTOP_KALLSYMS=$TMPD/ks spawn_sproftop mod --sampler perf -p "$rz" -d 30 --stats \
        -o "$TMPD/mod.pb.gz" || bail_out "sproftop did not start"
    # The file is read at the start (are the addresses hidden?), as the
    # collector starts (the table), and then once a second to see
    # whether it changed: one read a check, the table parsed from it
    # (a check that read it three times, as before, let this wait see
    # its first read and the phase end at its third, a TSan build's
    # parse later: the middle table never named a sample).  A table is surely in
    # use, and has been for a second, once the file has been read twice
    # since it was put in place (again: its times moved back, one more
    # read); the first one, three times.
    again() { touch -d '1 minute ago' "$TMPD/ks" && wait_until 15 read_since; }
    phases=0
    wait_until 15 read_since && again && again && phases=1 &&
        place "$TMPD/B" && wait_until 15 read_since && again && phases=2 &&
        place "$TMPD/A" && wait_until 15 read_since && again && phases=3
    is "$phases" 3 "module: each table was read while sampling"
    kill -INT "$SP_PID"
    wait_sproftop
    is "$SP_RC" 0 "module: exit 0 at SIGINT"
    like "$(grep '^kallsyms:' "$TMPD/mod.err")" ' 3 reads' "module: --stats: three tables read"
    run_sproftop -i "$TMPD/mod.pb.gz" -o "$TMPD/mod.folded"
    cmp_ok "$(folded_count_frame "$TMPD/mod.folded" 'read_zero_[k]')" '>' 0 \
        "module: while loaded, its function has its name"
    cmp_ok "$(folded_count_substr "$TMPD/mod.folded" '[kernel]+0xffff')" '>' 0 \
        "module: before and after, the address is outside every symbol"
    run_sproftop -i "$TMPD/mod.pb.gz" -f top -o "$TMPD/mod.top"
    like "$(grep 'read_zero' "$TMPD/mod.top")" '\[zeromod\]' \
        "module: read_zero is the module's ([zeromod])"
fi
kill_pid "$rz"

done_testing
