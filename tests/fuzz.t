#!/usr/bin/env bash
# fuzz.t - the libFuzzer targets of every reader (tests/fuzz/fuzz_*.c):
# replay every saved input of tests/fuzz/regress/NAME/ (past crashes,
# timeouts and broken invariants), then fuzz each target for FUZZ_SECONDS
# (default 6: make test stays within its time; `make fuzz`
# runs each for 60 s) from the seeds in tests/fuzz/corpus/NAME/, as many
# targets at once as there are CPUs.  A crash, a
# sanitizer report, a timeout or a broken round trip fails the test and
# leaves the input in $BUILD/fuzz/crash-NAME-*: copy it to
# tests/fuzz/regress/NAME/ once fixed.
#
# Needs clang with its libFuzzer runtime (Debian: clang,
# libclang-rt-14-dev); skipped with the reason otherwise.
. "$(dirname "$0")/lib.sh"

FUZZ_SECONDS=${FUZZ_SECONDS:-6}
# UBSan reports with their stack, so a failure says where.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
CLANG=${FUZZ_CC:-clang}

command -v "$CLANG" >/dev/null 2>&1 ||
    skip_all "$CLANG not installed (apt-get install clang libclang-rt-14-dev)"
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' \
    >"$TMPD/probe.c"
"$CLANG" -fsanitize=fuzzer,address,undefined -o "$TMPD/probe" "$TMPD/probe.c" \
    >"$TMPD/probe.log" 2>&1 ||
    skip_all "$CLANG cannot link libFuzzer with ASan/UBSan (apt-get install libclang-rt-14-dev)"

cd "$TOP" || bail_out "no source tree"
names=()
for f in tests/fuzz/fuzz_*.c; do
    n=${f#tests/fuzz/fuzz_}
    names+=("${n%.c}")
done
# Every reader has a target: src/formats/load_NAME.c -> tests/fuzz/fuzz_NAME.c.
for f in src/formats/load_*.c; do
    n=${f#src/formats/load_}
    n=${n%.c}
    check "reader $n has a fuzz target" test -f "tests/fuzz/fuzz_$n.c"
done
# ...and so does every reader of what a target or the kernel hands over
# (src/frames/): its memory, its symbol tables.
for pair in "src/frames/pyread.c pyframes" "src/frames/ksyms.c kallsyms"; do
    set -- $pair
    [ -f "$1" ] || continue
    check "reader $1 has a fuzz target (fuzz_$2)" test -f "tests/fuzz/fuzz_$2.c"
done

make --no-print-directory -j"$(nproc 2>/dev/null || echo 1)" -f tests/fuzz/fuzz.mk BUILD="$BUILD" FUZZ_CC="$CLANG" \
    fuzz-build >"$TMPD/build.log" 2>&1
ok $? "fuzz targets build (make -f tests/fuzz/fuzz.mk fuzz-build)" ||
    diag "$(tail -20 "$TMPD/build.log")"

case $BUILD in
    /*) fdir=$BUILD/fuzz ;;
    *) fdir=$TOP/$BUILD/fuzz ;;
esac
opts=(-timeout=10 -rss_limit_mb=2048 -max_len=65536)

# fuzz_one NAME: fuzz NAME for FUZZ_SECONDS; its status in $TMPD/rc-NAME
fuzz_one() {
    "$fdir/fuzz_$1" "${opts[@]}" -max_total_time="$FUZZ_SECONDS" \
        -artifact_prefix="$fdir/crash-$1-" \
        "$fdir/corpus/$1" "tests/fuzz/corpus/$1" >"$TMPD/fuzz-$1.log" 2>&1
    echo $? >"$TMPD/rc-$1"
}

# The saved inputs first, one target after another; then the fuzzing,
# as many targets at a time as there are CPUs (each for FUZZ_SECONDS of
# wall time), their results told in order.
jobs_max=$(nproc 2>/dev/null || echo 1)
fuzzed=()
for n in "${names[@]}"; do
    bin=$fdir/fuzz_$n
    if [ ! -x "$bin" ]; then
        continue
    fi
    inputs=(tests/fuzz/regress/"$n"/*)
    if [ -e "${inputs[0]}" ]; then
        "$bin" "${opts[@]}" "${inputs[@]}" >"$TMPD/regress-$n.log" 2>&1
        ok $? "fuzz_$n: ${#inputs[@]} saved regression inputs pass" ||
            diag "$(grep -E 'ERROR|SUMMARY|runtime error|Running|^ +#[0-5] ' \
                "$TMPD/regress-$n.log" | head -12)"
    else
        skip 1 "fuzz_$n: no saved regression inputs"
    fi
    mkdir -p "$fdir/corpus/$n"
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
        wait -n
    done
    fuzz_one "$n" &
    fuzzed+=("$n")
done
wait
for n in "${names[@]}"; do
    [ -x "$fdir/fuzz_$n" ] || skip 2 "fuzz_$n was not built"
done
for n in "${fuzzed[@]}"; do
    ok "$(cat "$TMPD/rc-$n" 2>/dev/null || echo 1)" \
        "fuzz_$n: ${FUZZ_SECONDS} s of fuzzing finds nothing" ||
        diag "$(grep -E 'ERROR|SUMMARY|runtime error|Test unit written|^ +#[0-5] ' \
            "$TMPD/fuzz-$n.log" | head -12)"
    note "fuzz_$n: $(grep -E '^Done [0-9]+ runs' "$TMPD/fuzz-$n.log" | tail -1)"
done

done_testing
