#!/usr/bin/env bash
# python_formats.t - exports keep the Python frames with their files and
# lines (issue 22, item 6), read by their real consumers.
#
# One profile of pystacks.py's two blocked threads (--idle), saved as
# pprof and converted by sproftop -i to the others:
#   pprof       go tool pprof -traces -lines: "slow_key FILE:32"
#               (Function.filename, Line.line), and -i gives the same
#               bytes again (the Python origin round-trips);
#   speedscope  validates against speedscope's schema; slow_key's frame
#               has file and line;
#   callgrind   callgrind_annotate reads it; fl= names pystacks.py and
#               the call to slow_key is at line 32;
#   stackprof   the stackprof CLI reads it; slow_key has file and line;
#   folded      "slow_key (pystacks.py:32)", which flamegraph.pl draws
#               and load_folded reads back as a Python frame
#               (--python-only keeps it).
. "$(dirname "$0")/lib.sh"
require_sproftop
require_python
NPM_PREFIX=${NPM_PREFIX:-$TOP/build/npm}
export HOME=$TMPD/home GOCACHE=$TMPD/gocache PPROF_TMPDIR=$TMPD/pprof
mkdir -p "$HOME"
SCRIPT=$TOP/tests/targets/pystacks.py

start_script ps "$PY" "$SCRIPT" 60
pid=$SCRIPT_PID
run_sproftop -p "$pid" --idle -d 1 -o "$TMPD/x.pb.gz"
is "$RC" 0 "the profile is saved"
kill_pid "$pid"
for f in folded speedscope callgrind stackprof; do
    case $f in
        speedscope) out=$TMPD/x.speedscope.json ;;
        stackprof) out=$TMPD/x.stackprof.json ;;
        *) out=$TMPD/x.$f ;;
    esac
    "$SPROFTOP" -i "$TMPD/x.pb.gz" -o "$out" -f "$f" 2>"$TMPD/$f.err"
    ok $? "-i x.pb.gz -f $f" || diag_file "$TMPD/$f.err"
done

# --- pprof --------------------------------------------------------------------
if command -v go >/dev/null 2>&1 && go tool pprof -h >/dev/null 2>&1; then
    tr=$(go tool pprof -traces -lines "$TMPD/x.pb.gz" 2>/dev/null)
    like "$tr" "slow_key $SCRIPT:32" "go tool pprof: slow_key with its file and line"
    like "$tr" "Outer.Inner.méthode $SCRIPT:49" "go tool pprof: a method's qualified name, file and line"
else
    skip 2 "go tool pprof not installed (apt-get install golang-go)"
fi
"$SPROFTOP" -i "$TMPD/x.pb.gz" -o "$TMPD/again.pb.gz"
cmp -s "$TMPD/x.pb.gz" "$TMPD/again.pb.gz"
ok $? "pprof: -i x.pb.gz -o again.pb.gz gives the same bytes"
"$SPROFTOP" -i "$TMPD/x.pb.gz" --python-only -o "$TMPD/py.folded"
is "$(grep -c '_PyEval_EvalFrameDefault\|Py_RunMain' "$TMPD/py.folded")" 0 \
    "pprof read back: its Python frames are Python's (--python-only keeps them alone)"

# --- speedscope -----------------------------------------------------------------
if command -v node >/dev/null 2>&1 && [ -d "$NPM_PREFIX/node_modules/ajv" ]; then
    v=$(node "$TOP/tests/formats/validate_speedscope.js" "$NPM_PREFIX" \
        "$TMPD/x.speedscope.json" 2>&1)
    like "$v" '^valid$' "speedscope: validates against speedscope's schema"
else
    skip 1 "node or $NPM_PREFIX/node_modules/ajv missing (make deps)"
fi
fr=$("$PY" -c '
import json, sys
for f in json.load(open(sys.argv[1]))["shared"]["frames"]:
    if f["name"] == "slow_key":
        print("%s:%s" % (f.get("file"), f.get("line")))' "$TMPD/x.speedscope.json")
is "$fr" "$SCRIPT:32" "speedscope: slow_key's frame has its file and line"
"$SPROFTOP" -i "$TMPD/x.speedscope.json" --python-only -f folded \
    -o "$TMPD/ss.folded" 2>"$TMPD/ss.err"
is "$(grep -c '__clock_nanosleep' "$TMPD/ss.folded")" 0 \
    "speedscope read back: a frame whose file is a .py is Python's (--python-only keeps those alone)"
like "$(cat "$TMPD/ss.folded")" ";slow_key \(pystacks.py:[0-9]+\);" \
    "speedscope read back: slow_key is a Python frame again"

# --- callgrind ------------------------------------------------------------------
if command -v callgrind_annotate >/dev/null 2>&1; then
    callgrind_annotate --inclusive=yes --auto=no "$TMPD/x.callgrind" \
        >"$TMPD/cga.txt" 2>"$TMPD/cga.err"
    ok $? "callgrind_annotate reads it" || diag_file "$TMPD/cga.err"
    like "$(cat "$TMPD/cga.txt")" "[0-9]+ .* $SCRIPT:slow_key" \
        "callgrind_annotate --inclusive: slow_key of pystacks.py, with its samples"
else
    skip 2 "callgrind_annotate not installed (apt-get install valgrind)"
fi
like "$(cat "$TMPD/x.callgrind")" "fl=\([0-9]+\) $SCRIPT" "callgrind: fl= names the .py file"
like "$(grep -A2 'cfn=([0-9]*) slow_key' "$TMPD/x.callgrind")" "calls=1 32" "callgrind: slow_key's line 32"

# --- stackprof ------------------------------------------------------------------
if command -v stackprof >/dev/null 2>&1; then
    stackprof "$TMPD/x.stackprof.json" --text >"$TMPD/sp.txt" 2>"$TMPD/sp.err"
    ok $? "stackprof --text reads it" || diag_file "$TMPD/sp.err"
    like "$(cat "$TMPD/sp.txt")" "slow_key" "stackprof --text: slow_key"
    stackprof "$TMPD/x.stackprof.json" --method slow_key >"$TMPD/spm.txt" 2>&1
    like "$(cat "$TMPD/spm.txt")" "$SCRIPT:32" "stackprof --method slow_key: its file and line"
else
    skip 3 "stackprof not installed (Debian package ruby-stackprof)"
fi

# --- folded ---------------------------------------------------------------------
like "$(cat "$TMPD/x.folded")" ";slow_key \(pystacks.py:32\);" "folded: py-spy's form, slow_key (pystacks.py:32)"
FG=$(find / -name flamegraph.pl -path '*FlameGraph*' 2>/dev/null | head -n 1)
if [ -n "$FG" ]; then
    perl "$FG" "$TMPD/x.folded" >"$TMPD/x.svg" 2>"$TMPD/fg.err"
    ok $? "flamegraph.pl draws it" || diag_file "$TMPD/fg.err"
    like "$(cat "$TMPD/x.svg")" "slow_key \(pystacks.py:32\)" "flamegraph.pl: the frame slow_key (pystacks.py:32)"
else
    skip 2 "flamegraph.pl not found (Debian package ruby-stackprof ships it)"
fi
"$SPROFTOP" -i "$TMPD/x.folded" --python-only -o "$TMPD/again.folded"
is "$(grep -c '__clock_nanosleep' "$TMPD/again.folded")" 0 \
    "folded read back: 'name (file.py:line)' is a Python frame (--python-only keeps those alone)"

done_testing
