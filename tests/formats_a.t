#!/usr/bin/env bash
# formats_a.t - pprof, callgrind and speedscope files from real sampled
# targets, read back by their real consumers:
#   - go tool pprof (-raw, -top, -tagfocus on the thread labels) agrees
#     with the folded export of the same profile on sample counts,
#     function names and threads;
#   - sproftop -i x.pb.gz -o again.pb.gz gives the same bytes;
#   - callgrind_annotate's self and inclusive numbers equal the folded
#     counts of the same profile;
#   - speedscope files validate against the schema of the npm package
#     speedscope (ajv), with one profile per thread.
# Every number comes from one profile exported twice (pprof, then
# `-i x.pb.gz -o x.folded`), so the comparisons are exact.  A consumer
# whose tool is missing is skipped with the reason (make deps installs
# golang-go, valgrind, nodejs and the npm packages).
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets split threads cxx

NPM_PREFIX=${NPM_PREFIX:-$TOP/build/npm}
export HOME=$TMPD/home GOCACHE=$TMPD/gocache PPROF_TMPDIR=$TMPD/pprof
mkdir -p "$HOME"

have_go=0
command -v go >/dev/null 2>&1 && go tool pprof -h >/dev/null 2>&1 && have_go=1
have_cga=0
command -v callgrind_annotate >/dev/null 2>&1 && have_cga=1
have_ss=0
command -v node >/dev/null 2>&1 && [ -d "$NPM_PREFIX/node_modules/ajv" ] &&
    [ -f "$NPM_PREFIX/node_modules/speedscope/dist/release/file-format-schema.json" ] &&
    have_ss=1
why_go="go tool pprof not installed (apt-get install golang-go)"
why_cga="callgrind_annotate not installed (apt-get install valgrind)"
why_ss="node or $NPM_PREFIX/node_modules/{ajv,speedscope} missing (make deps)"

# cga_mismatches TEXT COUNT FOLDED: the functions of callgrind_annotate's
# "N<TAB>function" rows in TEXT whose N is not what `COUNT FOLDED function`
# says, one line each; nothing when all agree.
cga_mismatches() {
    printf '%s\n' "$1" | while IFS=$'\t' read -r n f; do
        [ "$f" = "PROGRAM TOTALS" ] && continue
        w=$("$2" "$3" "$f")
        [ "$n" = "$w" ] || echo "$f: callgrind $n, folded $w"
    done
}

# ss_valid FILE [WHAT]: speedscope's schema checked on $TMPD/FILE by node
# (its report noted, and kept in $v), one test that it is valid, WHAT
# naming the file.
ss_valid() {
    v=$(node "$TOP/tests/formats/validate_speedscope.js" "$NPM_PREFIX" \
        "$TMPD/$1" 2>&1)
    note "$v"
    like "$v" '^valid$' "${2:-$1} validates against speedscope's schema"
}

# folded_self FILE NAME: samples whose leaf is NAME.
folded_self() {
    awk -v name="$2" '
        { c = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";")
          if (f[k] == name) n += c }
        END { printf "%d\n", n }' "$1"
}

# folded_root_total FILE ROOT: samples under thread root frame ROOT.
folded_root_total() {
    awk -v root="$2" '
        { c = $NF; s = $0; sub(/ [0-9]+$/, "", s); split(s, f, ";")
          if (f[1] == root) n += c }
        END { printf "%d\n", n }' "$1"
}

# pprof_raw_total FILE: the sum of the samples/count column of -raw.
pprof_raw_total() {
    go tool pprof -raw "$1" 2>/dev/null | awk '
        /^Samples:/ { in_s = 1; next }
        /^Locations/ { in_s = 0 }
        in_s && /^ +[0-9]+ +[0-9]+: / { n += $1 }
        END { printf "%d\n", n }'
}

# pprof_top FILE ARGS...: -top in sample counts, nothing dropped.
pprof_top() {
    local f=$1
    shift
    go tool pprof -top -sample_index=samples -nodefraction=0 \
        -nodecount=100000 "$@" "$f" 2>/dev/null
}

# top_col TEXT NAME COL: column COL (1 flat, 4 cum) of NAME's -top row.
top_col() {
    printf '%s\n' "$1" | awk -v name="$2" -v col="$3" '
        NF >= 6 && $6 == name && $1 ~ /^[0-9]+$/ { print $col; found = 1 }
        END { if (!found) print 0 }'
}

# top_shown TEXT: N of "Showing nodes accounting for N, ...".
top_shown() {
    printf '%s\n' "$1" | sed -n 's/^Showing nodes accounting for \([0-9]*\),.*/\1/p'
}

# cga FILE YES|NO: callgrind_annotate's function table as
# "COUNT<TAB>FUNCTION" (thousands separators removed), and
# "TOTAL<TAB>PROGRAM TOTALS".  Only the table: no source annotation.
# It runs in TMPD: callgrind_annotate strips the current directory from
# fl= file names but not from cfl= ones, so from the source tree a
# function of tests/targets/*.c would be listed twice.
cga() {
    (cd "$TMPD" && callgrind_annotate --inclusive="$2" --threshold=100 \
        --auto=no "$1") 2>/dev/null | awk '
        / PROGRAM TOTALS/ { gsub(",", "", $1); print $1 "\tPROGRAM TOTALS"; next }
        /file:function/ { table = 1; next }
        table && /^$/ { table = 0 }
        table && /^ *[0-9,]+ \( *[0-9.]+%\)  / {
            n = $1; gsub(",", "", n)
            s = $0; sub(/^ *[0-9,]+ \( *[0-9.]+%\)  /, "", s)
            # the object; a kernel function is named as folded names it
            k = sub(/ \[\[kernel\.kallsyms\]\]$/, "", s)
            sub(/ \[[^]]*\]$/, "", s)
            i = index(s, ":"); s = substr(s, i + 1)  # the file
            print n "\t" s (k ? "_[k]" : "") }'
}

# cga_get TABLE NAME: the count of function NAME in a cga table.
cga_get() {
    printf '%s\n' "$1" | awk -F'\t' -v name="$2" '
        $2 == name { print $1; found = 1 } END { if (!found) print 0 }'
}

# --- one run of split: pprof straight from the live target -------------------
start_target split || bail_out "cannot start split"
spid=$TARGET_PID
pb=$TMPD/split.pb.gz
sample_until 700 60 -p "$spid" -F 500 -o "$pb" -f pprof
is "$RC" 0 "split: sproftop -p PID -F 500 -o x.pb.gz -f pprof exits 0"
[ "$RC" = 0 ] || diag_file "$ERR"
kill_pid "$spid"
split_stops=$STOPS
is "$(head -c 2 "$pb" | od -An -tx1 | tr -d ' ')" 1f8b "the pprof file is gzip"

# The same profile in the other formats, through the reader.
for out in split.folded split.callgrind split.speedscope.json again.pb.gz; do
    run_sproftop -i "$pb" -o "$TMPD/$out"
    is "$RC" 0 "sproftop -i split.pb.gz -o $out exits 0"
    [ "$RC" = 0 ] || diag_file "$ERR"
done
check "save -> load -> save gives the same pprof bytes" cmp "$pb" "$TMPD/again.pb.gz"
run_sproftop -i "$TMPD/again.pb.gz" -o "$TMPD/again2.pb.gz" -f pprof
check "and once more, with -f pprof" cmp "$pb" "$TMPD/again2.pb.gz"

# Damaged files: one line naming the file and the byte, non-zero exit.
head -c 100 "$pb" >"$TMPD/cut.pb.gz"
run_sproftop -i "$TMPD/cut.pb.gz" -o "$TMPD/cut.folded"
isnt "$RC" 0 "a cut pprof file is refused"
assert_one_line_error "one line of error for a cut pprof file"
like "$ERRS" "cut\.pb\.gz: byte [0-9]+: truncated gzip data" \
    "the error names the file, the byte and the problem"
gzip -dc "$pb" | head -c 200 >"$TMPD/cut.pb"
run_sproftop -i "$TMPD/cut.pb" -o "$TMPD/cut.folded"
# (a cut that falls between two fields leaves a well-formed message that
# has no string table yet: then that is the problem at that byte)
like "$ERRS" "cut\.pb: byte [0-9]+: (length runs past the end of the message|truncated varint|no string table)" \
    "a cut raw profile.proto: the byte where it breaks ($ERRS)"
assert_one_line_error "one line of error for a cut raw profile"

fd=$TMPD/split.folded
total=$(folded_total "$fd")
cmp_ok "$total" '>=' 500 "split: at least 500 samples from $split_stops stops (got $total)"
note "split: $total samples; func_a $(folded_count_frame "$fd" func_a)," \
     "main $(folded_count_frame "$fd" main)," \
     "work_unit self $(folded_self "$fd" work_unit)"

# --- go tool pprof on split --------------------------------------------------
if [ "$have_go" = 1 ]; then
    raw=$(go tool pprof -raw "$pb" 2>&1)
    note "$(printf '%s\n' "$raw" | head -12)"
    is "$(pprof_raw_total "$pb")" "$total" "go tool pprof -raw: sample count = folded total"
    for f in main func_a func_b func_c work_unit; do
        like "$raw" " $f /" "go tool pprof -raw lists function $f with its file"
    done
    like "$raw" "thread_name:\[split\]" "-raw: samples carry thread_name split"
    like "$raw" "thread_id:\[$spid\]" "-raw: samples carry thread_id $spid"
    like "$raw" "Comment: pid: $spid" "-raw: comment with the PID"
    like "$raw" "Comment: cmdline: [^ ]*/split" "-raw: comment with the command line"
    like "$raw" "Period: [0-9]+" "-raw: the sampling period"
    top=$(pprof_top "$pb")
    note "$(printf '%s\n' "$top" | sed -n '/flat%/,$p' | head -8)"
    is "$(top_shown "$top")" "$total" "go tool pprof -top: total = folded total"
    for f in main func_a func_b func_c work_unit; do
        is "$(top_col "$top" "$f" 4)" "$(folded_count_frame "$fd" "$f")" \
            "go tool pprof -top: cum of $f = folded count"
    done
    is "$(top_col "$top" work_unit 1)" "$(folded_self "$fd" work_unit)" \
        "go tool pprof -top: flat of work_unit = folded self"
    top=$(pprof_top "$pb" -tagfocus=thread_name=split)
    is "$(top_shown "$top")" "$total" "-tagfocus=thread_name=split keeps every sample"
    top=$(pprof_top "$pb" -tagfocus=thread_name=nosuchthread)
    is "$(top_shown "$top")" "0" "-tagfocus=thread_name=nosuchthread keeps none"
else
    skip 20 "$why_go"
fi

# --- callgrind_annotate on split ---------------------------------------------
if [ "$have_cga" = 1 ]; then
    cg=$TMPD/split.callgrind
    incl=$(cga "$cg" yes)
    excl=$(cga "$cg" no)
    note "$(printf '%s\n' "$incl" | head -8)"
    is "$(cga_get "$incl" "PROGRAM TOTALS")" "$total" \
        "callgrind_annotate: program total = folded total"
    for f in main func_a func_b func_c work_unit "split-$spid"; do
        is "$(cga_get "$incl" "$f")" "$(folded_count_frame "$fd" "$f")" \
            "callgrind_annotate --inclusive=yes: $f = folded count"
    done
    is "$(cga_get "$excl" work_unit)" "$(folded_self "$fd" work_unit)" \
        "callgrind_annotate --inclusive=no: work_unit = folded self"
    # Every function it lists, not only the ones we name.
    is "$(cga_mismatches "$incl" folded_count_frame "$fd")" "" \
        "callgrind_annotate: every function's inclusive = folded count"
    is "$(cga_mismatches "$excl" folded_self "$fd")" "" \
        "callgrind_annotate: every function's self = folded self"
else
    skip 10 "$why_cga"
fi

# --- speedscope on split -----------------------------------------------------
if [ "$have_ss" = 1 ]; then
    ss_valid split.speedscope.json
    is "$(printf '%s\n' "$v" | grep -c '^profile ')" 1 "one profile for the one thread"
else
    skip 2 "$why_ss"
fi

# --- threads: labels and one profile per thread --------------------------------
start_target threads 3 || bail_out "cannot start threads"
tpid=$TARGET_PID
all_started() { [ "$(thread_count "$tpid")" -ge 4 ]; }
wait_until 5 all_started
tpb=$TMPD/threads.pb.gz
SAMPLE_EACH='worker-*' SAMPLE_THREADS=3 sample_until 100 60 -p "$tpid" -F 500 -o "$tpb"
is "$RC" 0 "threads: sproftop -o threads.pb.gz (format from the suffix) exits 0"
[ "$RC" = 0 ] || diag_file "$ERR"
kill_pid "$tpid"
tfd=$TMPD/threads.folded
run_sproftop -i "$tpb" -o "$tfd"
is "$RC" 0 "threads: converted to folded"
run_sproftop -i "$tpb" -o "$TMPD/threads.speedscope.json"
is "$RC" 0 "threads: converted to speedscope"
roots=$(folded_roots "$tfd")
note "threads: roots $(echo $roots)"

if [ "$have_go" = 1 ]; then
    raw=$(go tool pprof -raw "$tpb" 2>&1)
    is "$(pprof_raw_total "$tpb")" "$(folded_total "$tfd")" \
        "threads: go tool pprof -raw sample count = folded total"
    for i in 0 1 2; do
        root=$(printf '%s\n' "$roots" | grep "^worker-$i-" | head -1)
        tid=${root##*-}
        like "$raw" "thread_name:\[worker-$i\]" "-raw: label thread_name worker-$i"
        like "$raw" "thread_id:\[$tid\]" "-raw: label thread_id $tid"
        top=$(pprof_top "$tpb" "-tagfocus=thread_name=^worker-$i\$")
        is "$(top_shown "$top")" "$(folded_root_total "$tfd" "$root")" \
            "-tagfocus=thread_name=worker-$i: samples = folded $root"
        is "$(top_col "$top" "spin_worker_$i" 1)" \
            "$(folded_self "$tfd" "spin_worker_$i")" \
            "-tagfocus=thread_name=worker-$i shows spin_worker_$i's samples"
        others=$(printf '%s\n' "$top" | grep -c "spin_worker_[^$i]")
        is "$others" 0 "-tagfocus=thread_name=worker-$i shows no other worker"
    done
else
    skip 16 "$why_go"
fi

if [ "$have_ss" = 1 ]; then
    ss_valid threads.speedscope.json
    is "$(printf '%s\n' "$v" | grep -c '^profile ')" "$(printf '%s\n' "$roots" | wc -l)" \
        "one speedscope profile per thread"
    # Weights are count x interval: the same ratio for every thread.
    ratio=$(( $(printf '%s\n' "$v" | awk -F'\t' '/^profile /{ w += $4 } END { printf "%.0f", w }') /
              $(folded_total "$tfd") ))
    cmp_ok "$ratio" '>' 0 "speedscope weights are nanoseconds (x$ratio per sample)"
    bad=$(printf '%s\n' "$v" | awk -F'\t' '/^profile /' | while IFS=$'\t' read -r name unit n w; do
        name=${name#profile }
        root="${name% (tid *}-${name##*(tid }"
        root=${root%)}
        want=$(( $(folded_root_total "$tfd" "$root") * ratio ))
        [ "$w" = "$want" ] && [ "$unit" = nanoseconds ] ||
            echo "$name: $unit $w, want $want"
    done)
    is "$bad" "" "each thread's speedscope weight = its folded samples x interval"
else
    skip 4 "$why_ss"
fi

# --- C++ names, written straight from live runs --------------------------------
start_target cxx || bail_out "cannot start cxx"
cpid=$TARGET_PID
for out in "callgrind.out.cxx (format from the prefix)" cxx.speedscope.json \
           cxx.pb.gz; do
    sample_until 300 30 -p "$cpid" -F 500 -o "$TMPD/${out%% *}"
    is "$RC" 0 "cxx: -o $out exits 0"
done
kill_pid "$cpid"
run_sproftop -i "$TMPD/cxx.pb.gz" -o "$TMPD/cxx.folded"
run_sproftop -i "$TMPD/cxx.pb.gz" -o "$TMPD/cxx.callgrind"
op='sprof::Accumulate::operator()(double const*, double const*, unsigned long, unsigned long) const'
mul='sprof::Matrix<double>::multiply(sprof::Matrix<double> const&, sprof::Matrix<double> const&)'
if [ "$have_cga" = 1 ]; then
    incl=$(cga "$TMPD/callgrind.out.cxx" yes)
    like "$(cga_get "$incl" "$op")" '^[1-9][0-9]*$' \
        "callgrind_annotate reads the operator() name whole"
    excl=$(cga "$TMPD/callgrind.out.cxx" no)
    is "$(printf '%s\n' "$excl" | awk -F'\t' '$2 != "PROGRAM TOTALS" { n += $1 } END { print n + 0 }')" \
        "$(cga_get "$excl" "PROGRAM TOTALS")" "callgrind.out.cxx: self costs add up to the summary"
    incl=$(cga "$TMPD/cxx.callgrind" yes)
    is "$(cga_get "$incl" "$op")" "$(folded_count_frame "$TMPD/cxx.folded" "$op")" \
        "callgrind_annotate: operator() inclusive = folded count"
    is "$(cga_get "$incl" "$mul")" "$(folded_count_frame "$TMPD/cxx.folded" "$mul")" \
        "callgrind_annotate: Matrix<double>::multiply inclusive = folded count"
else
    skip 4 "$why_cga"
fi
if [ "$have_go" = 1 ]; then
    raw=$(go tool pprof -raw "$TMPD/cxx.pb.gz" 2>&1)
    like "$raw" 'sprof::Matrix<double>::multiply\(sprof::Matrix<double> const&, sprof::Matrix<double> const&\)' \
        "go tool pprof shows the template method name whole"
    like "$raw" 'sprof::Accumulate::operator\(\)\(double const\*' \
        "go tool pprof shows operator() whole"
else
    skip 2 "$why_go"
fi
if [ "$have_ss" = 1 ]; then
    ss_valid cxx.speedscope.json "cxx.speedscope.json (live)"
    check "cxx.speedscope.json holds the operator() name" \
        grep -qF '"sprof::Accumulate::operator()(double const*' "$TMPD/cxx.speedscope.json"
else
    skip 2 "$why_ss"
fi

done_testing
