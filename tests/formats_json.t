#!/usr/bin/env bash
# formats_json.t - what a file name's extension says, and speedscope JSON
# read back (issue 19, item 8):
#   - -o with an extension no format has is refused, before anything
#     runs, with the formats; plain .json is written as speedscope, and
#     stderr says so; -f still picks any format for any name;
#   - -i reads speedscope JSON: the golden file of FORMATS.md (made by
#     another writer than ours), and a live profile of several threads
#     written by sproftop comes back with the same stacks, counts and
#     threads (compared as folded stacks), and writes the same bytes
#     again;
#   - damaged or hostile speedscope files are one line and exit 1.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets threads

GOLDEN=$TOP/tests/formats/example.speedscope.json
NPM_PREFIX=${NPM_PREFIX:-$TOP/build/npm}

# --- file names ----------------------------------------------------------------
start_target threads 3 || bail_out "cannot start threads"
tpid=$TARGET_PID

run_sproftop -p "$tpid" -d 5 -o "$TMPD/out.xyz"
is "$RC" 2 "-o out.xyz: a usage error, before attaching"
like "$ERRS" '^sproftop: -o [^ ]*out\.xyz: no format has the extension \.xyz \(formats: folded: \.folded, pprof: \.pb\.gz, speedscope: \.speedscope\.json, .*svg: \.svg\); or give -f NAME$' \
    "it names the extension and lists every format with its extension"
assert_one_line_error "the refusal is one line"
check "nothing was written" test ! -e "$TMPD/out.xyz"

run_sproftop -i "$GOLDEN" -o "$TMPD/conv.json"
is "$RC" 0 "-i x -o conv.json exits 0"
is "$ERRS" "sproftop: -o $TMPD/conv.json: .json is taken as speedscope (racket-json: .racket.json, stackprof: .stackprof.json)" \
    "stderr says .json was taken as speedscope, and where the other JSON formats go"
like "$(head -c 200 "$TMPD/conv.json")" '"\$schema": "https://www.speedscope.app/file-format-schema.json"' \
    "conv.json is speedscope JSON"
run_sproftop -i "$GOLDEN" -o "$TMPD/conv.stackprof.json"
is "$RC:$ERRS" "0:" ".stackprof.json is stackprof's, silently"
like "$(head -c 40 "$TMPD/conv.stackprof.json")" '"version": 1\.2' "...and is stackprof JSON"
run_sproftop -i "$GOLDEN" -o "$TMPD/any.xyz" -f folded
is "$RC:$ERRS" "0:" "-f folded -o any.xyz: -f picks the format for any name"
run_sproftop -i "$GOLDEN" -o "$TMPD/plain"
is "$RC:$(head -n 1 "$TMPD/plain")" "0:main-100;main;a;b 3" "a name without an extension is folded"

# --- speedscope read back -----------------------------------------------------------
run_sproftop -i "$GOLDEN" -o - -f folded
is "$RC" 0 "the golden speedscope file of FORMATS.md loads"
is "$OUTS" "$(printf 'main-100;main;a;b 3\nmain-100;main;a;c 1\nworker-101;main;d 2')" \
    "...with its stacks, counts and threads (main tid 100, worker tid 101)"

# A live profile of three workers and a waiting main thread, as pprof.
pb=$TMPD/threads.pb.gz
sample_until 300 60 -p "$tpid" -F 200 -o "$pb"
is "$RC" 0 "a live run of threads to pprof exits 0"
kill_pid "$tpid"
for out in a.folded a.speedscope.json; do
    run_sproftop -i "$pb" -o "$TMPD/$out"
    is "$RC" 0 "-i threads.pb.gz -o $out exits 0"
done
run_sproftop -i "$TMPD/a.speedscope.json" -o "$TMPD/b.folded"
is "$RC" 0 "-i a.speedscope.json (ours) -o b.folded exits 0"
threads_in() { cut -d';' -f1 "$1" | sort -u | tr '\n' ' '; }
cmp_ok "$(threads_in "$TMPD/a.folded" | wc -w)" '>=' 3 \
    "the live profile has several threads: $(threads_in "$TMPD/a.folded")"
is "$(sort "$TMPD/b.folded")" "$(sort "$TMPD/a.folded")" \
    "speedscope -> sproftop: the same stacks, counts and threads as the pprof file"
run_sproftop -i "$TMPD/a.speedscope.json" -o "$TMPD/c.speedscope.json"
check "and written again, the same speedscope bytes" cmp "$TMPD/a.speedscope.json" "$TMPD/c.speedscope.json"
if command -v node >/dev/null 2>&1 && [ -d "$NPM_PREFIX/node_modules/ajv" ]; then
    out=$(node "$TOP/tests/formats/validate_speedscope.js" "$NPM_PREFIX" "$TMPD/a.speedscope.json" 2>&1)
    like "$out" 'valid$' "our speedscope file, with its interval key, is valid for the schema"
else
    skip 1 "node or $NPM_PREFIX/node_modules/ajv missing (make deps)"
fi

# --- damaged and hostile files -------------------------------------------------------
bad() {
    local name=$1 text=$2 want=$3
    printf '%s' "$text" >"$TMPD/$name"
    run_sproftop -i "$TMPD/$name" -o "$TMPD/bad.folded"
    is "$RC" 1 "$name: refused with exit 1"
    is "$ERRS" "sproftop: $TMPD/$name: $want" "$name: one line naming the file and why"
}
head -c 300 "$TMPD/a.speedscope.json" >"$TMPD/cut.json"
run_sproftop -i "$TMPD/cut.json" -o "$TMPD/bad.folded"
is "$RC" 1 "a cut speedscope file is refused"
like "$ERRS" "^sproftop: [^ ]*cut\.json: byte 300: " "...at the byte where it ends"
S='{"$schema": "https://www.speedscope.app/file-format-schema.json", "shared": {"frames": [{"name": "f"}]}, "profiles": '
bad index.json "$S"'[{"type": "sampled", "name": "t", "unit": "none", "startValue": 0, "endValue": 1, "samples": [[0, 5]], "weights": [1]}]}' \
    "profile 0, sample 0: a frame index is not one of the 1 frames"
bad huge.json "$S"'[{"type": "sampled", "name": "t", "unit": "none", "startValue": 0, "endValue": 1, "samples": [[0]], "weights": [1e300]}]}' \
    "profile 0, sample 0: the weight is not a whole count in range"
deep=$(printf '%*s' 100 '' | tr ' ' '[')
bad deep.json "${S}${deep}" "byte 180: nested too deep"
bad evented.json "$S"'[{"type": "evented", "name": "t", "unit": "none", "startValue": 0, "endValue": 1, "events": []}]}' \
    "profile 0: only sampled profiles are read (not evented ones)"

done_testing
