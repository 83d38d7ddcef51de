#!/usr/bin/env bash
# tests/bench/run.sh - sproftop's benchmarks; rewrites docs/PERFORMANCE.md.
#
# Every figure is a ratio measured side by side in this run: slowdowns come
# from interleaved windows with and without a profiler attached to the same
# running fixed-work target, whose progress is read from shared memory (the
# target is never stopped or signalled by the driver).  Each measurement is
# repeated (REPS, default 5) and reported as median and min-max.
#
#   tests/bench/run.sh            (make bench builds what it needs first)
#   REPS=3 WIN=1 tests/bench/run.sh   quicker, noisier
set -u
cd "$(dirname "$0")/../.."
TOP=$PWD
BUILD=${BUILD:-build}
B=$TOP/$BUILD/bench
SP=$TOP/sproftop
REPS=${REPS:-5}
WIN=${WIN:-1}          # seconds per window
OUT=${OUT:-docs/PERFORMANCE.md}
TMP=$(mktemp -d /tmp/sproftop-bench.XXXXXX)
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill -CONT "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

have_perf=1
perf record -q -F 99 -g -o "$TMP/probe.data" -- true >/dev/null 2>&1 || have_perf=0

log() { printf '%s\n' "$*" >&2; }

# median and min-max of numbers on stdin: "MED (MIN-MAX)"
stats() {
    sort -g | awk '{v[NR]=$1} END {if (!NR) {print "n/a"; exit}
        m = NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2;
        printf "%.3f (%.3f-%.3f)", m, v[1], v[NR]}'
}
median() { sort -g | awk '{v[NR]=$1} END {if (!NR) {print "nan"; exit} m = NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2; print m}'; }

start_spin() { # BIN PROGRESS BUSY BLOCKED
    "$1" "$2" "$3" "$4" & PIDS+=($!)
    SPIN=$!
    sleep 0.3
}
stop_spin() { kill -KILL "$SPIN" 2>/dev/null; wait "$SPIN" 2>/dev/null; }

# CPU time of all threads of a process, ns (schedstat: exact, unlike ticks)
tcpu() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{s += $1} END {printf "%.0f\n", s}'; }
now() { date +%s.%N; }

# total work units done so far by the spin target
units() { od -An -t u8 -w64 -v "$1" | awk '{s += $1} END {printf "%d\n", s}'; }

# one on/off pair: prints "WALL CPU": off_rate/on_rate, the slowdown, and
# the target's CPU time per unit of work with the profiler ÷ without it,
# which other jobs on the machine do not blur (they change the target's
# share of the CPUs, not what a unit costs it).  $@ = profiler command
# (runs for 0.4 + WIN + 0.3 s).
pair() {
    local prog=$1; shift
    local a b c d ca cb cc cd
    a=$(units "$prog"); ca=$(tcpu "$SPIN"); sleep "$WIN"; b=$(units "$prog"); cb=$(tcpu "$SPIN")
    "$@" >/dev/null 2>&1 &
    local tool=$!
    sleep 0.4
    c=$(units "$prog"); cc=$(tcpu "$SPIN"); sleep "$WIN"; d=$(units "$prog"); cd=$(tcpu "$SPIN")
    wait "$tool"
    awk -v off=$((b - a)) -v on=$((d - c)) -v coff="$(awk -v x="$cb" -v y="$ca" 'BEGIN {print x - y}')" \
        -v con="$(awk -v x="$cd" -v y="$cc" 'BEGIN {print x - y}')" \
        'BEGIN {printf "%.4f %.4f\n", on ? off / on : 0, (on && off && coff > 0) ? (con / on) / (coff / off) : 0}'
}

tool_cmd() { # TOOL HZ PID -> command words
    local secs
    secs=$(awk -v w="$WIN" 'BEGIN {print w + 0.7}')
    case $1 in
    sp-perf) echo "$SP --sampler perf -p $3 -F $2 -d $secs -o $TMP/s.folded" ;;
    sp-ptrace) echo "$SP --sampler ptrace -p $3 -F $2 -d $secs -o $TMP/s.folded" ;;
    sp-perf-8k) echo "$SP --sampler perf --stack-size 8192 -p $3 -F $2 -d $secs -o $TMP/s.folded" ;;
    sp-perf-16k) echo "$SP --sampler perf --stack-size 16384 -p $3 -F $2 -d $secs -o $TMP/s.folded" ;;
    sp-perf-32k) echo "$SP --sampler perf --stack-size 32768 -p $3 -F $2 -d $secs -o $TMP/s.folded" ;;
    sp-perf-64k) echo "$SP --sampler perf --stack-size 65528 -p $3 -F $2 -d $secs -o $TMP/s.folded" ;;
    sproftop-follow) echo "env SPROFTOP_PLACEMENT=follow SPROFTOP_SPIN_US=0 $SP --sampler ptrace -p $3 -F $2 -d $secs -o $TMP/s.folded" ;;
    sproftop-nospin) echo "env SPROFTOP_SPIN_US=0 $SP --sampler ptrace -p $3 -F $2 -d $secs -o $TMP/s.folded" ;;
    perf-dwarf) echo "perf record -q -F $2 --call-graph dwarf -p $3 -o $TMP/p.data -- sleep $secs" ;;
    perf-fp) echo "perf record -q -F $2 --call-graph fp -p $3 -o $TMP/p.data -- sleep $secs" ;;
    esac
}

# slowdown TOOL HZ BIN BUSY -> "median (min-max)" over REPS pairs; the
# tools of one row are interleaved.  HOGS extra CPU-bound processes run
# meanwhile (key suffix .hN).
declare -A SLOW CSLOW
slowdown_row() { # BIN BUSY HZ TOOLS...
    local bin=$1 busy=$2 hz=$3; shift 3
    local prog=$TMP/progress hogs=() h key
    for ((h = 0; h < ${HOGS:-0}; h++)); do
        "$B/spin" "$TMP/hog$h" 1 0 & PIDS+=($!); hogs+=($!)
    done
    start_spin "$bin" "$prog" "$busy" 0
    local r t
    for ((r = 0; r < REPS; r++)); do
        for t in "$@"; do
            # shellcheck disable=SC2046
            pair "$prog" $(tool_cmd "$t" "$hz" "$SPIN") >>"$TMP/pair.$t.$hz.$(basename "$bin").$busy.h${HOGS:-0}"
        done
    done
    stop_spin
    for h in "${hogs[@]}"; do kill -KILL "$h" 2>/dev/null; wait "$h" 2>/dev/null; done
    for t in "$@"; do
        key=$t.$hz.$(basename "$bin").$busy.h${HOGS:-0}
        SLOW[$key]=$(awk '{print $1}' "$TMP/pair.$key" | stats)
        CSLOW[$key]=$(awk '$2 > 0 {print $2}' "$TMP/pair.$key" | stats)
    done
}


# cpu_run SECS ARGS...: sproftop ARGS for SECS s with --stats; prints
# "SHARE US_PER_SAMPLE SAMPLES_PER_S": its steady-state CPU (all threads,
# from 1.5 s to SECS - 0.5 s: start-up and the final write left out) as a
# share of one core, per sample, and the sample rate.
cpu_run() {
    local secs=$1; shift
    "$SP" "$@" -d "$secs" --stats -o "$TMP/c.folded" 2>"$TMP/c.err" >/dev/null &
    local sp=$!
    sleep 1.5
    local c0 t0 c1 t1
    c0=$(tcpu $sp); t0=$(now)
    sleep "$(awk -v s="$secs" 'BEGIN {print s - 2}')"
    c1=$(tcpu $sp); t1=$(now)
    wait $sp
    [ "$c1" -gt "$c0" ] 2>/dev/null || return 0 # it did not run through
    awk -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" \
        -v n="$(awk '/^samples:/ {print $2}' "$TMP/c.err")" \
        -v el="$(sed -n 's/^sproftop stats: PID [0-9]*, \([0-9.]*\) s.*/\1/p' "$TMP/c.err")" \
        'BEGIN { w = t1 - t0; rate = el > 0 ? n / el : 0;
                 per = rate > 0 ? (c1 - c0) / 1e3 / (rate * w) : 0
                 printf "%.5f %.2f %.1f\n", (c1 - c0) / 1e9 / w, per, rate }'
}

cores=$(nproc)
log "bench: $cores cores, REPS=$REPS, WIN=${WIN}s, perf: $([ $have_perf = 1 ] && echo yes || echo no)"

# --- 1. single thread, 28 frames: slowdown vs perf --------------------------
tools=(sp-perf sp-ptrace)
[ $have_perf = 1 ] && tools+=(perf-dwarf perf-fp)
for bin in "$B/spin" "$B/spin_nofp"; do
    for hz in 100 1000 5000; do
        log "1. slowdown $(basename "$bin") ${hz} Hz: ${tools[*]}"
        slowdown_row "$bin" 1 "$hz" "${tools[@]}"
    done
done
log "1b. the same at 1 kHz with two CPU-bound processes beside"
for bin in "$B/spin" "$B/spin_nofp"; do
    HOGS=2 slowdown_row "$bin" 1 1000 "${tools[@]}"
done
log "1c. ptrace placement alternatives at 1000 Hz"
slowdown_row "$B/spin" 1 1000 sproftop-follow sproftop-nospin

# --- 2. cost per sample -----------------------------------------------------
log "2. per-sample cost at 1000 Hz"
: >"$TMP/cpu_sp"; : >"$TMP/cpu_rtt"; : >"$TMP/stop_sp"; : >"$TMP/p99_sp"; : >"$TMP/stop_rtt"; : >"$TMP/ratio"
: >"$TMP/whole.perf"; : >"$TMP/whole.ptrace"; : >"$TMP/share.perf"; : >"$TMP/share.ptrace"; : >"$TMP/share.top"
start_spin "$B/spin" "$TMP/progress" 1 0
for ((r = 0; r < REPS; r++)); do
    "$SP" --sampler ptrace -p "$SPIN" -F 1000 -d 2 -o "$TMP/s.folded" --stats 2>"$TMP/st" >/dev/null
    sp_cpu=$(sed -n 's/^tracer CPU: .*, \([0-9.]*\) us per sample.*/\1/p' "$TMP/st")
    sp_stop=$(sed -n 's/^target stop time per sample: median \([0-9.]*\) us, p99 \([0-9.]*\) us.*/\1/p' "$TMP/st")
    sp_p99=$(sed -n 's/^target stop time per sample: median \([0-9.]*\) us, p99 \([0-9.]*\) us.*/\2/p' "$TMP/st")
    [ $r = 0 ] && cp "$TMP/st" "$TMP/stats_1k"
    rt=$("$B/rtt" "$SPIN" 2000 1000)
    rt_cpu=$(echo "$rt" | awk '{print $4}')
    rt_stop=$(echo "$rt" | awk '{print $6}')
    echo "$sp_cpu" >>"$TMP/cpu_sp"; echo "$rt_cpu" >>"$TMP/cpu_rtt"
    echo "$sp_stop" >>"$TMP/stop_sp"; echo "$sp_p99" >>"$TMP/p99_sp"; echo "$rt_stop" >>"$TMP/stop_rtt"
    awk -v a="$sp_cpu" -v b="$rt_cpu" 'BEGIN {printf "%.3f\n", (b > 0 ? a / b : 0)}' >>"$TMP/ratio"
    for b in perf ptrace; do
        per=
        read -r share per rate < <(cpu_run 7 --sampler $b -p "$SPIN" -F 1000)
        [ -n "$per" ] && { echo "$per" >>"$TMP/whole.$b"; echo "$share" >>"$TMP/share.$b"; }
        [ $r = 0 ] && [ $b = perf ] && cp "$TMP/c.err" "$TMP/stats_1k_perf"
    done
    if [ $have_perf = 1 ]; then
        # perf top needs a stdin that stays open (at EOF it spins)
        (sleep 9 | sh -c 'echo $$ >"$1"; exec timeout 8 perf top --stdio --call-graph dwarf -F 1000 -p "$2" -d 2' \
            sh "$TMP/ptop.pid" "$SPIN" >"$TMP/ptop.out" 2>/dev/null) &
        ptj=$!
        sleep 1.5
        ptp=$(pgrep -P "$(cat "$TMP/ptop.pid")" | head -n 1)
        c0=$(tcpu "$ptp"); t0=$(now); sleep 5; c1=$(tcpu "$ptp"); t1=$(now)
        wait $ptj
        awk -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" 'BEGIN {printf "%.5f\n", (c1 - c0) / 1e9 / (t1 - t0)}' >>"$TMP/share.top"
        [ $r = 0 ] && cp "$TMP/ptop.out" "$TMP/ptop.keep"
    fi
done
stop_spin

# --- 3. 8 busy threads on 2 CPUs: samples per second of thread CPU time ------
# rate_run TOOL HZ PID: samples taken per second of the target's CPU time
rate_run() {
    local c0 c1 n
    c0=$(tcpu "$3")
    case $1 in
    perf-record)
        perf record -q -F "$2" --call-graph dwarf -p "$3" -o "$TMP/r.data" -- sleep 2 >/dev/null 2>&1
        c1=$(tcpu "$3")
        n=$(perf report -D -i "$TMP/r.data" 2>/dev/null | grep -c 'PERF_RECORD_SAMPLE(') ;;
    *)
        "$SP" --sampler "${1#sp-}" -p "$3" -F "$2" -d 2 --stats -o "$TMP/r.folded" 2>"$TMP/r.err" >/dev/null
        c1=$(tcpu "$3")
        n=$(awk '/^samples:/ {print $2}' "$TMP/r.err") ;;
    esac
    awk -v n="${n:-0}" -v c="$((c1 - c0))" 'BEGIN {printf "%.1f\n", (c > 0 ? n / (c / 1e9) : 0)}'
}
declare -A RATE
rtools=(sp-perf sp-ptrace)
[ $have_perf = 1 ] && rtools+=(perf-record)
for hz in 100 1000; do
    log "3. 8 threads at $hz Hz: ${rtools[*]}"
    start_spin "$B/spin" "$TMP/progress8" 8 0
    for ((r = 0; r < REPS; r++)); do
        for t in "${rtools[@]}"; do rate_run "$t" "$hz" "$SPIN" >>"$TMP/rate.$t.$hz"; done
    done
    stop_spin
    for t in "${rtools[@]}"; do RATE[$t.$hz]=$(stats <"$TMP/rate.$t.$hz"); done
    slowdown_row "$B/spin" 8 "$hz" sp-perf sp-ptrace
done

# --- 4. 64 threads, 60 blocked: the cost of idle threads --------------------
log "4. 4 busy + 60 blocked threads at 100 Hz"
declare -A IDLE
start_spin "$B/spin" "$TMP/progress64" 4 60
for b in perf ptrace; do
    for mode in default idle; do
        : >"$TMP/share.$b.$mode"; : >"$TMP/bstops.$b.$mode"; : >"$TMP/reused.$b.$mode"
        for ((r = 0; r < REPS; r++)); do
            flag=; [ $mode = idle ] && flag=--idle
            share=
            read -r share per rate < <(cpu_run 5 --sampler $b -p "$SPIN" -F 100 $flag)
            [ -n "$share" ] && echo "$share" >>"$TMP/share.$b.$mode"
            sed -n 's/.*stops \([0-9]*\) (\([0-9]*\) of blocked threads).*/\2/p' "$TMP/c.err" >>"$TMP/bstops.$b.$mode"
            sed -n 's/^samples: [0-9]* (\([0-9]*\) reused.*/\1/p' "$TMP/c.err" >>"$TMP/reused.$b.$mode"
        done
        IDLE[share.$b.$mode]=$(stats <"$TMP/share.$b.$mode")
        IDLE[bstops.$b.$mode]=$(stats <"$TMP/bstops.$b.$mode")
        IDLE[reused.$b.$mode]=$(stats <"$TMP/reused.$b.$mode")
    done
done
stop_spin

# --- 5. aggregate ingest, RSS, TUI redraw -------------------------------------
log "5. aggregate and TUI"
: >"$TMP/ingest"; : >"$TMP/rss"
for ((r = 0; r < REPS; r++)); do
    "$B/bench_profile" ingest >"$TMP/ing"
    awk '{print $4}' "$TMP/ing" >>"$TMP/ingest"
    awk '{print $10}' "$TMP/ing" >>"$TMP/rss"
done
nodes=$(awk '{print $8}' "$TMP/ing")
"$B/bench_profile" folded "$TMP/big.folded" 100000
big_nodes=$(awk -F';' '{n += NF} END {print n}' "$TMP/big.folded")
: >"$TMP/redraw"
printf 'E\n' >"$TMP/k0"
{ printf 'E\n'; for ((i = 0; i < 50; i++)); do printf ':refresh\n'; done; } >"$TMP/k50"
for ((r = 0; r < REPS; r++)); do
    t0=$(date +%s.%N); TERM=xterm-256color LINES=40 COLUMNS=120 "$SP" -i "$TMP/big.folded" --script "$TMP/k0" >/dev/null 2>&1; t1=$(date +%s.%N)
    TERM=xterm-256color LINES=40 COLUMNS=120 "$SP" -i "$TMP/big.folded" --script "$TMP/k50" >/dev/null 2>&1; t2=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {printf "%.3f\n", ((c - b) - (b - a)) / 50 * 1000}' >>"$TMP/redraw"
done

# --- 6. symbolization ---------------------------------------------------------
sym_line=$(grep '^symbols:' "$TMP/stats_1k")

# --- 7. perf stack copy size ----------------------------------------------------
log "7. stack copy sizes"
SIZES="4096 8192 16384 32768 65528"
# trunc_row NAME CMD...: % of samples cut short by the copy, per size
declare -A TRUNC
trunc_row() {
    local name=$1 sz; shift
    "$@" >/dev/null 2>&1 &
    local p=$!; PIDS+=($p)
    sleep 1
    for sz in $SIZES; do
        "$SP" --sampler perf --stack-size $sz -p $p -F 500 -d 1.5 --stats -o "$TMP/t.folded" 2>"$TMP/t.err" >/dev/null
        TRUNC["$name.$sz"]=$(awk '/^unwind:/ {for (i = 1; i <= NF; i++) if ($i == "stack-copy") c = $(i + 1)}
            /^samples:/ {n = $2} END {printf "%.1f%%", n ? 100 * c / n : 0}' "$TMP/t.err")
    done
    kill -KILL $p 2>/dev/null; wait $p 2>/dev/null
}
trunc_row "recurse (300 frames)" "$TOP/$BUILD/targets/recurse"
trunc_row "deep (28 frames, C)" "$TOP/$BUILD/targets/deep"
trunc_row "cxx (C++)" "$TOP/$BUILD/targets/cxx"
command -v python3 >/dev/null && trunc_row python3 python3 -c 'def f(n):
    if n == 0:
        while True: pass
    return f(n - 1)
f(50)'
command -v perl >/dev/null && trunc_row perl perl -e 'sub f { my $n = shift; if ($n == 0) { while (1) {} } f($n - 1) } f(50)'
command -v node >/dev/null && trunc_row node node -e 'function f(n) { if (n == 0) { for (;;) {} } return f(n - 1) } f(50)'
command -v ruby >/dev/null && trunc_row ruby ruby -e 'def f(n); if n == 0 then loop {} end; f(n - 1); end; f(50)'
log "7b. slowdown by stack copy size at 5 kHz"
slowdown_row "$B/spin" 1 5000 sp-perf-8k sp-perf-16k sp-perf-32k sp-perf-64k

# --- 8. signal delivery delay ---------------------------------------------------
log "8. signal delivery delay"
SPROFTOP=$SP REPS=$REPS tests/bench/sigdelay.sh "$BUILD" >"$TMP/sigdelay.md"

# --- report -------------------------------------------------------------------
met() { awk -v v="$1" -v lim="$2" -v op="$3" 'BEGIN {if (v !~ /^[0-9.]+$/ || lim !~ /^[0-9.]+$/) {print "not measured"; exit}
    ok = op == "le" ? v <= lim : v >= lim; print ok ? "met" : "**missed**"}'; }
m() { echo "$1" | awk '{print $1}'; }
bn() { [ "$1" = spin ] && echo 'frame pointers' || echo 'no frame pointers'; }
K() { echo "${SLOW[$1]:-not run}"; }
C() { echo "${CSLOW[$1]:-not run}"; }
# slow_cell KEY WALL_LIMIT CPU_LIMIT: "wall W (met), CPU C (met)"
slow_cell() {
    local w c
    w=$(m "$(K "$1")"); c=$(m "$(C "$1")")
    echo "wall $w ($(met "$w" "$2" le)), CPU $c ($(met "$c" "$3" le))"
}
ratio_med=$(median <"$TMP/ratio")
whole_perf=$(median <"$TMP/whole.perf")
share_perf=$(median <"$TMP/share.perf")
share_top=$(median <"$TMP/share.top")
half_top=$(awk -v t="$share_top" 'BEGIN {print (t == "" || t == "nan") ? "nan" : t / 2}')
{
cat <<EOF
# sproftop performance

Generated by \`make bench\` (tests/bench/run.sh) on $(date -u +%Y-%m-%d), $cores CPUs
($(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')), Linux $(uname -r),
$(perf --version 2>/dev/null || echo 'no perf').
Each figure: median (min-max) over $REPS repetitions in one run; every
ratio is measured side by side in the same run, the tools of a row
interleaved. Slowdown = the fixed-work target's throughput with no
profiler ÷ its throughput with the profiler attached, in interleaved
${WIN}s windows (1.000 = no cost). CPU figures are sproftop's whole
process (every thread: sampler, collector, main), from
\`/proc/PID/task/*/schedstat\`, in its steady state (from 1.5 s after the
start to 0.5 s before the end: attaching, loading symbols and writing
the output left out). "perf" is sproftop's perf_event backend
(\`--sampler perf\`), "ptrace" its ptrace backend; \`perf record\` and
\`perf top\` are Linux perf.
The machine is shared with other jobs: figures move from run to run.

## The targets (issue 10, perf backend)

| figure | target | perf backend | | ptrace backend |
|---|---|---|---|---|
EOF
for hz in 100 1000 5000; do
    for bin in spin spin_nofp; do
        k=$hz.$bin.1.h0
        pd=$(m "$(K perf-dwarf.$k)"); pc=$(m "$(C perf-dwarf.$k)")
        echo "| slowdown, $(bn $bin), $hz Hz | ≤ perf dwarf (wall $pd, CPU $pc) | $(slow_cell sp-perf.$k "$pd" "$pc") | | wall $(m "$(K sp-ptrace.$k)"), CPU $(m "$(C sp-ptrace.$k)") |"
    done
done
for bin in spin spin_nofp; do
    k=1000.$bin.1.h2
    pd=$(m "$(K perf-dwarf.$k)"); pc=$(m "$(C perf-dwarf.$k)")
    ld=$(awk -v p="$pd" 'BEGIN {print (p ~ /^[0-9.]+$/) ? p + 0.01 : "nan"}')
    lc=$(awk -v p="$pc" 'BEGIN {print (p ~ /^[0-9.]+$/) ? p + 0.01 : "nan"}')
    echo "| slowdown, $(bn $bin), 1 kHz, 2 CPU hogs beside | ≤ perf dwarf + 1 point (wall $ld, CPU $lc) | $(slow_cell sp-perf.$k "$ld" "$lc") | | wall $(m "$(K sp-ptrace.$k)"), CPU $(m "$(C sp-ptrace.$k)") |"
done
cat <<EOF
| whole CPU per sample, 28 frames, 1 kHz (µs) | ≤ 20 | $whole_perf | $(met "$whole_perf" 20 le) | $(median <"$TMP/whole.ptrace") |
| whole CPU at 1 kHz (share of a core) next to \`perf top --call-graph dwarf\` ($share_top) | ≤ 0.5 × perf top ($half_top) | $share_perf | $(met "$share_perf" "$half_top" le) | $(median <"$TMP/share.ptrace") |
| 8 busy threads on $cores CPUs, 1 kHz: samples per second of thread CPU time | ≥ perf record's ($(m "${RATE[perf-record.1000]:-nan}")) | $(m "${RATE[sp-perf.1000]}") | $(met "$(m "${RATE[sp-perf.1000]}")" "$(m "${RATE[perf-record.1000]:-nan}")" ge) | $(m "${RATE[sp-ptrace.1000]}") |
| 4 busy + 60 blocked threads, 100 Hz: whole CPU (share of a core) | ≤ 0.02 | $(m "${IDLE[share.perf.default]}") | $(met "$(m "${IDLE[share.perf.default]}")" 0.02 le) | $(m "${IDLE[share.ptrace.default]}") |
| \`--idle\` on 60 blocked threads (4 busy), 100 Hz: whole CPU (share of a core) | ≤ 0.05 | $(m "${IDLE[share.perf.idle]}") | $(met "$(m "${IDLE[share.perf.idle]}")" 0.05 le) | $(m "${IDLE[share.ptrace.idle]}") |

The sections below give each figure with its spread. "wall" is the
slowdown the issue asks for; "CPU" is the target's CPU time per unit of
work with the profiler ÷ without it, measured in the same windows: other
jobs on a shared machine change the target's share of the CPUs from one
window to the next (which blurs "wall") but not what a unit of work costs
it.

## 1. Slowdown of a single CPU-bound thread, 28 frames deep

Wall-clock slowdown:

| target | rate | perf | ptrace | perf --call-graph dwarf | perf --call-graph fp |
|---|---|---|---|---|---|
EOF
for bin in spin spin_nofp; do
    for hz in 100 1000 5000; do
        echo "| $(bn $bin) | $hz Hz | $(K sp-perf.$hz.$bin.1.h0) | $(K sp-ptrace.$hz.$bin.1.h0) | $(K perf-dwarf.$hz.$bin.1.h0) | $(K perf-fp.$hz.$bin.1.h0) |"
    done
done
cat <<EOF

The target's CPU time per unit of work, with ÷ without:

| target | rate | perf | ptrace | perf --call-graph dwarf | perf --call-graph fp |
|---|---|---|---|---|---|
EOF
for bin in spin spin_nofp; do
    for hz in 100 1000 5000; do
        echo "| $(bn $bin) | $hz Hz | $(C sp-perf.$hz.$bin.1.h0) | $(C sp-ptrace.$hz.$bin.1.h0) | $(C perf-dwarf.$hz.$bin.1.h0) | $(C perf-fp.$hz.$bin.1.h0) |"
    done
done
cat <<EOF

### With two CPU-bound processes beside (1 kHz)

Two more \`spin\` processes keep both CPUs busy: a profiler's own CPU now
comes out of what the target could have had, and a ptrace stop hands the
CPU away.

| target | measure | perf | ptrace | perf --call-graph dwarf | perf --call-graph fp |
|---|---|---|---|---|---|
EOF
for bin in spin spin_nofp; do
    k=1000.$bin.1.h2
    echo "| $(bn $bin) | wall | $(K sp-perf.$k) | $(K sp-ptrace.$k) | $(K perf-dwarf.$k) | $(K perf-fp.$k) |"
    echo "| $(bn $bin) | CPU | $(C sp-perf.$k) | $(C sp-ptrace.$k) | $(C perf-dwarf.$k) | $(C perf-fp.$k) |"
done
cat <<EOF

### ptrace: where the sampler thread runs (1 kHz, frame pointers)

| sampler placement | slowdown (wall) | CPU per unit |
|---|---|---|
| free, spin 50 µs (default) | $(K sp-ptrace.1000.spin.1.h0) | $(C sp-ptrace.1000.spin.1.h0) |
| follow the target's CPU, no spin | $(K sproftop-follow.1000.spin.1.h0) | $(C sproftop-follow.1000.spin.1.h0) |
| free, no spin | $(K sproftop-nospin.1000.spin.1.h0) | $(C sproftop-nospin.1000.spin.1.h0) |

## 2. Cost per sample at 1 kHz (28 frames)

| figure | perf | ptrace | \`perf top --call-graph dwarf\` |
|---|---|---|---|
| sproftop's whole CPU per sample, µs | $(stats <"$TMP/whole.perf") | $(stats <"$TMP/whole.ptrace") | |
| whole CPU, share of a core | $(stats <"$TMP/share.perf") | $(stats <"$TMP/share.ptrace") | $(stats <"$TMP/share.top") |

\`perf top\`'s screen in this run (its DWARF call chains stop at the leaf
here, so it unwinds less than sproftop does):

\`\`\`
$(grep -a 'PerfTop' "$TMP/ptop.keep" 2>/dev/null | tail -n 1 | sed 's/^ *//')
$(grep -a -m1 -A3 '%.*hot' "$TMP/ptop.keep" 2>/dev/null)
\`\`\`

The perf backend's \`--stats\` of the first run:

\`\`\`
$(grep -E '^(sampler|perf|samples|tracer|sproftop CPU|unwind)' "$TMP/stats_1k_perf")
\`\`\`

ptrace: what a stop costs, against the bare round trip

| figure | ptrace | bare round trip (tests/bench/rtt.c) |
|---|---|---|
| target stop time, median µs | $(stats <"$TMP/stop_sp") | $(stats <"$TMP/stop_rtt") |
| target stop time, p99 µs | $(stats <"$TMP/p99_sp") | |
| sampler thread CPU per sample, µs | $(stats <"$TMP/cpu_sp") | $(stats <"$TMP/cpu_rtt") |
| ratio ptrace / round trip | $(stats <"$TMP/ratio") | target ≤ 1.5: $(met "$ratio_med" 1.5 le) |

## 3. 8 busy threads on $cores CPUs

Samples taken per second of the target's CPU time (all threads, from
schedstat over the tool's run): the asked rate when every tick of every
thread is taken.

| asked per thread | perf | ptrace | perf record --call-graph dwarf | slowdown, perf | slowdown, ptrace |
|---|---|---|---|---|---|
| 100 Hz | ${RATE[sp-perf.100]} | ${RATE[sp-ptrace.100]} | ${RATE[perf-record.100]:-not run} | wall $(K sp-perf.100.spin.8.h0), CPU $(C sp-perf.100.spin.8.h0) | wall $(K sp-ptrace.100.spin.8.h0), CPU $(C sp-ptrace.100.spin.8.h0) |
| 1000 Hz | ${RATE[sp-perf.1000]} | ${RATE[sp-ptrace.1000]} | ${RATE[perf-record.1000]:-not run} | wall $(K sp-perf.1000.spin.8.h0), CPU $(C sp-perf.1000.spin.8.h0) | wall $(K sp-ptrace.1000.spin.8.h0), CPU $(C sp-ptrace.1000.spin.8.h0) |

ptrace's figure counts the ticks of threads that were runnable but
waiting for a CPU (it stops them when they next run): more samples than
there was CPU time.

## 4. 4 busy + 60 blocked threads at 100 Hz

| backend, mode | sproftop's whole CPU, share of a core | stops of blocked threads | stacks reused without unwinding |
|---|---|---|---|
| perf, default (on-CPU) | ${IDLE[share.perf.default]} | ${IDLE[bstops.perf.default]} | ${IDLE[reused.perf.default]} |
| perf, --idle | ${IDLE[share.perf.idle]} | ${IDLE[bstops.perf.idle]} | ${IDLE[reused.perf.idle]} |
| ptrace, default (on-CPU) | ${IDLE[share.ptrace.default]} | ${IDLE[bstops.ptrace.default]} | ${IDLE[reused.ptrace.default]} |
| ptrace, --idle | ${IDLE[share.ptrace.idle]} | ${IDLE[bstops.ptrace.idle]} | ${IDLE[reused.ptrace.idle]} |

The perf backend never stops a thread; with \`--idle\`, the 60 threads
blocked since before the attach are read once from
\`/proc/PID/task/TID/syscall\` and then cost nothing until they wake.
ptrace stops each blocked thread once per blocked stretch (60 here) and
reuses its stack while it stays blocked.

## 5. Aggregate and TUI

| figure | value |
|---|---|
| ingest, frames per second (3.6 M samples, 10k unique 30-deep stacks, $nodes nodes) | $(stats <"$TMP/ingest") |
| peak RSS of that ingest, MiB (target ≤ 64) | $(stats <"$TMP/rss") — $(met "$(median <"$TMP/rss")" 64 le) |
| TUI redraw of a $big_nodes-frame profile (100k-node class), ms per redraw | $(stats <"$TMP/redraw") |

## 6. Symbolization (the first ptrace run of section 2)

\`$sym_line\`

## 7. The perf backend's stack copy size

Share of the samples cut short because the stack went deeper than the
copy (\`--stats\` "stack-copy"), at 500 Hz for 1.5 s, by \`--stack-size\`:

| program | $(echo $SIZES | sed 's/ / | /g') |
|---|$(for z in $SIZES; do printf -- '---|'; done)
EOF
for name in "recurse (300 frames)" "deep (28 frames, C)" "cxx (C++)" python3 perl node ruby; do
    [ -n "${TRUNC["$name.4096"]:-}" ] || continue
    printf '| %s |' "$name"
    for z in $SIZES; do printf ' %s |' "${TRUNC["$name.$z"]}"; done
    echo
done
cat <<EOF

Slowdown of the 28-frame thread at 5 kHz by copy size (the kernel copies
the whole size in the timer interrupt at every sample):

| measure | 8 KiB | 16 KiB (default) | 32 KiB | 64 KiB |
|---|---|---|---|---|
| wall | $(K sp-perf-8k.5000.spin.1.h0) | $(K sp-perf-16k.5000.spin.1.h0) | $(K sp-perf-32k.5000.spin.1.h0) | $(K sp-perf-64k.5000.spin.1.h0) |
| CPU | $(C sp-perf-8k.5000.spin.1.h0) | $(C sp-perf-16k.5000.spin.1.h0) | $(C sp-perf-32k.5000.spin.1.h0) | $(C sp-perf-64k.5000.spin.1.h0) |

16 KiB is the default: 8 KiB (perf's) cuts short the 300-deep recursion
and node; 16 KiB cuts none of these. What the size costs the target is
below what this row can tell apart; a larger copy costs locked ring-buffer
memory and bytes to read at every sample for stacks that do not need it.

EOF
cat "$TOP/tests/bench/notes.md"
cat <<EOF

## 8. Signal delivery delay

From \`sigqueue\` to the handler, in a target that spins (tests/bench/sigdelay.c:
the sender stamps each signal with its send time). Rows interleaved in this
run, $REPS rounds of ${SIG_N:-100} signals ${SIG_GAP_US:-5000} µs apart each. A
sampled thread's signal waits in its signal-delivery stop until the sampler
hands it back (\`PTRACE_CONT\` with the signal), so the ptrace sampler
drains its wait events before each piece of work; the perf backend stops
nothing.

$(cat "$TMP/sigdelay.md")

## Commands

- Section 1: \`sproftop --sampler perf|ptrace -p PID -F HZ -d $(awk -v w="$WIN" 'BEGIN {print w + 0.7}') -o FILE\`,
  \`perf record -F HZ --call-graph dwarf|fp -p PID -- sleep $(awk -v w="$WIN" 'BEGIN {print w + 0.7}')\`,
  on \`$BUILD/bench/spin PROGRESS 1\` (and \`spin_nofp\`); windows read the target's counters;
  the loaded rows start two more \`spin\` processes first.
- Section 2: \`sproftop --sampler perf|ptrace -p PID -F 1000 -d 7 --stats -o FILE\` (CPU from
  \`/proc/PID/task/*/schedstat\` between 1.5 s and 6.5 s), \`perf top --stdio --call-graph dwarf -F 1000 -p PID\`
  (5 s from 1.5 s on), \`sproftop --sampler ptrace -p PID -F 1000 -d 2 --stats\` and \`$BUILD/bench/rtt PID 2000 1000\`.
- Section 3: \`$BUILD/bench/spin PROGRESS 8\`; \`sproftop --sampler B -p PID -F HZ -d 2 --stats\`,
  \`perf record -F HZ --call-graph dwarf -p PID -- sleep 2\` (its PERF_RECORD_SAMPLE records, \`perf report -D\`).
- Section 4: \`$BUILD/bench/spin PROGRESS 4 60\`, \`sproftop --sampler B -p PID -F 100 -d 5 [--idle] --stats\`.
- Section 5: \`$BUILD/bench/bench_profile ingest\`; \`sproftop -i BIG.folded --script KEYS\` with 50 \`:refresh\` lines minus a run without them.
- Section 7: \`sproftop --sampler perf --stack-size N -p PID -F 500 -d 1.5 --stats\`.
- Section 8: \`tests/bench/sigdelay.sh\` (\`$BUILD/bench/sigdelay recv|send\`, \`sproftop --sampler NAME -p PID -F 1000\` per backend).
- Regenerate: \`make bench\` (REPS and WIN environment variables).
EOF
} >"$OUT"
log "wrote $OUT"
