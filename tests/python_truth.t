#!/usr/bin/env bash
# python_truth.t - the Python ground truth (issue 22, item 3), on both
# backends, on an idle machine and with two CPU hogs.
#
# pyhot.py spends 60%, 30% and 10% of its main thread's CPU in py_sixty,
# py_thirty and py_ten, in calls of a few milliseconds, and writes its own
# record: each function's share and the start of every call
# (CLOCK_MONOTONIC).  sproftop attaches once it runs (-p) and samples it
# to its end:
#   - each function's share of the samples is within 5 points of the
#     target's own;
#   - every sample of the main thread reaches <module>, and none keeps
#     an eval frame without its Python frames (the samples of the
#     interpreter's shutdown, once <module> has returned, have none);
#     on perf each sample's walk is matched by its own time stamp;
#   - tests/tools/pyaccuracy runs the same sampler and matches each
#     sample's Python leaf with the function the log says ran at the
#     sample's time: at least 90% agree (the perf backend reads the
#     frames in the sampling interrupt; read at the drain instead, up to
#     200 ms later, they agree about 45% of the time: make bench).
. "$(dirname "$0")/lib.sh"
require_sproftop
require_python
ACC=$TOOLS/pyaccuracy
[ -x "$ACC" ] || skip_all "$ACC not built: make targets"
SP_TIMEOUT=60

# one run: backend $1 under load $2
one_run() {
    local b=$1 load=$2
    hot_run "$b" "$load" "$PY" pyhot.py py_sixty py_thirty py_ten
    # the main thread's samples: those with Python frames all reach
    # <module>; the others (the interpreter's shutdown once <module>
    # has returned, with no Python frame to read) kept no eval frame
    # whose Python frames went missing
    read -r all module none evals < <(awk -v t="python3-$pid;" '
        index($0, t) == 1 { c = $NF
            if ($0 ~ /\(pyhot\.py:[0-9]+\)/) {
                a += c; if (index($0, ";<module> (pyhot.py:1)")) m += c
            } else { n += c; if (index($0, "_PyEval_EvalFrameDefault")) e += c } }
        END { printf "%d %d %d %d\n", a, m, n, e }' "$f")
    is "$module" "$all" "$b, $load: every sample of the main thread reaches <module> ($module of $all)" ||
        diag "$(grep 'pyhot.py' "$f" | grep -v '<module> (pyhot.py:1)' | head -n 3)"
    is "$evals" 0 "$b, $load: no sample kept an eval frame without its Python frames ($none without Python frames: the shutdown)" || {
        diag "$(grep -E '^(python|perf):' <<<"$ERRS")"
        diag "$(grep -F "python3-$pid;" "$f" | grep -v '(pyhot\.py:' | grep -F _PyEval_EvalFrameDefault | head -n 3)"
    }
    bpf_match_check "$b"
    # the accuracy: the Python leaf against the target's own record
    out=$("$ACC" --sampler "$b" -F 1000 --log "$TMPD/acc.$b.$load.log" -- \
        "$PY" "$TOP/tests/targets/pyhot.py" --cpu 1.0 --log "$TMPD/acc.$b.$load.log" 2>&1)
    acc=$(awk '$1 == "accuracy" { print $2 }' <<<"$out")
    note "$b, $load: $(grep -E '^(accuracy|module)' <<<"$out" | tr '\n' ' ')"
    cmp_ok "${acc:-0}" '>=' 90 "$b, $load: ${acc:-?}% of the samples name the function running then"
}

hot_loads one_run

done_testing
