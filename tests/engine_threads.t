#!/usr/bin/env bash
# engine_threads.t - every thread is sampled and named: four workers give
# four "worker-N-TID" roots whose stacks end in their own spin function;
# --stats reports per thread; --no-thread-root drops the roots; threads
# created after the attach are sampled too.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets threads

start_target threads 4 || bail_out "cannot start threads"
pid=$TARGET_PID
five_threads() { [ "$(thread_count "$pid")" -ge 5 ]; }
wait_until 10 five_threads || diag "threads has $(thread_count "$pid") threads"
out=$TMPD/threads.folded

SAMPLE_EACH='worker-*' SAMPLE_THREADS=4 sample_until 100 60 -p "$pid" -F 200 --stats -o "$out"
is "$RC" 0 "sproftop --stats -o FILE exits 0"
[ "$RC" = 0 ] || diag_file "$ERR"
assert_not_stopped "$pid" "threads running and untraced afterwards"

roots=$(folded_roots "$out" | grep -E '^worker-[0-9]+-[0-9]+$')
nroots=$(printf '%s\n' "$roots" | grep -c .)
cmp_ok "$nroots" '>=' 4 "4 distinct worker-N-TID thread roots ($nroots)"

# Each worker root names a real thread of the target with that name, and
# its samples are in that worker's own spin function.
for i in 0 1 2 3; do
    root=$(printf '%s\n' "$roots" | grep -E "^worker-$i-[0-9]+$" | head -n 1)
    tid=${root##*-}
    if [ -z "$root" ]; then
        ok 1 "worker-$i has a thread root"
        skip 2 "no root for worker-$i"
        continue
    fi
    ok 0 "worker-$i has a thread root ($root)"
    is "$(cat "/proc/$pid/task/$tid/comm" 2>/dev/null)" "worker-$i" \
        "$root is thread $tid of the target, named worker-$i"
    own=$(grep -E "^$root;" "$out" | awk '{ n += $NF } END { print n + 0 }')
    mine=$(grep -E "^$root;.*;spin_worker_$i( [0-9]+|;)" "$out" | awk '{ n += $NF } END { print n + 0 }')
    pct=$(awk -v a="$mine" -v b="$own" 'BEGIN { printf "%.1f", b ? 100 * a / b : 0 }')
    cmp_ok "$pct" '>=' 90 "$root: >= 90% of its samples are in spin_worker_$i ($pct%)"
done

# --stats on stderr: mentions samples and each worker thread.
like "$ERRS" '[Ss]ample' "--stats mentions samples"
per_thread=0
for t in /proc/"$pid"/task/*; do
    tid=${t##*/}
    name=$(cat "$t/comm" 2>/dev/null)
    case $name in worker-*) ;; *) continue ;; esac
    if grep -Eq "(^|[^0-9])$tid([^0-9]|$)|$name" "$ERR"; then
        per_thread=$((per_thread + 1))
    fi
done
cmp_ok "$per_thread" '>=' 4 "--stats names each of the 4 workers (by TID or name)"
[ "$per_thread" -ge 4 ] || diag_file "$ERR"

# --no-thread-root: no thread frame at the root.
out2=$TMPD/threads-noroot.folded
SAMPLE_EACH='worker-*' sample_until 20 30 -p "$pid" -F 200 --no-thread-root -o "$out2"
is "$RC" 0 "--no-thread-root run exits 0"
cmp_ok "$(folded_total "$out2")" '>' 0 "--no-thread-root: samples collected"
n=$(folded_roots "$out2" | grep -cE '^(worker-[0-9]+|threads)-[0-9]+$')
is "$n" 0 "--no-thread-root: no stack starts with a thread frame"
cmp_ok "$(folded_count_frame "$out2" spin_worker_0)" '>' 0 "--no-thread-root: spin_worker_0 still sampled"
assert_not_stopped "$pid" "threads running and untraced after the second run"
kill_pid "$pid"

# Threads created after the attach: the workers start 1.5 s after the
# target does; sproftop attaches at once and samples until both were
# sampled 20 times each.
start_target threads 2 0 1.5 || bail_out "cannot start late threads"
pid=$TARGET_PID
note "threads before the attach: $(thread_count "$pid")"
out3=$TMPD/threads-late.folded
SAMPLE_EACH='worker-*' SAMPLE_THREADS=2 sample_until 20 30 -p "$pid" -F 200 -o "$out3"
is "$RC" 0 "late threads: sproftop exits 0"
n=$(folded_roots "$out3" | grep -cE '^worker-[01]-[0-9]+$')
is "$n" 2 "late threads: both workers created after the attach are sampled"
assert_not_stopped "$pid" "late threads: running and untraced afterwards"

done_testing
