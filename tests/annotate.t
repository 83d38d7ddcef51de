#!/usr/bin/env bash
# annotate.t - a function's instructions with their share of samples
# (issue 25), on real targets (tests/targets/loops.c).
#
#   1. Truth: two_loops holds two loops, the second 4x as long as the
#      first.  sproftop and `perf record -e cpu-clock` sample the same
#      process over the same stretch; sproftop's --annotate listing must
#      give the hot loop's instructions (those between a backward jump and
#      its target, the loop holding the inlined hash_step) 80% +-5 of the
#      function's samples, and its hottest instruction a share within 5
#      points of `perf annotate`'s.
#   2. The code comes from the module's file for a PIE and a fixed
#      executable, a shared library, and stripped code named by its
#      unwind entry; the listing has source lines over their instructions,
#      jump targets as offsets with arrows, calls by name, inlined code
#      labelled.
#   3. The live view (tmux): a on two_loops opens its listing on the
#      hottest instruction, e steps to the next-hottest, the counts grow
#      as samples arrive, heat colours follow the share; in main's
#      listing Enter on the call opens two_loops, Backspace comes back.
#   4. Bad input, each one line and no crash: a module changed on disk
#      (a saved profile whose module's build-id differs: refused; a live
#      process whose file was replaced: its mapped copy, said so), code
#      that does not decode, a 1 MiB function, an address no function
#      holds; in the text export and in the view (a saved profile, --script).
#   5. Exports: callgrind --dump-instr (positions: instr line) read by
#      callgrind_annotate, its addresses the listing's instructions.
# Every wait is bounded; every process started here is ended by PID.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets loops loops_nopie loops_stripped loops_bare loops_shared

HZ=999

# listing FILE: the instruction rows of a --annotate listing, one per
# line: "OFFSET SHARE JUMPBACK INLINED" (OFFSET decimal, SHARE the Self%
# or 0, JUMPBACK the decimal offset a backward jump goes to or -, INLINED
# 1 when the row is inlined code).
listing() {
    local line pct rest off code back inl
    while IFS= read -r line; do
        [[ $line =~ \ 0x[0-9a-f]{16}\ \+0x([0-9a-f]+)\ +(.*)$ ]] || continue
        off=$((16#${BASH_REMATCH[1]}))
        code=${BASH_REMATCH[2]}
        pct=${line:9:7}
        pct=${pct//[ %]/}
        back=-
        [[ $code =~ ^j[a-z]+\ +\^\ \+0x([0-9a-f]+) ]] && back=$((16#${BASH_REMATCH[1]}))
        inl=0
        [[ $code == *"inlined: hash_step"* ]] && inl=1
        echo "$off ${pct:-0} $back $inl"
    done <"$1"
}

# hot_loop_share FILE: the summed share of the instructions of the loop
# that holds the inlined hash_step: from a backward jump's target to the
# jump.
hot_loop_share() {
    listing "$1" | awk '
        { off[NR] = $1; pct[NR] = $2; back[NR] = $3; inl[NR] = $4 }
        END {
            for (j = 1; j <= NR; j++) {
                if (back[j] == "-") continue
                s = 0; has = 0
                for (i = 1; i <= NR; i++)
                    if (off[i] >= back[j] && off[i] <= off[j]) {
                        s += pct[i]; has += inl[i]
                    }
                if (has) { printf "%.1f\n", s; exit }
            }
        }'
}

# loop_shares FILE: the summed share of each loop (from a backward
# jump's target to the jump), largest first.
loop_shares() {
    listing "$1" | awk '
        { off[NR] = $1; pct[NR] = $2; back[NR] = $3 }
        END {
            for (j = 1; j <= NR; j++) {
                if (back[j] == "-") continue
                s = 0
                for (i = 1; i <= NR; i++)
                    if (off[i] >= back[j] && off[i] <= off[j]) s += pct[i]
                printf "%.1f\n", s
            }
        }' | sort -g -r
}

# hottest_share FILE: the largest Self% of an instruction row.
hottest_share() {
    awk '/ 0x[0-9a-f]+ \+0x[0-9a-f]+ / { v = substr($0, 10, 7); sub(/%/, "", v)
            if (v + 0 > m) m = v + 0 } END { printf "%.1f\n", m }' "$1"
}

# sample_annotate NAME MIN TARGET MODE FUNC: start TARGET MODE (for 60
# s at most), sample it until about MIN samples with --annotate FUNC into
# $TMPD/NAME.txt; with SAVE set, then into $TMPD/NAME.pb.gz too (RC is
# the first run's); end it.  Sets RC, ERRS, APID.
sample_annotate() {
    local name=$1 min=$2 target=$3 mode=$4 func=$5 rc
    start_target "$target" "$mode" 60 || bail_out "cannot start $target"
    APID=$TARGET_PID
    sample_until "$min" 40 -p "$APID" -F "$HZ" -o "$TMPD/$name.txt" \
        --annotate "$func"
    rc=$RC
    [ -n "${SAVE:-}" ] && sample_until 100 40 -p "$APID" -F "$HZ" -o "$TMPD/$name.pb.gz"
    RC=$rc
    kill_pid "$APID"
}

# view_dump NAME PROFILE: the live view over saved PROFILE, a on the
# flat view's first row (the hottest), its screen into $TMPD/NAME.dump
# (160 columns: the one line whole).  Sets RC.
view_dump() {
    printf '2\na\n:dump %s\n' "$TMPD/$1.dump" >"$TMPD/$1.keys"
    (cd "$TMPD" && env TERM=xterm-256color LINES=20 COLUMNS=160 timeout -k 5 "$SP_TIMEOUT" \
        "$SPROFTOP" -i "$2" --script "$TMPD/$1.keys" >/dev/null 2>"$TMPD/$1.err")
    RC=$?
}

# within NAME VALUE LO HI
within() {
    ok "$(awk -v v="$2" -v lo="$3" -v hi="$4" \
        'BEGIN { exit !(v != "" && v >= lo && v <= hi) }'; echo $?)" \
        "$1: $2 in [$3, $4]"
}

# --- 1. truth ------------------------------------------------------------------
start_target loops two 120 || bail_out "cannot start loops"
LPID=$TARGET_PID
have_perf=
if command -v perf >/dev/null 2>&1; then
    spawn perf record -q -e cpu-clock -F "$HZ" -p "$LPID" -o "$TMPD/perf.data" \
        >"$TMPD/perf.out" 2>&1
    PERF_PID=$SPAWN_PID
    # perf has attached once its file holds a header
    wait_until 10 test -s "$TMPD/perf.data" && have_perf=1
fi
sample_until 1500 60 -p "$LPID" -F "$HZ" -o "$TMPD/truth.txt" --annotate two_loops
is "$RC" 0 "truth: sproftop --annotate two_loops exits 0"
if [ -n "$have_perf" ]; then
    kill -INT "$PERF_PID" 2>/dev/null
    wait_exit "$PERF_PID" 30 || kill_pid "$PERF_PID"
fi
kill_pid "$LPID"
note "$(head -n 6 "$TMPD/truth.txt")"
hot=$(hot_loop_share "$TMPD/truth.txt")
note "truth: the hot loop holds $hot% of two_loops' samples"
within "truth: the hot loop's share of two_loops (%)" "$hot" 75 85
ours=$(hottest_share "$TMPD/truth.txt")
if [ -n "$have_perf" ] &&
    perf annotate -i "$TMPD/perf.data" --stdio -s two_loops \
        >"$TMPD/perf.ann" 2>"$TMPD/perf.ann.err" &&
    theirs=$(awk '/^ *[0-9.]+ :  *[0-9a-f]+:/ { v = $1 + 0; if (v > m) m = v }
                  END { if (m) printf "%.1f\n", m }' "$TMPD/perf.ann") &&
    [ -n "$theirs" ]; then
    note "truth: hottest instruction: sproftop $ours%, perf annotate $theirs%"
    d=$(awk -v a="$ours" -v b="$theirs" 'BEGIN { d = a - b; if (d < 0) d = -d; printf "%.1f\n", d }')
    within "truth: hottest instruction, |sproftop - perf annotate| (points)" "$d" 0 5
else
    skip 1 "perf record/annotate unavailable: $(head -c 300 "$TMPD/perf.out" "$TMPD/perf.ann.err" 2>/dev/null)"
fi
# the listing reads as the issue asks
T2=$(cat "$TMPD/truth.txt")
like "$T2" 'loops\.c:32  return x \* 6364136223846793005ULL' "listing: a source line over its instructions, with its text"
like "$T2" 'inlined: hash_step' "listing: inlined code labelled"
like "$T2" 'j[a-z]+ +\^ \+0x[0-9a-f]+' "listing: a loop's jump back by its target's offset, arrow up"

# --- 2. where the code comes from ----------------------------------------------
sample_annotate nopie 300 loops_nopie two two_loops
like "$(head -n 3 "$TMPD/nopie.txt")" 'function:  0x4[0-9a-f]{5}-' "fixed executable: two_loops at its link address"
within "fixed executable: the hot loop's share (%)" "$(loop_shares "$TMPD/nopie.txt" | head -n 1)" 70 90
sample_annotate shared 300 loops_shared two two_loops
like "$(head -n 2 "$TMPD/shared.txt")" 'module: +libloops\.so \(.*/libloops\.so\)' "shared library: read from libloops.so"
within "shared library: the hot loop's share (%)" "$(loop_shares "$TMPD/shared.txt" | head -n 1)" 70 90
# stripped: its functions are named by their unwind entries (run from a
# copy, which part 4 replaces with another build)
mkdir -p "$TMPD/bin"
cp "$TARGETS/loops_stripped" "$TMPD/bin/loops_stripped"
spawn "$TMPD/bin/loops_stripped" two 60 >/dev/null 2>&1
SPID=$SPAWN_PID
wait_until 10 _exe_is "$SPID" "$TMPD/bin/loops_stripped"
sample_until 200 40 -p "$SPID" -F "$HZ" -o "$TMPD/stripped.pb.gz"
run_sproftop -i "$TMPD/stripped.pb.gz" -o "$TMPD/stripped.folded"
# the leaf of the heaviest stack
SNAME=$(sort -t' ' -k2 -n -r "$TMPD/stripped.folded" | head -n 1 | sed 's/ [0-9]*$//; s/.*;//')
like "$SNAME" '^\[loops_stripped\+0x[0-9a-f]+\]$' "stripped: the hot function is unnamed ($SNAME)"
sample_until 300 40 -p "$SPID" -F "$HZ" -o "$TMPD/stripped.txt" --annotate "$SNAME"
kill_pid "$SPID"
is "$RC" 0 "stripped: --annotate $SNAME exits 0"
cmp_ok "$(listing "$TMPD/stripped.txt" | wc -l)" ">=" 20 "stripped: its instructions, from its unwind entry's extent"
within "stripped: the hot loop's share (%)" "$(loop_shares "$TMPD/stripped.txt" | head -n 1)" 70 90

# --- 3. the live view ------------------------------------------------------------
use_tmux sproftop-annot
start_target loops two 120 || bail_out "cannot start loops"
UPID=$TARGET_PID
"${T[@]}" new-session -d -s ui -x 110 -y 40 \
    "cd '$TMPD' && '$SPROFTOP' --no-confirm -r 0.3 -F $HZ -p $UPID 2>'$TMPD/ui.err'"
wait_until 30 screen_has ui "PID $UPID" || bail_out "the live view did not start"
# cursor_row NAME: the row the cursor is on ('>' in column 1).
cursor_row() { screen "$1" | grep -E '^>' | head -n 1; }
cursor_has() { cursor_row ui | grep -Eq -- "$1"; }
keys ui 2
wait_until 20 screen_has ui ' two_loops'
keys ui / && keys ui -l '^two_loops$' && keys ui Enter
wait_until 10 cursor_has ' two_loops'
keys ui a
check "a: two_loops' listing, from its module's file" \
    wait_until 20 screen_has ui 'two_loops in loops  0x[0-9a-f]+-0x[0-9a-f]+'
S1=$(screen ui)
like "$S1" 'annotate: two_loops' "a: the tab says annotate"
like "$S1" 'inlined: hash_step' "a: inlined code labelled"
like "$S1" 'jne +(↑|\^) \+0x[0-9a-f]+' "a: the loop's jump as an arrow to its target's offset"
# the cursor opens on the hottest instruction: the largest Self% of an
# instruction row on the screen
top=$(printf '%s\n' "$S1" | awk '{ sub(/^> */, " ") } $2 ~ /%$/ && $4 ~ /^\+0x/ { v = $2; sub(/%/, "", v); if (v + 0 > m) m = v + 0 } END { print m }')
cur=$(printf '%s\n' "$S1" | grep -E '^>' | awk '{ sub(/^> */, " "); v = $2; sub(/%/, "", v); print v + 0 }')
is "$cur" "$top" "a: the cursor opens on the hottest instruction ($cur%)"
self1=$(cursor_row ui | awk '{ sub(/^> */, " "); print $1 }')
grows() { local s; s=$(cursor_row ui | awk '{ sub(/^> */, " "); print $1 }'); [ -n "$s" ] && [ "$s" != "$self1" ]; }
check "live: the hottest instruction's count changes as samples arrive" wait_until 20 grows
"${T[@]}" capture-pane -e -p -t ui >"$TMPD/colour"
# (the cursor's row is drawn in the cursor's colours: another one)
plain() { sed $'s/\e\\[[0-9;]*m//g'; }
hot_row= cold_row=
while IFS= read -r raw; do
    txt=$(printf '%s' "$raw" | plain)
    [[ $txt =~ ^\  && $txt =~ \ \+0x[0-9a-f]+\  ]] || continue
    if [[ $txt == *%* ]]; then
        [ -n "$hot_row" ] || hot_row=$raw
    else
        [ -n "$cold_row" ] || cold_row=$raw
    fi
done <"$TMPD/colour"
like "$(printf '%s' "$hot_row" | grep -oE $'\e\\[3[1-7]m' | head -n 1)" '.' \
    "heat: a sampled instruction is coloured ($(printf '%s' "$hot_row" | plain | cut -c1-60))"
unlike "$(printf '%s' "$cold_row" | grep -oE $'\e\\[3[1-7]m')" '.' \
    "heat: an unsampled one is not ($(printf '%s' "$cold_row" | plain | cut -c1-60))"
keys ui e
check "e: the hottest first" wait_until 10 screen_has ui 'hottest 1 of [0-9]+'
r1=$(cursor_row ui)
keys ui e
check "e: then the next-hottest" wait_until 10 screen_has ui 'hottest 2 of [0-9]+'
isnt "$(cursor_row ui | cut -c1-40)" "$(printf '%s' "$r1" | cut -c1-40)" "e: the cursor moved to another instruction"
# main's listing: Enter on its call opens two_loops, Backspace comes back
keys ui 2
keys ui / && keys ui -l '^main$' && keys ui Enter
wait_until 10 cursor_has ' main'
keys ui a
check "a on main: main's listing" wait_until 20 screen_has ui 'main in loops  0x'
# goto_row ERE: the cursor onto the listing's row matching ERE: page
# down until it is on the screen, then step onto it.
screen_moved() { [ "$(screen ui | md5sum)" != "$1" ]; }
goto_row() {
    local page at to k n i before
    keys ui g
    wait_until 5 cursor_has '.'
    for ((page = 0; page < 30; page++)); do
        at=$(screen ui | grep -nE '^>' | cut -d: -f1)
        to=$(screen ui | grep -nE -- "$1" | head -n 1 | cut -d: -f1)
        if [ -n "$at" ] && [ -n "$to" ]; then
            if [ "$to" -gt "$at" ]; then k=j; n=$((to - at)); else k=k; n=$((at - to)); fi
            for ((i = 0; i < n; i++)); do keys ui "$k"; done
            break
        fi
        before=$(screen ui | md5sum)
        keys ui NPage
        wait_until 5 screen_moved "$before"
    done
    wait_until 10 cursor_has "$1" ||
        diag "the cursor is not on /$1/: $(screen ui)"
}
goto_row 'call[a-z]* +two_loops'
keys ui Enter
check "Enter on the call: the callee's listing" wait_until 20 screen_has ui 'two_loops in loops  0x'
keys ui BSpace
check "Backspace: back to main's" wait_until 20 screen_has ui 'main in loops  0x'
# a call to a function without samples: its code all the same
goto_row 'call[a-z]* +odd_code'
keys ui Enter
check "Enter on a call to a function without samples: its code" \
    wait_until 20 screen_has ui 'odd_code in loops  0x'
like "$(screen ui)" 'odd_code has no samples: its code alone' "... and says it has no samples"
keys ui BSpace
check "Backspace: back to main's again" wait_until 20 screen_has ui 'main in loops  0x'
keys ui x
check "x: main's source lines" wait_until 20 screen_has ui 'loops\.c'
keys ui q
check "q: the live view ends" wait_until 10 session_gone ui
kill_pid "$UPID"

# --- 4. bad input ------------------------------------------------------------------
# a module changed on disk: the saved profile of $TMPD/bin/loops_stripped
# (part 2), then another build under that name
cp "$TMPD/stripped.pb.gz" "$TMPD/changed.pb.gz"
run_sproftop -i "$TMPD/changed.pb.gz" -o "$TMPD/changed.txt" --annotate "$SNAME"
is "$RC" 0 "saved profile: its module on disk, the same build: annotated"
like "$(cat "$TMPD/changed.txt")" "note: +the profile keeps .*not where in it they fell" \
    "saved profile: says it keeps no share per instruction"
cp "$TARGETS/loops_bare" "$TMPD/bin/loops_stripped.new"
mv "$TMPD/bin/loops_stripped.new" "$TMPD/bin/loops_stripped"
run_sproftop -i "$TMPD/changed.pb.gz" -o "$TMPD/changed2.txt" --annotate "$SNAME"
is "$RC" 1 "module changed since the profile: --annotate exits 1"
assert_one_line_error "module changed since the profile: one line"
like "$ERRS" 'changed since the profile was recorded: its build-id is' "module changed: says the build-id differs"
# the same in the view, from the saved profile
view_dump changed "$TMPD/changed.pb.gz"
is "$RC" 0 "view, changed module: exits 0 (no crash, no hang)"
like "$(cat "$TMPD/changed.dump" 2>/dev/null)" 'no machine code: .*changed since the profile was recorded' \
    "view, changed module: one line says so"

# a live process whose file was replaced on disk: the copy it maps
cp "$TARGETS/loops" "$TMPD/bin/loops"
spawn "$TMPD/bin/loops" two 60 >/dev/null 2>&1
RPID=$SPAWN_PID
wait_until 10 _exe_is "$RPID" "$TMPD/bin/loops"
cp "$TARGETS/loops_nopie" "$TMPD/bin/loops.new"
mv "$TMPD/bin/loops.new" "$TMPD/bin/loops"
sample_until 300 40 -p "$RPID" -F "$HZ" -o "$TMPD/replaced.txt" --annotate two_loops
kill_pid "$RPID"
is "$RC" 0 "live, file replaced on disk: annotated"
like "$(cat "$TMPD/replaced.txt")" "note: +loops changed on disk since process $RPID loaded it: showing the copy it maps" \
    "live, file replaced: says it shows the mapped copy"
within "live, file replaced: the mapped copy's hot loop share (%)" "$(loop_shares "$TMPD/replaced.txt" | head -n 1)" 70 90

# code that does not decode (a fixed executable: a saved profile places
# any function of it)
SAVE=1 sample_annotate odd 200 loops_nopie odd odd_code
is "$RC" 0 "undecodable bytes: annotated"
like "$(cat "$TMPD/odd.txt")" 'note: +4 bytes of odd_code from \+0x[0-9a-f]+ could not be decoded: shown as \(bad\)' \
    "undecodable bytes: one line says how many"
like "$(cat "$TMPD/odd.txt")" '\(bad\) +06 07 27 37' "undecodable bytes: shown as (bad) with their bytes"
view_dump odd "$TMPD/odd.pb.gz"
is "$RC" 0 "view, undecodable bytes: exits 0"
like "$(cat "$TMPD/odd.dump" 2>/dev/null)" '4 bytes of odd_code from \+0x[0-9a-f]+ could not be decoded' \
    "view, undecodable bytes: one line says so"

# a function of 1 MiB
SAVE=1 sample_annotate big 200 loops_nopie big big_fn
is "$RC" 0 "1 MiB function: annotated"
like "$(cat "$TMPD/big.txt")" 'note: +big_fn is 10[0-9][0-9] KiB, more than 128: showing the 64 KiB around its hottest address' \
    "1 MiB function: one line says what part is shown"
cmp_ok "$(hottest_share "$TMPD/big.txt")" ">" 50 "1 MiB function: the hot spin is in the part shown"
view_dump big "$TMPD/big.pb.gz"
is "$RC" 0 "view, 1 MiB function: exits 0"
like "$(cat "$TMPD/big.dump" 2>/dev/null)" 'big_fn is 10[0-9][0-9] KiB, more than 128: showing the 64 KiB' \
    "view, 1 MiB function: one line says what part is shown"

# an address no function holds (no symbols, no unwind tables)
start_target loops_bare two 60 || bail_out "cannot start loops_bare"
BPID=$TARGET_PID
sample_until 200 40 -p "$BPID" -F "$HZ" -o "$TMPD/bare.pb.gz"
run_sproftop -i "$TMPD/bare.pb.gz" -o "$TMPD/bare.folded"
BNAME=$(sort -t' ' -k2 -n -r "$TMPD/bare.folded" | head -n 1 | sed 's/ [0-9]*$//; s/.*;//')
like "$BNAME" '^\[loops_bare\+0x[0-9a-f]+\]$' "no function: the hot code is named by its address ($BNAME)"
sample_until 200 40 -p "$BPID" -F "$HZ" -o "$TMPD/bare.txt" --annotate "$BNAME"
is "$RC" 1 "no function: --annotate exits 1"
assert_one_line_error "no function: one line"
# the live view on it: a on the hottest row
"${T[@]}" new-session -d -s bare -x 160 -y 30 \
    "cd '$TMPD' && '$SPROFTOP' --no-confirm -r 0.3 -F $HZ -p $BPID 2>'$TMPD/bare.err'"
wait_until 30 screen_has bare "PID $BPID" || diag "the live view did not start: $(screen bare)"
keys bare 2
wait_until 20 screen_has bare '^> .*\[loops_bare\+0x'
keys bare a
check "view, no function: one line says so" \
    wait_until 20 screen_has bare 'no machine code: no function of loops_bare holds 0x[0-9a-f]+'
keys bare q
check "view, no function: q ends the view" wait_until 10 session_gone bare
kill_pid "$BPID"
# a saved profile of it keeps no address for such code: said so
view_dump bare "$TMPD/bare.pb.gz"
is "$RC" 0 "view, saved, no function: exits 0"
like "$(cat "$TMPD/bare.dump" 2>/dev/null)" 'no machine code: \[loops_bare\+0x[0-9a-f]+\]: the profile has no address of it' \
    "view, saved, no function: one line says so"
like "$ERRS" 'no function of loops_bare holds 0x[0-9a-f]+ \(no symbol, debug info or unwind entry covers it\)' \
    "no function: says no symbol, debug info or unwind entry covers it"

# --- 5. callgrind per instruction ---------------------------------------------------
start_target loops_nopie two 60 || bail_out "cannot start loops_nopie"
NPID=$TARGET_PID
sample_until 300 40 -p "$NPID" -F "$HZ" -o "$TMPD/callgrind.out.loops" --dump-instr
kill_pid "$NPID"
is "$RC" 0 "callgrind --dump-instr: exits 0"
CG=$TMPD/callgrind.out.loops
like "$(grep -m1 '^positions:' "$CG")" '^positions: instr line$' "callgrind: positions: instr line"
# two_loops' cost lines: ADDRESS LINE COST, each address an instruction
# (address 0 holds the samples of no known address, if any).  Names are
# compressed across fn= and cfn=: two_loops is named where it first
# appears, in its own block or as a callee in main's (frame order, which
# the first samples decide), and later by its id alone.
cg_fn_addrs() {
    awk -v want="$2" '
        /^c?fn=\([0-9]+\)/ {
            id = $0; sub(/^c?fn=\(/, "", id); sub(/\).*/, "", id)
            nm = $0; sub(/^c?fn=\([0-9]+\) ?/, "", nm)
            if (nm != "") name[id] = nm
            if ($0 ~ /^fn=/) inf = (name[id] == want)
        }
        inf && /^0x[0-9a-f]+ [0-9]+ [0-9]+$/ && $1 != "0x0" { print $1 }' "$1" | sort -u
}
cg_fn_addrs "$CG" two_loops >"$TMPD/cg.addrs"
while read -r a; do printf '0x%x\n' "$a"; done < <(grep -oE ' 0x[0-9a-f]{16} ' "$TMPD/nopie.txt") | sort -u >"$TMPD/insn.addrs"
cmp_ok "$(wc -l <"$TMPD/cg.addrs")" ">=" 2 "callgrind: two_loops has costs at several instructions"
is "$(comm -23 "$TMPD/cg.addrs" "$TMPD/insn.addrs")" "" "callgrind: every cost address is one of the listing's instructions"
if command -v callgrind_annotate >/dev/null 2>&1; then
    callgrind_annotate --auto=yes "$CG" >"$TMPD/cga.out" 2>"$TMPD/cga.err"
    is "$?" 0 "callgrind_annotate reads the per-instruction file"
    summary=$(sed -n 's/^summary: //p' "$CG")
    like "$(tr -d , <"$TMPD/cga.out")" "^$summary +\(100\.0%\) +PROGRAM TOTALS" \
        "callgrind_annotate: the totals are the samples ($summary)"
    like "$(cat "$TMPD/cga.out")" 'return x \* 6364136223846793005ULL' "callgrind_annotate --auto=yes: the hot source line annotated"
else
    skip 3 "callgrind_annotate (valgrind) not installed"
fi

done_testing
