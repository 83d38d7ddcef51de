#!/usr/bin/env bash
# ui_screens.t - the TUI driven by key scripts, its screens compared with
# expected dumps (tig's test style).
#
# Each case runs `sproftop -i FIXTURE --script tests/ui/KEYS.keys` with
# curses drawing to /dev/null; every `:dump FILE` in the script writes the
# screen from curses' own buffer, every `:print FILE` the view's lines
# whole.  The dumps and prints, in script order, must equal
# tests/ui/NAME.expected.  The environment is pinned (TERM, LINES,
# COLUMNS, LC_ALL, TZ, HOME) so the screens are the same on every machine.
#
# REGEN=1 (tests/ui/regen.sh) rewrites the expected files instead: review
# the diff before committing it.
. "$(dirname "$0")/lib.sh"
require_sproftop

UI=$TOP/tests/ui
REGEN=${REGEN:-}

# Sanitizer settings survive the pinned environment (make asan).
pass_env=()
for v in ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS; do
    [ -n "${!v:-}" ] && pass_env+=("$v=${!v}")
done

# ui_run NAME KEYS FIXTURE COLS LINES LOCALE [OPTION...]: run one script
# in $TMPD/NAME (the fixture copied there, so the header's file name is
# the same everywhere).  Sets DIR and RC.  Extra environment: $UI_ENV;
# more files of tests/ui to copy there: $UI_FILES.
ui_run() {
    local name=$1 keys=$2 fix=$3 cols=$4 lines=$5 loc=$6
    shift 6
    DIR=$TMPD/$name
    mkdir -p "$DIR"
    cp "$UI/$fix" "$DIR/$fix"
    for f in ${UI_FILES:-}; do
        cp "$UI/$f" "$DIR/$f"
    done
    # and the profiles the script loads (:load FILE)
    grep '^:load ' "$UI/$keys.keys" 2>/dev/null | while read -r _ f; do
        cp "$UI/$f" "$DIR/$f"
    done
    # shellcheck disable=SC2086
    (cd "$DIR" && env -i PATH="$PATH" TERM=xterm-256color LINES="$lines" \
        COLUMNS="$cols" LC_ALL="$loc" TZ=UTC HOME="$DIR" ${UI_ENV:-} \
        "${pass_env[@]}" timeout -k 5 "$SP_TIMEOUT" "$SPROFTOP" -i "$fix" \
        --script "$UI/$keys.keys" "$@" </dev/null >"$DIR/out" 2>"$DIR/err")
    RC=$?
}

# screens NAME KEYS FIXTURE COLS LINES LOCALE [OPTION...]: run the script
# and compare its dumps with tests/ui/${EXPECT:-NAME}.expected.
screens() {
    local name=$1 keys=$2 expect=${EXPECT:-$1} f
    ui_run "$@"
    : >"$DIR/screens"
    while read -r _ f; do
        echo "=== $f" >>"$DIR/screens"
        cat "$DIR/$f" >>"$DIR/screens" 2>/dev/null || echo "(no dump)" >>"$DIR/screens"
    done < <(grep -E '^:(dump|print) ' "$UI/$keys.keys")

    is "$RC" 0 "$name: exits 0"
    is "$(head -c 2000 "$DIR/err")" "" "$name: nothing on stderr"
    if [ -n "$REGEN" ] && [ -z "${EXPECT:-}" ]; then
        cp "$DIR/screens" "$UI/$expect.expected"
        ok 0 "$name: regenerated $expect.expected"
        return
    fi
    if diff -u "$UI/$expect.expected" "$DIR/screens" >"$DIR/diff"; then
        ok 0 "$name: screens match $expect.expected"
    else
        ok 1 "$name: screens match $expect.expected"
        diag "$(head -n 80 "$DIR/diff")"
    fi
}

U8=C.UTF-8

screens tree         tree         demo.folded 80 24 "$U8"
screens first-screen first-screen demo.folded 80 24 "$U8"
screens hot-self     hot-self     pyeval.folded 80 24 "$U8"
screens pool         pool         pool.folded 80 24 "$U8"
screens tree-ascii   tree-ascii   demo.folded 80 24 C
screens inverted     inverted     demo.folded 80 24 "$U8"
screens flat         flat         demo.folded 80 24 "$U8"
screens flat-enter   flat-enter   demo.folded 80 16 "$U8"
screens callers      callers      demo.folded 80 24 "$U8"
screens callers-why  callers-why  pycall.folded 100 20 "$U8"
screens threads      threads      demo.folded 80 24 "$U8"
screens threads-order threads-order pool.folded 80 20 "$U8"
screens help         help         demo.folded 80 80 "$U8"
screens help-scroll  help-scroll  demo.folded 80 24 "$U8"
screens help-close   help-close   demo.folded 80 16 "$U8"
screens search       search       demo.folded 80 24 "$U8"
screens search-feedback search-feedback demo.folded 80 20 "$U8"
screens search-hidden search-hidden pyeval.folded 80 24 "$U8"
screens search-procs search-procs allprocs.folded 80 24 "$U8"
screens focus        focus        demo.folded 80 24 "$U8"
screens python       python       python.folded 100 30 "$U8"
screens thresholds   thresholds   demo.folded 80 24 "$U8"
screens hidden-rows  hidden-rows  demo.folded 80 24 "$U8"
screens small        small        demo.folded 10 5 "$U8"
screens prompt       prompt       demo.folded 80 24 "$U8"
screens prompt-replace prompt-replace demo.folded 80 20 "$U8"
screens file-actions file-actions demo.folded 80 24 "$U8"
screens deep         deep         deep.folded 80 24 "$U8"
screens deep-tree    deep-tree    deep-tree.folded 80 24 "$U8"
screens deep-tree-200 deep-tree deep-tree.folded 200 30 "$U8"
screens source       source       demo.folded 80 24 "$U8"
UI_FILES=prog.c screens source-scroll source-scroll example.pb.gz 80 14 "$U8"
screens source-missing source-missing example.pb.gz 80 12 "$U8"
screens annotate-nomodule annotate-nomodule example.pb.gz 80 12 "$U8"
screens load         load         demo.folded 80 30 "$U8"
screens wide         tree         demo.folded 120 40 "$U8"
screens names        names        cxx.pb.gz 80 16 "$U8"

# Issue 13: the recent window and time ranges on a profile with sample
# times; pin and diff against --baseline; the flame graph.
screens window       window       timed.pb.gz 80 24 "$U8"
is "$(awk '{ n += $NF } END { print n }' "$DIR/range.folded" 2>/dev/null)" 60 \
    "window: s saved the range on screen (60 samples), not the whole file"
UI_FILES=demo.folded screens diff diff demo-later.folded 80 24 "$U8" \
    --baseline demo.folded
screens flame        flame        hot.folded 80 24 "$U8"
# flame_width N: the columns of frame hot_N on flame.1's row of hot frames,
# from its name to its edge mark.
flame_width() {
    W=$1 perl -CS -ne 'if (/hot_sixty/) { /(hot_$ENV{W}.*?\x{258f})/ and
        print length($1), "\n"; exit }' <"$DIR/flame.1" 2>/dev/null
}
w60=$(flame_width sixty)
w10=$(flame_width ten)
ok "$(awk -v a="${w60:-0}" -v b="${w10:-0}" \
    'BEGIN { exit !(b > 0 && a / b >= 5.5 && a / b <= 6.5) }'; echo $?)" \
    "flame: hot_sixty ($w60 columns) is about six times as wide as hot_ten ($w10)"
check "flame: zooming in and back out gives the same screen" \
    cmp -s "$DIR/flame.2" "$DIR/flame.5"

# Options: thresholds from the command line show in the header and hide
# more; colour off (option or NO_COLOR) draws the same characters.
screens options      flat         demo.folded 80 24 "$U8" --hide-self 5 --hide-subs 10
EXPECT=tree screens tree-no-color tree demo.folded 80 24 "$U8" --no-color
EXPECT=tree UI_ENV=NO_COLOR=1 screens tree-NO_COLOR tree demo.folded 80 24 "$U8"

# Save: the typed name is written with the newest data, as folded stacks
# equal to the fixture (its extension picks the format); a bad directory
# gives a message, not an exit.  The message names the file from "~".
screens save save demo.folded 80 24 "$U8"
check "save: the snapshot file exists" test -s "$DIR/out.folded"
is "$(sort "$DIR/out.folded")" "$(sort "$UI/demo.folded")" \
    "save: the snapshot holds the fixture's stacks"

# as_folded FILE: a saved profile converted back to folded stacks, sorted.
as_folded() {
    "$SPROFTOP" -i "$1" -o "$1.folded" >/dev/null 2>&1 && sort "$1.folded"
}

# The default name: sproftop-COMM-PID-YYYYmmdd-HHMMSS.EXT in --snapshot-dir
# (relative here, so the prompt shows it whole at 80 columns), in pprof,
# the richest format -i reads back.
mkdir -p "$TMPD/save-default/snaps"
ui_run save-default save-default demo.folded 80 24 "$U8" --snapshot-dir snaps
is "$RC" 0 "save-default: exits 0"
like "$(sed -n '23p' "$DIR/save-default.1" 2>/dev/null)" \
    '^Save as pprof \(Tab: format\): snaps/sproftop-demo-0-[0-9]{8}-[0-9]{6}\.pb\.gz$' \
    "save-default: the prompt offers the default name in --snapshot-dir, in pprof"
saved=$(ls "$DIR/snaps" 2>/dev/null)
like "$saved" '^sproftop-demo-0-[0-9]{8}-[0-9]{6}\.pb\.gz$' \
    "save-default: Enter writes the default name"
like "$(sed -n '23p' "$DIR/save-default.2" 2>/dev/null)" \
    '^saved 1000 samples as pprof to ~/snaps/sproftop-demo-0-' \
    "save-default: the message line reports the samples, the format and the full path"
is "$(as_folded "$DIR/snaps/$saved")" "$(sort "$UI/demo.folded")" \
    "save-default: the file reads back as the fixture's stacks"

# Saving the view (issue 12.9) and the extension's format (12.3).
ui_run save-view save-view demo.folded 80 24 "$U8"
is "$RC" 0 "save-view: exits 0"
msg() { sed -n '23p' "$DIR/save-view.$1" 2>/dev/null; }
like "$(msg 1)" '^Save view as pprof \(Up: all; Tab: format\): [a-z]*ftop-demo-0-[0-9-]+\.pb\.gz$' \
    "save-view: with a focus the prompt offers the view, in pprof (the name scrolled)"
is "$(msg 2)" "saved 615 samples of the view (focus hash_chunk) as pprof to ~/view.pb.gz" \
    "save-view: the message says what was saved, how, and where"
is "$(as_folded "$DIR/view.pb.gz" | grep -vc ';hash_chunk ')" 0 \
    "save-view: the view's file holds only stacks through hash_chunk"
is "$(as_folded "$DIR/view.pb.gz" | awk '{ n += $NF } END { print n }')" 615 \
    "save-view: ...all 615 of them"
like "$(msg 3)" '^Save all as pprof \(Up: view; Tab: format\): ' \
    "save-view: Up switches to every sample"
is "$(msg 4)" "Save all as folded (Up: view; Tab: format): all.folded" \
    "save-view: typing a .folded name switches the format to folded"
is "$(msg 5)" "saved 1000 samples as folded to ~/all.folded" "save-view: all samples saved"
is "$(sort "$DIR/all.folded" 2>/dev/null)" "$(sort "$UI/demo.folded")" \
    "save-view: the file holds every stack, as folded"
like "$(msg 6)" '^Save as dot \(Tab: format\): sproftop-demo-0-[0-9-]+\.dot$' \
    "save-view: no focus, no view to choose; folded was used last, BackTab x2: dot"
is "$(msg 7)" "Save as sampler (Tab: format): snap1.sampler" \
    "save-view: typing snap1.sampler over dot picks sampler"
is "$(msg 8)" "saved 1000 samples as sampler to ~/snap1.sampler" \
    "save-view: saved as sampler"
is "$(head -c 17 "$DIR/snap1.sampler" 2>/dev/null)" "@supersamplerV1.0" \
    "save-view: the file is a sampler file, which -i reads back"
is "$(as_folded "$DIR/snap1.sampler" | awk '{ n += $NF } END { print n }')" 1000 \
    "save-view: ...with every sample"

# The name's extension (issue 19, item 8): .json is speedscope, and says
# so; an extension no format has is refused, with the formats.
ui_run save-json save-json demo.folded 200 24 "$U8"
is "$RC" 0 "save-json: exits 0"
msg() { sed -n '23p' "$DIR/save-json.$1" 2>/dev/null | sed 's/ *$//'; }
is "$(msg 1)" "Save as speedscope (Tab: format): py.json" \
    "save-json: typing py.json picks speedscope"
is "$(msg 2)" "saved 1000 samples as speedscope to ~/py.json; .json is taken as speedscope (racket-json: .racket.json, stackprof: .stackprof.json)" \
    "save-json: the message says .json was taken for speedscope"
is "$(as_folded "$DIR/py.json")" "$(sort "$UI/demo.folded")" \
    "save-json: the file is speedscope JSON that -i reads back as the fixture"
is "$(msg 3)" "Save as speedscope (Tab: format): out.xyz" \
    "save-json: out.xyz leaves the format alone while typed"
like "$(msg 4)" '^nothing saved: out\.xyz: no format has the extension \.xyz \(formats: folded: \.folded, pprof: \.pb\.gz, speedscope: ' \
    "save-json: Enter refuses it, listing the formats"
check "save-json: nothing was written to out.xyz" test ! -e "$DIR/out.xyz"

# A call graph without stacks (issue 28): flat and callers filled, the
# other views and f say it holds a call graph, s offers racket-json.
screens graph        graph        example.racket.json 80 24 "$U8"
ui_run graph-save graph-save example.racket.json 80 24 "$U8"
like "$(sed -n '23p' "$DIR/graph-save.1" 2>/dev/null)" \
    '^Save as racket-json \(Tab: format\): [a-z]*ftop-example-0-[0-9-]+\.racket\.json$' \
    "graph-save: s offers racket-json first for a call graph"
like "$(sed -n '23p' "$DIR/graph-save.2" 2>/dev/null)" '^saved 6 samples as racket-json to ~/sproftop-example-0-' \
    "graph-save: ...and saves it"

# Several processes (issue 14): process roots, J, the processes view and
# its filter over the tree and flat views.
screens procs        procs        procs.folded 80 24 "$U8"
screens procs-order  procs-order  procs.folded 80 16 "$U8"
screens procs-exited procs-exited exited.folded 80 24 "$U8"
screens procs-merged procs-merged procs.folded 80 24 "$U8"
UI_FILES=procs.folded screens procs-diff procs-diff procs-later.folded 80 20 "$U8" \
    --baseline procs.folded
ui_run procs-save procs-save procs.folded 80 24 "$U8"
is "$RC" 0 "procs-save: exits 0"
like "$(sed -n '23p' "$DIR/procs-save.1" 2>/dev/null)" \
    '^saved 310 samples of the view \(process redis \(pid 200\)\) as folded to ~/redis' \
    "procs-save: the message names the process"
is "$(sort "$DIR/redis.folded" 2>/dev/null)" "$(grep '^redis-' "$UI/procs.folded" | sort)" \
    "procs-save: the file holds the redis process's stacks, and only them"
is "$(awk '{ n += $NF } END { print n }' "$DIR/nginx.folded" 2>/dev/null)" 690 \
    "procs-save: with J, the view of nginx is its three processes' 690 samples"
like "$(sed -n '23p' "$DIR/procs-save.2" 2>/dev/null)" \
    '^saved 690 samples of the view \(process nginx \(3 processes\)\) as folded' \
    "procs-save: ...and the message says it holds three processes"

# Kernel frames and off-CPU reasons (issue 21): the [k] tag in every
# view, K, z, and each thread's time by reason.
screens kernel kernel kernel.folded 120 30 "$U8"

# The refresh interval has one range, -r's and d's (issue 12.10).
screens refresh-range refresh-range demo.folded 80 20 "$U8" -r 3600
run_sproftop -i "$UI/demo.folded" -r 3601
is "$RC" 2 "-r 3601: a usage error"
like "$ERRS" "expected 0\.1\.\.3600 seconds" "-r 3601: the range is d's: 0.1..3600"

# Bad scripts: one line on stderr, exit 2, before the screen is touched.
printf '<Down>\n<Nope>\n' >"$TMPD/bad.keys"
run_sproftop -i "$UI/demo.folded" --script "$TMPD/bad.keys"
is "$RC" 2 "unknown key name: exit 2"
assert_one_line_error "unknown key name: one-line error"
like "$ERRS" 'bad\.keys:2: unknown key <Nope>' "unknown key name: says where"
printf ':frobnicate\n' >"$TMPD/bad2.keys"
run_sproftop -i "$UI/demo.folded" --script "$TMPD/bad2.keys"
is "$RC" 2 "unknown script command: exit 2"
like "$ERRS" 'bad2\.keys:1: unknown command :frobnicate' "unknown command: says where"
run_sproftop -i "$UI/demo.folded" --script "$TMPD/missing.keys"
is "$RC" 2 "missing script: exit 2"
assert_one_line_error "missing script: one-line error"

# :print writes the view's lines whole (the tree's every row, its guides
# unclipped); a view without rows (the flame graph) fails the run.
screens print        print        deep.folded 80 24 "$U8"
printf '6\n:print %s/flame.txt\n' "$TMPD" >"$TMPD/printflame.keys"
TERM=xterm-256color run_sproftop -i "$UI/demo.folded" --script "$TMPD/printflame.keys"
is "$RC" 1 ":print of the flame graph: exit 1"
like "$ERRS" ':print: the Flame view has no rows to print' ":print of the flame graph: says why"

# A dump that cannot be written fails the run (exit 1) after quitting.
printf ':dump %s/no/such/dir/x\n' "$TMPD" >"$TMPD/baddump.keys"
TERM=xterm-256color run_sproftop -i "$UI/demo.folded" --script "$TMPD/baddump.keys"
is "$RC" 1 "unwritable dump: exit 1"
like "$ERRS" 'cannot write screen dump' "unwritable dump: says so"

# So does a profile that cannot be loaded.
printf ':load %s/missing.folded\n' "$TMPD" >"$TMPD/badload.keys"
TERM=xterm-256color run_sproftop -i "$UI/demo.folded" --script "$TMPD/badload.keys"
is "$RC" 1 "unloadable :load: exit 1"
like "$ERRS" ':load: .*missing\.folded' "unloadable :load: says which file"

done_testing
