#!/usr/bin/env bash
# perf_idle_pythreads.t - --idle on a Python process whose threads come
# and go (issue 26: found by the ASan soak).
#
# tests/targets/pysleepers.py runs a pool of four threads at a time, each
# sleeping 10 ms in nap() and exiting: hundreds of threads that leave the
# CPU inside Python code and are gone.  sproftop --idle (perf, which reads
# the Python frames of each off-CPU stretch) samples it to its end:
# it exits 0 and the target runs to its end; --stats saw hundreds of
# threads, so the sampler's table dropped many of them; the stretches are
# there, under nap's line and the sleep reason.  Under the ASan pass
# (make asan runs perf_*.t) LeakSanitizer checks at sproftop's exit that
# nothing a dropped thread held is left: each kept the Python stack of
# its last stretch, 2.2 KB, which the table's compaction did not free
# (1,163 blocks, 2.5 MB, for 4 s of this target before the fix).
. "$(dirname "$0")/lib.sh"
require_sproftop
require_python

[ "$(id -u)" = 0 ] || skip_all "needs root (the Python frames of --idle's stretches are read by a BPF program)"
"$SPROFTOP" --version | grep -q '^sampler with --idle: auto picks perf' ||
    skip_all "perf_event cannot sample context switches here"
SP_TIMEOUT=40

start_script py "$PY" "$TOP/tests/targets/pysleepers.py" 4
py=$SCRIPT_PID
run_sproftop --sampler perf --idle -F 500 -p "$py" --stats -o "$TMPD/py.folded"
is "$RC" 0 "sproftop --idle -p exits 0 when the target ends"
[ "$RC" = 0 ] || diag_file "$ERR"
wait_exit "$py" 20
is "$(tail -n 1 "$TMPD/py.out")" "done" "the target runs to its end"
unlike "$(cat "$ERR")" 'LeakSanitizer|AddressSanitizer|runtime error' \
    "no sanitizer report at exit (nothing of a dropped thread left)"
seen=$(sed -n 's/^threads: [0-9]* live, \([0-9]*\) seen.*/\1/p' "$ERR")
cmp_ok "${seen:-0}" '>=' 200 "--stats saw the pool's threads come and go (${seen:-0})"
naps=$(awk '{ s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";")
              if (f[k] == "[off-CPU: sleep]" && s ~ /;nap \(pysleepers\.py:[0-9]+\);/) n += $NF }
            END { printf "%d", n }' "$TMPD/py.folded")
cmp_ok "$naps" '>' 0 "the threads' sleeps are under nap's Python line and the sleep reason"

done_testing
