#!/usr/bin/env bash
# kernel_frames.t - kernel frames on the perf backend (issue 21, items 1,
# 2 and 5), as root:
#
#   1. readzero, a read() loop on /dev/zero, sampled by sproftop and by
#      `perf record -g` in the same run: each kernel function's share of
#      the samples, as the leaf and anywhere in the stack, is within 3
#      points of perf's; the kernel's call chain stands above the user
#      frame that made the call (kernel_copy -> read ->
#      entry_SYSCALL_64... -> read_zero), every kernel frame tagged _[k];
#   2. --no-kernel: no kernel frame, the time is the caller's, and
#      --stats says why;
#   3. the pprof export keeps them: its [kernel.kallsyms] mapping (as
#      `go tool pprof` reads it) and sproftop's reader give them back;
#   4. -a: kernel threads (and interrupt work) under one [kernel] process,
#      while a thread that fdatasync()s makes the journal's and the block
#      layer's threads work.
# About 20 s.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/reliability/rel.sh"
require_sproftop
require_targets readzero waits

[ "$(id -u)" = 0 ] || skip_all "needs root (kernel samples of every process)"
"$SPROFTOP" --version | grep -q '^kernel frames on' ||
    skip_all "no kernel frames here: $("$SPROFTOP" --version | tail -n 1)"
PERF=${PERF:-/usr/bin/perf}

SP_TIMEOUT=40

# perf_shares DATA T0 T1: "self|incl NAME PERCENT" for every kernel
# function of perf.data's samples taken between T0 and T1
# (CLOCK_MONOTONIC seconds, perf record -k CLOCK_MONOTONIC): as the leaf,
# and anywhere in the call chain.
perf_shares() {
    "$PERF" script -i "$1" -F time,ip,sym,dso 2>/dev/null | awk -v t0="$2" -v t1="$3" '
        BEGIN { RS = "" }
        { k = split($0, line, "\n"); t = line[1]; sub(/:.*/, "", t); t += 0
          if (t < t0 || t > t1) next
          n++; delete seen; first = 1
          for (i = 2; i <= k; i++) {
              if (line[i] !~ /\(\[kernel\.kallsyms\]\)/) { first = 0; continue }
              split(line[i], w, " "); sym = w[2]; sub(/\+0x.*/, "", sym)
              if (first) self[sym]++
              first = 0
              if (!(sym in seen)) { seen[sym] = 1; incl[sym]++ } } }
        END { for (s in self) printf "self %s %.2f\n", s, 100 * self[s] / n
              for (s in incl) printf "incl %s %.2f\n", s, 100 * incl[s] / n }'
}

# sp_shares FOLDED: the same from sproftop's folded file (kernel frames
# end in _[k]).
sp_shares() {
    awk '
        { c = $NF; t += c; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";")
          delete seen
          if (f[k] ~ /_\[k\]$/) { x = f[k]; sub(/_\[k\]$/, "", x); self[x] += c }
          for (i = 1; i <= k; i++)
              if (f[i] ~ /_\[k\]$/) { x = f[i]; sub(/_\[k\]$/, "", x)
                                      if (!(x in seen)) { seen[x] = 1; incl[x] += c } } }
        END { for (s in self) printf "self %s %.2f\n", s, 100 * self[s] / t
              for (s in incl) printf "incl %s %.2f\n", s, 100 * incl[s] / t }' "$1"
}

# --- 1. against perf record -g --------------------------------------------------
start_target readzero || bail_out "cannot start readzero"
rz=$TARGET_PID
if "$PERF" record -q -o "$TMPD/probe.data" -e cpu-clock -- true >/dev/null 2>&1; then
    # Both sample the same stretch of readzero, sproftop at 3,999 Hz and
    # perf at 3,989 (at one rate, the two timers keep one phase between
    # them for the whole run, and the shares differed by up to 3.8
    # points, user_sum's most, in 1 run of 8; 10 Hz apart, the phase
    # walks through every offset 50 times in 5 s: at most 1.3 in 18), until
    # sproftop has 20,000 samples (however long a loaded machine makes
    # that take): two independent shares of 60% then differ by
    # sqrt(2 x 0.6 x 0.4 / 20000) = 0.5 point (one standard deviation),
    # and 3 points is 6 of them.  (At 5,000 samples, 3 points was 3 of
    # them, and a run in a few hundred failed by chance alone.)
    spawn timeout -s INT 120 "$PERF" record -q -k CLOCK_MONOTONIC -e cpu-clock -F 3989 -g -p "$rz" \
        -o "$TMPD/perf.data" >"$TMPD/perf.out" 2>&1
    perf_pid=$SPAWN_PID
    wait_until 10 test -s "$TMPD/perf.data"
    # perf's samples are compared over the stretch sproftop's own samples
    # span, from --stats (both stamp them by CLOCK_MONOTONIC), not from
    # when the test saw it attached to when it was told to end: a second
    # more at either end moves the shares if the loop's mix changes
    # (readzero's read sizes are random for that reason: its fixed loop
    # seen at a fixed rate moved read_zero's share by 5 points from one
    # second to the next, and failed this test in 2 runs of 6)
    sample_until 20000 90 --sampler perf -p "$rz" -F 3999 --stats -o "$TMPD/rz.folded"
    is "$RC" 0 "readzero: sproftop exits 0"
    kill -INT "$perf_pid" # timeout(1) hands it to perf record
    wait_exit "$perf_pid" 30 || diag "perf record did not end"
    span=$(sed -n 's/^samples taken: from \([0-9.]*\) to \([0-9.]*\) s .*/\1 \2/p' "$ERR")
    like "$span" '^[0-9]+\.[0-9]+ [0-9]+\.[0-9]+$' \
        "readzero: --stats says when the first and last sample were taken"
    set -- $span
    t0=${1:-$SAMPLE_T0} t1=${2:-$SAMPLE_T1}
    cmp_ok "$(awk -v a="$t0" -v b="$SAMPLE_T0" 'BEGIN { print (a <= b + 1) }')" '==' 1 \
        "readzero: ...the first before the test saw sproftop attached"
    note "perf's samples from $t0 to $t1 (CLOCK_MONOTONIC s)"
    perf_shares "$TMPD/perf.data" "$t0" "$t1" | sort >"$TMPD/perf.shares"
    # (for a failure below: the two profilers' counts, and what sproftop
    # lost, which would leave its samples a biased part of the stretch;
    # a diag, as prove shows notes only when verbose)
    counts="readzero: sproftop $(grep '^samples:' "$ERR"), $(folded_total "$TMPD/rz.folded") in the file"
    note "$counts"
    sp_shares "$TMPD/rz.folded" | sort >"$TMPD/sp.shares"
    # every kernel function of 2% (leaf) or 5% (anywhere) in either
    join -a1 -a2 -e 0 -o 0,1.2,2.2 <(awk '{ print $1 ":" $2, $3 }' "$TMPD/perf.shares") \
        <(awk '{ print $1 ":" $2, $3 }' "$TMPD/sp.shares") >"$TMPD/both"
    awk '{ split($1, a, ":"); lim = a[1] == "self" ? 2 : 5
           if ($2 >= lim || $3 >= lim) print }' "$TMPD/both" >"$TMPD/compared"
    n=$(line_count "$TMPD/compared")
    cmp_ok "$n" '>=' 3 "readzero: at least 3 kernel functions to compare"
    while read -r what p s; do
        d=$(awk -v p="$p" -v s="$s" 'BEGIN { d = s - p; printf "%.2f", d < 0 ? -d : d }')
        note "readzero: ${what/:/ } perf $p%, sproftop $s%"
        cmp_ok "$d" '<=' 3 "readzero: ${what/:/ } within 3 points of perf record -g ($s% vs $p%)" ||
            diag "$counts"
    done <"$TMPD/compared"
    # with what it calls: a kernel may clear in read_zero itself or in
    # a helper (6.18: rep_stos_alternative, 58% of its own; read_zero 8)
    cmp_ok "$(awk '$1 == "incl:read_zero" { print int($3) }' "$TMPD/compared")" '>=' 20 \
        "readzero: read_zero, with what it calls, is a large share (it clears the buffer)"
else
    skip 6 "perf record does not work here"
fi
chain=$(folded_count_chain "$TMPD/rz.folded" kernel_copy __libc_read \
    'entry_SYSCALL_64_after_hwframe_[k]' 'do_syscall_64_[k]')
cmp_ok "$chain" '>' 0 "readzero: kernel_copy -> __libc_read -> [k] entry_SYSCALL_64_after_hwframe -> [k] do_syscall_64"
is "$(awk '{ s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";")
             for (i = 1; i < k; i++) if (f[i] ~ /_\[k\]$/ && f[i + 1] !~ /_\[k\]$/) print }' \
        "$TMPD/rz.folded" | head -3)" "" \
    "readzero: kernel frames only above the user stack, never below it"
like "$(grep '^kernel:' "$ERR")" '^kernel: frames on; [1-9][0-9]* stacks with kernel frames' \
    "readzero: --stats counts the stacks with kernel frames"

# --- 2. --no-kernel ----------------------------------------------------------------
run_sproftop --sampler perf -p "$rz" -F 499 -d 1 --no-kernel --stats -o "$TMPD/nok.folded"
is "$RC" 0 "--no-kernel: exit 0"
is "$(grep -c '_\[k\]' "$TMPD/nok.folded")" 0 "--no-kernel: no kernel frame"
like "$(grep '^kernel:' "$ERR")" '^kernel: kernel frames off \(--no-kernel\)' \
    "--no-kernel: --stats says why there are none"
cmp_ok "$(folded_count_chain "$TMPD/nok.folded" kernel_copy __libc_read)" '>' \
    "$(($(folded_total "$TMPD/nok.folded") / 4))" \
    "--no-kernel: the kernel's time is the caller's (kernel_copy -> __libc_read)"

# --- 3. pprof ------------------------------------------------------------------------
run_sproftop --sampler perf -p "$rz" -F 499 -d 1 -o "$TMPD/rz.pb.gz"
is "$RC" 0 "pprof: exit 0"
run_sproftop -i "$TMPD/rz.pb.gz" -o "$TMPD/back.folded"
cmp_ok "$(folded_count_frame "$TMPD/back.folded" 'read_zero_[k]')" '>' 0 \
    "pprof: read back, read_zero is a kernel function again"
if command -v go >/dev/null && go tool pprof -raw "$TMPD/rz.pb.gz" >"$TMPD/raw" 2>&1; then
    like "$(sed -n '/^Mappings/,$p' "$TMPD/raw")" '\[kernel\.kallsyms\]' \
        "pprof: go tool pprof lists the [kernel.kallsyms] mapping"
else
    skip 1 "go tool pprof is not installed"
fi
kill_pid "$rz"

# --- 4. -a: kernel threads ---------------------------------------------------------------
mkdir -p "$TMPD/disk"
spawn "$TARGETS/waits" 30 "$TMPD/disk" "$TMPD/waits.rep" >"$TMPD/waits.out" 2>&1
waits=$SPAWN_PID
run_sproftop -a -F 999 -d 3 --stats -o "$TMPD/all.folded"
is "$RC" 0 "-a: exit 0"
kthreads=$(awk '{ s = $0; sub(/ [0-9]+$/, "", s); split(s, f, ";")
                  if (f[1] == "[kernel]-4194304") print f[2] }' "$TMPD/all.folded" | sort -u)
note "-a: kernel threads sampled: $(echo $kthreads)"
isnt "$kthreads" "" "-a: kernel threads and interrupt work under one [kernel] process"
is "$(awk '{ s = $0; sub(/ [0-9]+$/, "", s); split(s, f, ";")
             if (f[1] ~ /^\[kernel\]/ && s ~ /;[^;]*[^]]$/ && s !~ /_\[k\]$/) print }' \
        "$TMPD/all.folded" | head -3)" "" "-a: their stacks are kernel frames"
like "$(grep '^kernel threads (-a):' "$ERR")" 'samples of kernel threads' \
    "-a: --stats counts them, and the idle loop left out"
cmp_ok "$(folded_count_substr "$TMPD/all.folded" 'fdatasync')" '>' 0 \
    "-a: the fdatasync thread's own stacks are under its process"
kill_pid "$waits"

done_testing
