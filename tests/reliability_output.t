#!/usr/bin/env bash
# reliability_output.t - where profiles are written (issue 11, items 1-3),
# from the command line and from the TUI's save dialog, which share one
# writer:
#   1. "-" writes to the descriptor; a symlink is never renamed over, even
#      our own one to /proc/self/fd/1 (what /dev/stdout is: as root,
#      `-o /dev/stdout` used to replace the system's link).  The real
#      /dev/stdout and /dev/stderr are never named here: code without the
#      rule would replace them for the whole machine.
#   2. a replaced file keeps its mode (and owner, as root); a new one is
#      0600 whatever the umask.
#   3. past `ulimit -f` the write fails with "file too large" instead of
#      dying by SIGXFSZ, and no temporary file is left.
. "$(dirname "$0")/lib.sh"
require_sproftop

FIX=$TOP/tests/ui/demo.folded
W=$TMPD/w
mkdir -p "$W"
cd "$W" || bail_out "no scratch directory"
umask 022

# tmp_files DIR: the temporary files a write left in DIR.
tmp_files() {
    find "$1" -maxdepth 1 -name '.*.tmp' -printf '%f\n'
}

# --- 1. descriptors and symlinks ---------------------------------------------
run_sproftop -i "$FIX" -o -
is "$RC" 0 "-o -: exits 0"
is "$(sort "$OUT")" "$(sort "$FIX")" "-o -: the profile is on stdout"
check "-o -: no file named '-' is made" test ! -e "$W/-"

run_sproftop -i "$FIX" -o /dev/fd/1
is "$RC" 0 "-o /dev/fd/1: exits 0"
is "$(sort "$OUT")" "$(sort "$FIX")" "-o /dev/fd/1: the profile is on stdout"

# A private link to /proc/self/fd/1, stdout sent to a file: the link passes
# an owner check and stat() follows it to a regular file, yet renaming over
# it would destroy it and leave the file empty.
ln -s /proc/self/fd/1 "$W/link.folded"
run_sproftop -i "$FIX" -o "$W/link.folded"
is "$RC" 1 "-o LINK to /proc/self/fd/1: refused, exit 1"
assert_one_line_error "-o LINK: one line on stderr"
like "$ERRS" "refusing to replace .*link\.folded: it is a symlink" "-o LINK: says it is a symlink"
is "$(readlink "$W/link.folded")" /proc/self/fd/1 "-o LINK: the link is left as it was"
is "$(tmp_files "$W")" "" "-o LINK: no temporary file left"

echo precious >"$W/victim"
ln -s victim "$W/own.folded"
run_sproftop -i "$FIX" -o "$W/own.folded"
is "$RC" 1 "-o OWN-LINK to a regular file: refused"
is "$(readlink "$W/own.folded"):$(cat "$W/victim")" "victim:precious" \
    "-o OWN-LINK: neither the link nor its target is changed"

shm=/dev/shm/sproftop-test-${TMPD##*.}.folded
run_sproftop -i "$FIX" -o "$shm"
is "$RC" 1 "-o /dev/shm/...: refused"
like "$ERRS" "it is in /dev, which belongs to the system" "-o /dev/...: says why"
check "-o /dev/shm/...: nothing made there" test ! -e "$shm"
rm -f "$shm"   # the unique name this test gave; made only by a broken build

# --- 2. modes and owners -------------------------------------------------------
run_sproftop -i "$FIX" -o "$W/new.folded"
is "$RC" 0 "a new file is written"
is "$(stat -c %a "$W/new.folded")" 600 "a new file is 0600 (umask 022)"

echo old >"$W/old.folded"
chmod 640 "$W/old.folded"
[ "$(id -u)" = 0 ] && chown 65534:65534 "$W/old.folded"
want_owner=$(stat -c %u:%g "$W/old.folded")
run_sproftop -i "$FIX" -o "$W/old.folded"
is "$RC" 0 "an existing file is replaced"
is "$(sort "$W/old.folded")" "$(sort "$FIX")" "with the new profile"
is "$(stat -c %a "$W/old.folded")" 640 "keeping its mode 0640"
is "$(stat -c %u:%g "$W/old.folded")" "$want_owner" "and its owner"

# --- 3. a file size limit ------------------------------------------------------
awk 'BEGIN { for (i = 0; i < 2000; i++) printf "t-1;main;function_number_%d 1\n", i }' \
    >"$TMPD/big.folded"
(ulimit -f 8 && exec timeout -k 5 "$SP_TIMEOUT" "$SPROFTOP" -i "$TMPD/big.folded" \
    -o "$W/big.folded" </dev/null >"$TMPD/fsz.out" 2>"$TMPD/fsz.err")
rc=$?
is "$rc" 1 "ulimit -f: exit 1, not killed by SIGXFSZ"
is "$(cat "$TMPD/fsz.err")" "sproftop: cannot write $W/big.folded: file too large" \
    "ulimit -f: says 'file too large'"
is "$(tmp_files "$W")" "" "ulimit -f: no temporary file left"
check "ulimit -f: no partial profile" test ! -e "$W/big.folded"

# --- the save dialog: the same writer --------------------------------------
S=$W/save
mkdir -p "$S"
ln -s /proc/self/fd/1 "$S/link.folded"
echo old >"$S/kept.folded"
chmod 604 "$S/kept.folded"
cat >"$TMPD/save.keys" <<'EOF'
s
<C-u>
:type -
<Enter>
:dump d1
s
<C-u>
:type link.folded
<Enter>
:dump d2
s
<C-u>
:type kept.folded
<Enter>
:dump d3
s
<C-u>
:type fresh.folded
<Enter>
:dump d4
EOF
(cd "$S" && env -i PATH="$PATH" TERM=xterm-256color LINES=24 COLUMNS=100 \
    LC_ALL=C TZ=UTC HOME="$S" timeout -k 5 "$SP_TIMEOUT" "$SPROFTOP" \
    -i "$FIX" --script "$TMPD/save.keys" </dev/null >"$TMPD/ui.out" 2>"$TMPD/ui.err")
is "$?" 0 "save dialog: the script runs"
like "$(sed -n 23p "$S/d1")" "^cannot save to - while the live view is on the terminal" \
    "save dialog: '-' is refused (it is the screen)"
check "save dialog: no file named '-'" test ! -e "$S/-"
like "$(sed -n 23p "$S/d2")" "refusing to replace link\.folded: it is a symlink" \
    "save dialog: a link to /proc/self/fd/1 is refused"
is "$(readlink "$S/link.folded")" /proc/self/fd/1 "save dialog: the link is left as it was"
like "$(sed -n 23p "$S/d3")" "^saved 1000 samples .*kept\.folded" "save dialog: an existing file is replaced"
is "$(stat -c %a "$S/kept.folded")" 604 "save dialog: keeping its mode"
is "$(stat -c %a "$S/fresh.folded" 2>/dev/null)" 600 "save dialog: a new file is 0600"
is "$(tmp_files "$S")" "" "save dialog: no temporary file left"

done_testing
