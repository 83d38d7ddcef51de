#!/usr/bin/env bash
# formats_b.t - the text, top, sampler, samplingprof, stackprof, dot and svg
# exports of a real sampled process, each checked by its real consumer:
#
#   sampler       sproftop's own reader: -i x.sampler -o y.sampler is the
#                 same bytes, and -i gives the same stacks as the folded file
#   stackprof     `stackprof x.stackprof.json --text` and --stackcollapse
#                 (Debian ruby-stackprof)
#   dot           `dot -Tsvg` (Debian graphviz)
#   svg           xmllint --noout (libxml2-utils, else python3's parser),
#                 then headless Chromium: a screenshot, and a click / hover /
#                 search driven through tests/formats_b/svg_probe.html
#   text, top, samplingprof   parsed here
#
# Every number is compared with the folded export of the SAME saved
# profile (one .sampler converted with -i), so they cannot drift apart.
# A consumer that is not installed is a TAP skip naming its package.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets split

have() { command -v "$1" >/dev/null 2>&1; }

start_target split || bail_out "cannot start split"
pid=$TARGET_PID
S=$TMPD/live.sampler

# --- a real profile ----------------------------------------------------------
run_sproftop -p "$pid" -d 2 -F 500 -o "$S" -f sampler
is "$RC" 0 "sproftop -p PID -d 2 -F 500 -o x.sampler -f sampler exits 0"
[ "$RC" = 0 ] || diag_file "$ERR"
head -c 18 "$S" 2>/dev/null | grep -q '^@supersamplerV1.0$'
ok $? "the file starts with @supersamplerV1.0"

# One saved profile, converted to every format.
for f in folded text top stackprof samplingprof dot svg sampler; do
    case $f in
        stackprof) out=$TMPD/x.stackprof.json ;;
        *) out=$TMPD/x.$f ;;
    esac
    run_sproftop -i "$S" -o "$out" -f "$f" --hide-self 0 --hide-subs 0
    is "$RC" 0 "-i x.sampler -o $(basename "$out") -f $f exits 0"
    [ "$RC" = 0 ] || diag_file "$ERR"
done
F=$TMPD/x.folded
total=$(folded_total "$F")
fa=$(folded_count_frame "$F" func_a)
fb=$(folded_count_frame "$F" func_b)
wu=$(folded_count_frame "$F" work_unit)
wu_self=$(awk '{ s = $0; sub(/ [0-9]+$/, "", s); n = split(s, f, ";")
                 if (f[n] == "work_unit") c += $NF } END { print c + 0 }' "$F")
a_wu=$(folded_count_chain "$F" func_a work_unit)
note "folded: $total samples, func_a $fa, func_b $fb, work_unit $wu (self $wu_self)"
# How many samples a loaded machine yields is not this test's business;
# that the profile is real (split's hot path in it) is.
cmp_ok "$total" '>' 0 "the profile has samples ($total)"
cmp_ok "$fa" '>' 0 "func_a has samples"

# --- sampler: sproftop's own reader ------------------------------------------
cmp -s "$S" "$TMPD/x.sampler"
ok $? "sampler round trip: -i x.sampler -o y.sampler writes the same bytes"
run_sproftop -i "$TMPD/x.sampler" -o "$TMPD/y.folded"
sort "$F" >"$TMPD/a.sorted"
sort "$TMPD/y.folded" >"$TMPD/b.sorted"
cmp -s "$TMPD/a.sorted" "$TMPD/b.sorted"
ok $? "the re-read sampler file has the same stacks and counts per thread"
roots=$(folded_roots "$F")
like "$roots" '^Thread_[0-9A-F]{4}-[0-9]+$' \
    "thread roots are the 16-bit Thread_XXXX entries ($roots)"
head -c 300 "$S" >"$TMPD/cut.sampler"
run_sproftop -i "$TMPD/cut.sampler" -o "$TMPD/cut.folded"
isnt "$RC" 0 "a truncated .sampler is refused"
assert_one_line_error "the refusal is one line"
like "$ERRS" 'cut\.sampler: byte [0-9]+: ' "the error names the byte offset"

# --- stackprof: the Ruby gem's reports ---------------------------------------
SP=$TMPD/x.stackprof.json
if have stackprof; then
    stackprof "$SP" --text >"$TMPD/sp.txt" 2>"$TMPD/sp.err"
    ok $? "stackprof x.stackprof.json --text exits 0"
    [ -s "$TMPD/sp.err" ] && diag_file "$TMPD/sp.err"
    sp_samples=$(awk '/^  Samples:/ { print $2 }' "$TMPD/sp.txt")
    is "$sp_samples" "$total" "stackprof --text: Samples equals the folded total"
    sp_a=$(awk '$NF == "func_a" { print $1 }' "$TMPD/sp.txt")
    sp_wu=$(awk '$NF == "work_unit" { print $1 }' "$TMPD/sp.txt")
    sp_wu_self=$(awk '$NF == "work_unit" { print $3 }' "$TMPD/sp.txt")
    is "$sp_a" "$fa" "stackprof --text: func_a TOTAL $sp_a = folded $fa"
    is "$sp_wu" "$wu" "stackprof --text: work_unit TOTAL $sp_wu = folded $wu"
    is "$sp_wu_self" "$wu_self" "stackprof --text: work_unit SAMPLES = folded self"
    note "$(head -n 9 "$TMPD/sp.txt")"

    stackprof "$SP" --stackcollapse >"$TMPD/sc.txt" 2>"$TMPD/sc.err"
    ok $? "stackprof --stackcollapse exits 0"
    sc_total=$(awk '{ n += $NF } END { print n + 0 }' "$TMPD/sc.txt")
    is "$sc_total" "$total" "--stackcollapse lines sum to the sample count"
    # the same stacks as the folded file without its thread roots (and
    # without the _[k] of kernel functions, which stackprof does not know)
    sed 's/^[^;]*;//; s/_\[k\]//g' "$F" | sort >"$TMPD/f.sorted"
    sort "$TMPD/sc.txt" >"$TMPD/sc.sorted"
    cmp -s "$TMPD/f.sorted" "$TMPD/sc.sorted"
    ok $? "--stackcollapse gives the folded stacks (thread roots aside)"
else
    skip 8 "stackprof not installed (Debian package ruby-stackprof)"
fi

# --- text (Racket style) and top (stackprof style) ---------------------------
T=$TMPD/x.text
like "$(cat "$T")" "Number of samples taken: $total " "text: the sample count"
# from a .sampler file the interval is unknown: 1 ms per sample; the
# node numbers are right-aligned (" [5]" once there are ten nodes)
t_a=$(sed -nE 's/^ *\[[0-9]+\] *([0-9]+)\([0-9.]+%\) *[0-9]+\([0-9.]+%\) *func_a .*/\1/p' "$T")
is "$t_a" "$fa" "text: func_a's node line total is $fa ms"
t_local=$(awk '$1 == "func_a" && $2 ~ /^\[[0-9]+\]/ { v = $NF } END { print v }' "$T")
want_local=$(awk -v a="$a_wu" -v w="$wu" 'BEGIN { printf "%.1f", 100 * a / w }')
awk -v g="${t_local%\%}" -v w="$want_local" 'BEGIN { d = g - w; exit !(d <= 0.051 && d >= -0.051) }'
ok $? "text: the last caller line, func_a, has Local% $t_local ~ $want_local% (func_a->work_unit / work_unit)"
top_a=$(awk '$NF == "func_a" || ($5 == "func_a") { print $1; exit }' "$TMPD/x.top")
is "$top_a" "$fa" "top: func_a TOTAL is $fa"

# --- samplingprof: the four chunks -------------------------------------------
SPF=$TMPD/x.samplingprof
nchunks=$(awk 'BEGIN { RS = "" } END { print NR }' "$SPF")
is "$nchunks" 4 "samplingprof: four chunks"
id_a=$(awk 'BEGIN { RS = "" } NR == 2 { n = split($0, l, "\n")
        for (i = 1; i <= n; i++) if (l[i] ~ /:func_a,[0-9]+$/) { sub(/.*,/, "", l[i]); print l[i] } }' "$SPF")
id_wu=$(awk 'BEGIN { RS = "" } NR == 2 { n = split($0, l, "\n")
        for (i = 1; i <= n; i++) if (l[i] ~ /:work_unit,[0-9]+$/) { sub(/.*,/, "", l[i]); print l[i] } }' "$SPF")
sp_total_a=$(awk -F, -v id="$id_a" 'BEGIN { RS = "" } NR == 3 { n = split($0, l, "\n")
        for (i = 1; i <= n; i++) { split(l[i], c, ","); if (c[1] == id) print c[3] } }' "$SPF")
sp_edge=$(awk -v a="$id_a" -v w="$id_wu" 'BEGIN { RS = "" } NR == 4 { n = split($0, l, "\n")
        for (i = 1; i <= n; i++) { split(l[i], c, ","); if (c[1] == a && c[2] == w) print c[3] } }' "$SPF")
sp_roots=$(awk 'BEGIN { RS = "" } NR == 4 { n = split($0, l, "\n")
        for (i = 1; i <= n; i++) { split(l[i], c, ","); if (c[1] == -1) s += c[3] } } END { print s + 0 }' "$SPF")
is "$sp_total_a" "$fa" "samplingprof: func_a (id $id_a) total = $fa"
is "$sp_edge" "$a_wu" "samplingprof: edge func_a->work_unit = $a_wu"
is "$sp_roots" "$total" "samplingprof: root edges (-1) sum to the sample count"

# --- dot: graphviz -----------------------------------------------------------
D=$TMPD/x.dot
node_id() { sed -nE "s/^  \"([0-9]+)\" .*\[label=\"$1\\\\n.*/\1/p" "$D"; }
na=$(node_id func_a)
nw=$(node_id work_unit)
d_w=$(sed -nE "s/^  \"$na\" -> \"$nw\" \[label=\"([0-9]+)\"\] \[weight=\"([0-9]+)\"\].*/\1 \2/p" "$D")
is "$d_w" "$a_wu $a_wu" "dot: edge func_a -> work_unit has label and weight $a_wu"
d_total=$(sed -nE "s/.*\[label=\"func_a\\\\n[0-9]+ \([0-9.]+%\)\\\\rof ([0-9]+) .*/\1/p" "$D")
is "$d_total" "$fa" "dot: func_a's node says 'of $fa'"
if have dot; then
    dot -Tsvg "$D" >"$TMPD/x.dot.svg" 2>"$TMPD/dot.err"
    ok $? "dot -Tsvg accepts the file"
    [ -s "$TMPD/dot.err" ] && diag_file "$TMPD/dot.err"
    grep -q '<title>' "$TMPD/x.dot.svg"
    ok $? "dot drew nodes"
else
    skip 2 "dot not installed (Debian package graphviz)"
fi

# --- svg: well-formed XML, then Chromium -------------------------------------
# A live run straight to .svg, so the subtitle carries the pid.
G=$TMPD/flame.svg
run_sproftop -p "$pid" -d 1 -F 500 -o "$G"
is "$RC" 0 "sproftop -p PID -d 1 -o flame.svg (format from the suffix) exits 0"
if have xmllint; then
    xmllint --noout "$G" 2>"$TMPD/xml.err"
    ok $? "xmllint --noout: the SVG is well-formed XML"
    xmllint --noout "$TMPD/x.svg" 2>>"$TMPD/xml.err"
    ok $? "xmllint --noout: the converted SVG too"
    [ -s "$TMPD/xml.err" ] && diag_file "$TMPD/xml.err"
elif have python3; then
    python3 -c 'import sys, xml.dom.minidom as m; [m.parse(f) for f in sys.argv[1:]]' "$G" "$TMPD/x.svg"
    ok $? "python3's XML parser reads both SVGs"
    skip 1 "xmllint not installed (Debian package libxml2-utils)"
else
    skip 2 "neither xmllint (libxml2-utils) nor python3 installed"
fi
grep -q "(pid $pid)" "$G"
ok $? "the SVG subtitle names pid $pid"
svg_a=$(grep -c '<title>func_a$' "$TMPD/x.svg")
cmp_ok "$svg_a" '>=' 1 "the converted SVG has a func_a frame"
w_a=$(grep -A0 '<title>func_a$' "$TMPD/x.svg" | sed -nE 's/.*data-w="([0-9]+)".*/\1/p' |
      awk '{ n += $1 } END { print n + 0 }')
is "$w_a" "$fa" "the SVG's func_a frames span $fa samples"

chrome=""
for c in chromium chromium-browser google-chrome; do
    have "$c" && { chrome=$c; break; }
done
if [ -n "$chrome" ]; then
    CHROME_FLAGS=(--headless --no-sandbox --disable-gpu --disable-quic
                  --no-first-run --disable-background-networking
                  --disable-component-update --disable-sync
                  --user-data-dir="$TMPD/chrome")
    timeout -k 5 60 "$chrome" "${CHROME_FLAGS[@]}" --window-size=1200,700 \
        --screenshot="$TMPD/flame.png" "file://$G" >"$TMPD/chrome.log" 2>&1
    ok $? "headless $chrome takes a screenshot of the SVG"
    size=$(stat -c %s "$TMPD/flame.png" 2>/dev/null || echo 0)
    magic=$(head -c 8 "$TMPD/flame.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')
    is "$magic" "89504e470d0a1a0a" "the screenshot is a PNG"
    cmp_ok "$size" '>' 10000 "the screenshot is not blank ($size bytes)"
    [ -n "${SPROFTOP_SCREENSHOT:-}" ] && cp "$TMPD/flame.png" "$SPROFTOP_SCREENSHOT"

    cp "$TOP/tests/formats_b/svg_probe.html" "$TMPD/svg_probe.html"
    timeout -k 5 60 "$chrome" "${CHROME_FLAGS[@]}" --allow-file-access-from-files \
        --virtual-time-budget=5000 --dump-dom \
        "file://$TMPD/svg_probe.html#func_a" >"$TMPD/probe.html" 2>>"$TMPD/chrome.log"
    probe=$(sed -n '/<pre id="out">/,/<\/pre>/p' "$TMPD/probe.html")
    note "$probe"
    like "$probe" 'zoomed 1180\.00' "click on func_a zooms it to the full width"
    like "$probe" 'hidden [1-9]' "the zoom hides frames outside func_a's subtree"
    like "$probe" 'unzoom btn$' "the Reset Zoom button appears"
    like "$probe" 'details func_a  \|  split' "hovering shows func_a's title"
    like "$probe" 'reset [0-9.]+ hidden 0' "a click on 'all' resets the zoom"
    like "$probe" 'search Matched: [0-9.]+% of samples' "the search reports a match"
    unlike "$probe" 'error' "the page script ran without an error"
else
    skip 10 "chromium not installed (Debian package chromium)"
fi

kill_pid "$pid"
done_testing
