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
#   SECTIONS="rates procs" [UPDATE=1] tests/bench/run.sh
#                                 only those sections, their tables printed
#                                 on stdout (UPDATE=1: they replace their own
#                                 sections of docs/PERFORMANCE.md);
#                                 sections: slowdown cost threads idle
#                                 aggregate stackcopy signals rates procs
#                                 launch python kernel long (an hour)
#                                 manyprocs ruby
set -u
cd "$(dirname "$0")/../.."
TOP=$PWD
BUILD=${BUILD:-build}
B=$TOP/$BUILD/bench
SP=${SPROFTOP:-$TOP/sproftop}
REPS=${REPS:-5}
WIN=${WIN:-1}          # seconds per window
OUT=${OUT:-docs/PERFORMANCE.md}
SECTIONS=${SECTIONS:-all}
# BENCH_TMP=DIR keeps the raw measurements there; a slowdown row whose
# measurements DIR already holds is not measured again (a report rewritten
# from a run's data).
TMP=${BENCH_TMP:-$(mktemp -d /tmp/sproftop-bench.XXXXXX)}
mkdir -p "$TMP"
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill -CONT "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    [ -n "${BENCH_TMP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

have_perf=1
perf record -q -F 99 -g -o "$TMP/probe.data" -- true >/dev/null 2>&1 || have_perf=0

log() { printf '%s\n' "$*" >&2; }
want() { [ "$SECTIONS" = all ] || [[ " $SECTIONS " == *" $1 "* ]]; }

# median and min-max of numbers on stdin: "MED (MIN-MAX)"
stats() {
    sort -g | awk '{v[NR]=$1} END {if (!NR) {print "n/a"; exit}
        m = NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2;
        printf "%.3f (%.3f-%.3f)", m, v[1], v[NR]}'
}
# met VALUE LIMIT le|ge: "met" or "**missed**"; m CELL: a cell's median;
# K/C/T/H KEY: a slowdown row's wall, CPU, tool CPU and held cells
met() { awk -v v="$1" -v lim="$2" -v op="$3" 'BEGIN {if (v !~ /^-?[0-9.]+$/ || lim !~ /^[0-9.]+$/) {print "not measured"; exit}
    ok = op == "le" ? v <= lim : v >= lim; print ok ? "met" : "**missed**"}'; }
m() { echo "$1" | awk '{print $1}'; }
bn() { [ "$1" = spin ] && echo 'frame pointers' || echo 'no frame pointers'; }
K() { echo "${SLOW[$1]:-not run}"; }
C() { echo "${CSLOW[$1]:-not run}"; }
# sec1_rows F: section 1's table rows, each run's figure by F (K or C).
sec1_rows() {
    for bin in spin spin_nofp; do
        for hz in 100 1000 5000; do
            echo "| $(bn $bin) | $hz Hz | $($1 sp-perf.$hz.$bin.1.h0) | $($1 sp-ptrace.$hz.$bin.1.h0) | $($1 perf-dwarf.$hz.$bin.1.h0) | $($1 perf-fp.$hz.$bin.1.h0) |"
        done
    done
}
T() { echo "${TSHARE[$1]:-not run}"; }
H() { echo "${HSLOW[$1]:-not run}"; }
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
# CPU time of a process, ns, in clock ticks (/proc/PID/stat: coarse, but it
# keeps the time of threads that have ended)
pcpu() { awk -v hz="$(getconf CLK_TCK)" '{sub(/.*\) /, ""); printf "%.0f\n", ($12 + $13) * 1e9 / hz}' /proc/"$1"/stat 2>/dev/null; }

# one on/off pair: prints "WALL CPU TOOL HELD": off_rate/on_rate, the slowdown;
# the target's CPU time per unit of work with the profiler ÷ without it,
# which other jobs on the machine do not blur (they change the target's
# share of the CPUs, not what a unit costs it); and the profiler's own CPU
# over the "on" window, as a share of one core; and HELD per unit of work
# with ÷ without, HELD being the target's threads' time not spent waiting
# for a CPU (each thread's window minus its schedstat wait): for a target
# that never blocks, its CPU time plus the time a sampler kept it stopped.
# The target's readings come from tests/bench/snap.c.  $@ = profiler command
# (runs for 0.4 + WIN + 0.3 s).
pair() {
    local prog=$1; shift
    local a b c d tc td tc0 td0
    a=$("$B/snap" "$prog" "$SPIN"); sleep "$WIN"; b=$("$B/snap" "$prog" "$SPIN")
    "$@" >/dev/null 2>&1 &
    local tool=$!
    sleep 0.4
    c=$("$B/snap" "$prog" "$SPIN"); tc=$(pcpu "$tool"); tc0=$(now)
    sleep "$WIN"
    d=$("$B/snap" "$prog" "$SPIN"); td=$(pcpu "$tool"); td0=$(now)
    wait "$tool"
    # the tool's share: -1 when it ended before the window did
    echo "$a $b $c $d" | awk -v tool="$(awk -v x="${td:--1}" -v y="${tc:--1}" -v t1="$td0" -v t0="$tc0" 'BEGIN {print (x < 0 || y < 0) ? -1 : (x - y) / 1e9 / (t1 - t0)}')" '
        # snap: UNITS RUN WAIT NOW THREADS, four times
        {off = $6 - $1; on = $16 - $11; coff = $7 - $2; con = $17 - $12
         hoff = $10 * ($9 - $4) - ($8 - $3); hon = $20 * ($19 - $14) - ($18 - $13)
         printf "%.4f %.4f %.4f %.4f\n", on ? off / on : 0, (on && off && coff > 0) ? (con / on) / (coff / off) : 0, tool,
                (on && off && hoff > 0) ? (hon / on) / (hoff / off) : 0}'
}

tool_cmd() { # TOOL HZ PID -> command words
    local secs
    secs=$(awk -v w="$WIN" 'BEGIN {print w + 0.7}')
    case $1 in
    sp-perf) echo "$SP --sampler perf -p $3 -F $2 -d $secs -o $TMP/s.folded" ;;
    sp-ptrace) echo "$SP --sampler ptrace -p $3 -F $2 -d $secs -o $TMP/s.folded" ;;
    sp-perf-nokernel) echo "$SP --sampler perf --no-kernel -p $3 -F $2 -d $secs -o $TMP/s.folded" ;;
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
declare -A SLOW CSLOW TSHARE HSLOW
slowdown_row() { # BIN BUSY HZ TOOLS...
    local bin=$1 busy=$2 hz=$3; shift 3
    local prog=$TMP/progress hogs=() h key t kept=1
    for t in "$@"; do
        [ -s "$TMP/pair.$t.$hz.$(basename "$bin").$busy.h${HOGS:-0}" ] || kept=0
    done
    if [ $kept = 0 ]; then
        for ((h = 0; h < ${HOGS:-0}; h++)); do
            "$B/spin" "$TMP/hog$h" 1 0 & PIDS+=($!); hogs+=($!)
        done
        start_spin "$bin" "$prog" "$busy" 0
        local r
        for ((r = 0; r < REPS; r++)); do
            for t in "$@"; do
                # shellcheck disable=SC2046
                pair "$prog" $(tool_cmd "$t" "$hz" "$SPIN") >>"$TMP/pair.$t.$hz.$(basename "$bin").$busy.h${HOGS:-0}"
            done
        done
        stop_spin
        for h in "${hogs[@]}"; do kill -KILL "$h" 2>/dev/null; wait "$h" 2>/dev/null; done
    fi
    for t in "$@"; do
        key=$t.$hz.$(basename "$bin").$busy.h${HOGS:-0}
        SLOW[$key]=$(awk '{print $1}' "$TMP/pair.$key" | stats)
        CSLOW[$key]=$(awk '$2 > 0 {print $2}' "$TMP/pair.$key" | stats)
        TSHARE[$key]=$(awk '$3 >= 0 {print $3}' "$TMP/pair.$key" | stats)
        HSLOW[$key]=$(awk '$4 > 0 {print $4}' "$TMP/pair.$key" | stats)
    done
}


# cpu_run SECS ARGS...: sproftop ARGS for SECS s with --stats; prints
# "SHARE US_PER_SAMPLE SAMPLES_PER_S": its steady-state CPU (all threads,
# from CPU_WARM s (default 1.5) to SECS - 0.5 s: start-up and the final
# write left out) as a share of one core, per sample, and the sample rate.
cpu_run() {
    local secs=$1 warm=${CPU_WARM:-1.5}; shift
    "$SP" "$@" -d "$secs" --stats -o "$TMP/c.folded" 2>"$TMP/c.err" >/dev/null &
    local sp=$!
    sleep "$warm"
    local c0 t0 c1 t1
    c0=$(tcpu $sp); t0=$(now)
    sleep "$(awk -v s="$secs" -v w="$warm" 'BEGIN {print s - w - 0.5}')"
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
if want slowdown; then
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
fi

# --- 2. cost per sample -----------------------------------------------------
if want cost; then
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
fi

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
if want threads; then
rtools=(sp-perf sp-ptrace)
[ $have_perf = 1 ] && rtools+=(perf-record)
for hz in 100 1000; do
    log "3. 8 threads at $hz Hz: ${rtools[*]}"
    start_spin "$B/spin" "$TMP/progress8" 8 0
    for t in "${rtools[@]}"; do : >"$TMP/rate.$t.$hz"; done
    for ((r = 0; r < REPS; r++)); do
        for t in "${rtools[@]}"; do rate_run "$t" "$hz" "$SPIN" >>"$TMP/rate.$t.$hz"; done
    done
    stop_spin
    for t in "${rtools[@]}"; do RATE[$t.$hz]=$(stats <"$TMP/rate.$t.$hz"); done
    slowdown_row "$B/spin" 8 "$hz" sp-perf sp-ptrace
done
fi

# --- 4. 64 threads, 60 blocked: the cost of idle threads --------------------
declare -A IDLE
if want idle; then
log "4. 4 busy + 60 blocked threads at 100 Hz"
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
fi

# --- 5. aggregate ingest, RSS, TUI redraw -------------------------------------
nodes= big_nodes=
if want aggregate; then
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

fi

# --- 6. symbolization ---------------------------------------------------------
sym_line=$(grep '^symbols:' "$TMP/stats_1k" 2>/dev/null)

# --- 7. perf stack copy size ----------------------------------------------------
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
if want stackcopy; then
log "7. stack copy sizes"
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
fi

# --- 8. signal delivery delay ---------------------------------------------------
if want signals; then
log "8. signal delivery delay"
SPROFTOP=$SP REPS=$REPS tests/bench/sigdelay.sh "$BUILD" >"$TMP/sigdelay.md"
fi

# --- 9. each backend's default rate: a sweep over common rates ----------------
# Odd rates, so that the timer does not tick in lockstep with the target.
# What the target pays is read per backend: perf never stops it, so its
# CPU per unit of work (field 2 of pair); ptrace stops it, so CPU plus the
# time stopped (field 4).  Over the SWEEP_CHOOSE rows, the default is
#   median: the highest rate whose median, at that rate and at every lower
#           one, is <= SWEEP_LIMIT; checked by
#   fit:    slowdown - 1 = rate x cost, least squares over every pair of
#           every rate; the highest swept rate with rate x cost <=
#           SWEEP_LIMIT - 1 (the high rates, where the cost stands well
#           above the noise, weigh the most).
SWEEP_HZ=${SWEEP_HZ:-99 199 499 999 1999 3999}
SWEEP_LIMIT=${SWEEP_LIMIT:-1.01}
SWEEP_REPS=${SWEEP_REPS:-$REPS}
SWEEP_ROWS=("spin 1" "spin_nofp 1" "spin 2")   # BIN BUSY_THREADS
SWEEP_CHOOSE=("spin 1" "spin_nofp 1")
declare -A CHOSEN FITTED COST DEFAULT_HZ
sweep_field() { [ "$1" = ptrace ] && echo 4 || echo 2; }
if want rates; then
    for row in "${SWEEP_ROWS[@]}"; do
        read -r bin busy <<<"$row"
        for hz in $SWEEP_HZ; do
            log "9. rate sweep: $bin, $busy busy thread(s), $hz Hz"
            REPS=$SWEEP_REPS slowdown_row "$B/$bin" "$busy" "$hz" sp-perf sp-ptrace
        done
    done
    for b in perf ptrace; do
        f=$(sweep_field $b)
        CHOSEN[$b]="none (even ${SWEEP_HZ%% *} Hz is over)"
        for hz in $SWEEP_HZ; do
            ok=1
            for row in "${SWEEP_CHOOSE[@]}"; do
                read -r bin busy <<<"$row"
                med=$(awk -v f="$f" '$f > 0 {print $f}' "$TMP/pair.sp-$b.$hz.$bin.$busy.h0" | median)
                [ "$(met "$med" "$SWEEP_LIMIT" le)" = met ] || ok=0
            done
            [ $ok = 1 ] || break
            CHOSEN[$b]=$hz
        done
        : >"$TMP/fit.$b"
        for row in "${SWEEP_CHOOSE[@]}"; do
            read -r bin busy <<<"$row"
            for hz in $SWEEP_HZ; do
                awk -v f="$f" -v hz="$hz" '$f > 0 {print hz, $f}' "$TMP/pair.sp-$b.$hz.$bin.$busy.h0" >>"$TMP/fit.$b"
            done
        done
        # cost: µs of the target's time per sample
        COST[$b]=$(awk '{sxy += $1 * ($2 - 1); sxx += $1 * $1} END {if (sxx > 0) printf "%.2f", sxy / sxx * 1e6}' "$TMP/fit.$b")
        FITTED[$b]="none (even ${SWEEP_HZ%% *} Hz is over)"
        for hz in $SWEEP_HZ; do
            awk -v c="${COST[$b]:-nan}" -v hz="$hz" -v l="$SWEEP_LIMIT" 'BEGIN {exit !(c ~ /^-?[0-9.]+$/ && hz * c / 1e6 <= l - 1)}' \
                && FITTED[$b]=$hz
        done
    done
    # what this build does without -F
    start_spin "$B/spin" "$TMP/progress" 1 0
    for b in perf ptrace; do
        "$SP" --sampler $b -p "$SPIN" -d 0.5 --stats -o "$TMP/d.folded" 2>"$TMP/d.err" >/dev/null
        DEFAULT_HZ[$b]=$(sed -n 's/.*asked \([0-9.]*\) Hz per thread.*/\1/p' "$TMP/d.err" | head -n 1)
    done
    stop_spin
fi

# --- 10. several processes (issue 14) -------------------------------------------
# -a beside perf top -a -g at 99 Hz, with 2 busy processes and IDLE_PROCS
# idle ones (build/targets/sleeper: 3 threads blocked in the kernel); and
# the peak RSS of -p with 20 processes of one binary against -p with one.
IDLE_PROCS=${IDLE_PROCS:-200}
MACH_SECS=${MACH_SECS:-12}   # each tool's run; CPU from 4 s to MACH_SECS - 1
MEM_SECS=${MEM_SECS:-4}
# hwm PID: peak resident set so far, KiB
hwm() { awk '/^VmHWM:/ {print $2}' /proc/"$1"/status 2>/dev/null; }
if want procs && [ $have_perf = 1 ] && ! { [ -s "$TMP/all.top" ] && [ -s "$TMP/rssratio" ]; }; then
    log "10. -a: 2 busy + $IDLE_PROCS idle processes, sproftop -a and perf top -a -g at 99 Hz"
    bg=()
    for ((i = 0; i < IDLE_PROCS; i++)); do
        "$TOP/$BUILD/targets/sleeper" >/dev/null 2>&1 & PIDS+=($!); bg+=($!)
    done
    for i in 1 2; do "$B/spin" "$TMP/busy$i" 1 0 & PIDS+=($!); bg+=($!); done
    sleep 1
    : >"$TMP/all.sp"; : >"$TMP/all.top"; : >"$TMP/all.sprss"; : >"$TMP/all.toprss"
    steady=$(awk -v s="$MACH_SECS" 'BEGIN {print s - 5}')
    for ((r = 0; r < REPS; r++)); do
        "$SP" -a -F 99 -d "$MACH_SECS" -o "$TMP/a.folded" >/dev/null 2>"$TMP/a.err" &
        sp=$!
        sleep 4
        c0=$(tcpu $sp); t0=$(now); sleep "$steady"; c1=$(tcpu $sp); t1=$(now); hwm $sp >>"$TMP/all.sprss"
        wait $sp
        awk -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" 'BEGIN {if (c1 > c0) printf "%.5f\n", (c1 - c0) / 1e9 / (t1 - t0)}' >>"$TMP/all.sp"
        # perf top needs a stdin that stays open (at EOF it spins)
        (sleep $((MACH_SECS + 1)) | sh -c 'echo $$ >"$1"; exec timeout "$2" perf top --stdio -a -g -F 99 -d 2' \
            sh "$TMP/atop.pid" "$MACH_SECS" >/dev/null 2>&1) &
        ptj=$!
        sleep 4
        ptp=$(pgrep -P "$(cat "$TMP/atop.pid")" | head -n 1)
        c0=$(tcpu "$ptp"); t0=$(now); sleep "$steady"; c1=$(tcpu "$ptp"); t1=$(now); hwm "$ptp" >>"$TMP/all.toprss"
        wait $ptj
        awk -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" 'BEGIN {if (c1 > c0) printf "%.5f\n", (c1 - c0) / 1e9 / (t1 - t0)}' >>"$TMP/all.top"
    done
    for p in "${bg[@]}"; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done

    log "10b. peak RSS: -p with 20 processes of one binary vs -p with one"
    bg=()
    for ((i = 0; i < 20; i++)); do "$TOP/$BUILD/targets/split" & PIDS+=($!); bg+=($!); done
    sleep 1
    list=$(IFS=,; echo "${bg[*]}")
    : >"$TMP/rss1"; : >"$TMP/rss20"; : >"$TMP/rssratio"
    for ((r = 0; r < REPS; r++)); do
        /usr/bin/time -f %M -o "$TMP/t1" "$SP" -p "${bg[0]}" -F 99 -d "$MEM_SECS" -o "$TMP/m.folded" >/dev/null 2>&1
        /usr/bin/time -f %M -o "$TMP/t20" "$SP" -p "$list" -F 99 -d "$MEM_SECS" -o "$TMP/m.folded" >/dev/null 2>&1
        a=$(tail -n 1 "$TMP/t1"); z=$(tail -n 1 "$TMP/t20")
        awk -v k="$a" 'BEGIN {printf "%.1f\n", k / 1024}' >>"$TMP/rss1"
        awk -v k="$z" 'BEGIN {printf "%.1f\n", k / 1024}' >>"$TMP/rss20"
        awk -v a="$a" -v z="$z" 'BEGIN {if (a > 0) printf "%.2f\n", z / a}' >>"$TMP/rssratio"
    done
    for p in "${bg[@]}"; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
fi

# --- 11. launch mode on a busy machine (issue 27) ---------------------------------
# A fixed amount of work (spin ... UNITS prints "UNITS WALL_NS CPU_NS
# RUN_DELAY_NS PARENT_CPU_NS", timed from its main to its last unit; the
# parent is the profiler that launched it), run alone, under
# `sproftop -- CMD` and under `perf record -- CMD`, with two CPU-bound
# spin processes beside it on the machine's CPUs: the three runs of a
# round back to back, their order turned from one round to the next, so
# that a change of the machine's other load falls on all three.  A
# round's runs under a profiler are compared with that round's run alone.
LAUNCH_HZ=${LAUNCH_HZ:-199 1000}
LAUNCH_REPS=${LAUNCH_REPS:-$((REPS > 9 ? REPS : 9))}
LAUNCH_UNITS=${LAUNCH_UNITS:-36000}   # about 0.8 s of CPU
LAUNCH_MODES=(alone sproftop perf)
# LAUNCH_BEFORE=BINARY: another sproftop (an older build) in the same
# rounds, for a before/after comparison
LAUNCH_BEFORE=${LAUNCH_BEFORE:-}
[ -n "$LAUNCH_BEFORE" ] && LAUNCH_MODES+=(before)
# launch_run MODE HZ BIN: one run; prints the target's line and the
# 1-minute load average when it started
launch_run() {
    local load line
    load=$(cut -d' ' -f1 /proc/loadavg)
    case $1 in
    alone) line=$("$3" "$TMP/lprog" 1 0 "$LAUNCH_UNITS") ;;
    sproftop) line=$("$SP" -F "$2" -o "$TMP/l.folded" -- "$3" "$TMP/lprog" 1 0 "$LAUNCH_UNITS") ;;
    before) line=$("$LAUNCH_BEFORE" -F "$2" -o "$TMP/l.folded" -- "$3" "$TMP/lprog" 1 0 "$LAUNCH_UNITS") ;;
    perf) line=$(perf record -q -F "$2" --call-graph dwarf -o "$TMP/l.data" -- \
                 "$3" "$TMP/lprog" 1 0 "$LAUNCH_UNITS" 2>/dev/null) ;;
    esac
    line=$(printf '%s\n' "$line" | awk 'NF == 5 && $1 > 0 {l = $0} END {print l}')
    [ -n "$line" ] && echo "$line $load"
}
# launch_row BIN HZ: LAUNCH_REPS rounds into $TMP/launch.MODE.HZ.BIN,
# one line per run: "ROUND UNITS WALL CPU DELAY PARENT_CPU LOAD"
launch_row() {
    local bin=$1 hz=$2 key=$2.$(basename "$1") r k mode hogs=() h out
    [ -s "$TMP/launch.alone.$key" ] && return 0
    for mode in "${LAUNCH_MODES[@]}"; do : >"$TMP/launch.$mode.$key"; done
    for h in 0 1; do "$B/spin" "$TMP/lhog$h" 1 0 & PIDS+=($!); hogs+=($!); done
    sleep 0.5
    for ((r = 0; r < LAUNCH_REPS; r++)); do
        for ((k = 0; k < ${#LAUNCH_MODES[@]}; k++)); do
            mode=${LAUNCH_MODES[$(((k + r) % ${#LAUNCH_MODES[@]}))]}
            [ "$mode" = perf ] && [ $have_perf = 0 ] && continue
            out=$(launch_run "$mode" "$hz" "$bin")
            [ -n "$out" ] && echo "$r $out" >>"$TMP/launch.$mode.$key"
        done
    done
    for h in "${hogs[@]}"; do kill -KILL "$h" 2>/dev/null; wait "$h" 2>/dev/null; done
}
# launch_stat MODE KEY FIELD: a run's figure per unit of work, µs:
# "median (min-max)" over the rounds
launch_stat() {
    awk -v f="$3" '{printf "%.2f\n", $f / $2 / 1e3}' "$TMP/launch.$1.$2" 2>/dev/null | stats
}
# launch_ms MODE KEY: the profiler's CPU while the target ran, ms per run
launch_ms() {
    awk '{printf "%.2f\n", $6 / 1e6}' "$TMP/launch.$1.$2" 2>/dev/null | stats
}
# launch_pct MODE KEY: the profiler's CPU while the target ran, % of the
# target's wall: what it would cost if all of it came out of the
# target's share of the CPUs
launch_pct() {
    awk '{printf "%.3f\n", 100 * $6 / $3}' "$TMP/launch.$1.$2" 2>/dev/null | stats
}
# launch_ratio MODE KEY FIELD: per round, MODE's figure per unit ÷ the
# same round's run alone; "median (min-max)"
launch_ratio() {
    awk -v f="$3" 'FNR == NR {a[$1] = $f / $2; next}
        ($1 in a) && a[$1] > 0 {printf "%.4f\n", ($f / $2) / a[$1]}' \
        "$TMP/launch.alone.$2" "$TMP/launch.$1.$2" 2>/dev/null | stats
}
if want launch; then
    for bin in spin spin_nofp; do
        for hz in $LAUNCH_HZ; do
            log "11. launch mode, 2 CPU hogs beside: $bin at $hz Hz, $LAUNCH_REPS rounds"
            launch_row "$B/$bin" "$hz"
        done
    done
    # what sproftop loads before it launches the command (--stats)
    "$SP" -F 199 --stats -o "$TMP/l.folded" -- "$B/spin" "$TMP/lprog" 1 0 1000 \
        >/dev/null 2>"$TMP/launch.stats"
fi

# --- 12. Python frames (issue 22); 16. Ruby frames (issue 23) -----------------
# script_cost TAG ARRAY BIN SCRIPT: SCRIPT's fixed work (12 frames deep,
# progress in its slot 0) under the interpreter BIN, with sproftop reading
# its frames and with SPROFTOP_PY_READ=off (native frames only), the two
# interleaved: sproftop's CPU per sample at 1 kHz on each backend, the
# samples whose frames could not be read (--stats), and the target's
# slowdown at the perf backend's default rate, into the associative
# array named ARRAY (cpu.B.MODE, cpu.B.diff, torn.B, wall.MODE,
# slow.MODE).
script_cost() {
    local tag=$1 bin=$3 script=$4 prog=$TMP/$1progress secs r mode b
    local -n out=$2
    "$bin" "$script" "$prog" & PIDS+=($!)
    SPIN=$!
    sleep 0.5
    secs=$(awk -v w="$WIN" 'BEGIN {print w + 0.7}')
    for ((r = 0; r < REPS; r++)); do
        for mode in default off; do
            export SPROFTOP_PY_READ=$mode
            for b in perf ptrace; do
                cpu_run 4 --sampler "$b" -p "$SPIN" -F 1000 | awk '{print $2}' >>"$TMP/$tag.cpu.$b.$mode"
                [ $mode = default ] && sed -n 's/^[a-z]*: .*; \([0-9]*\) samples with [A-Za-z]* frames, [A-Za-z]* frames unreadable \([0-9]*\)$/\1 \2/p' \
                    "$TMP/c.err" >>"$TMP/$tag.torn.$b"
            done
            pair "$prog" "$SP" --sampler perf -p "$SPIN" -F 199 -d "$secs" -o "$TMP/s.folded" \
                >>"$TMP/$tag.pair.$mode"
            unset SPROFTOP_PY_READ
        done
    done
    stop_spin
    for b in perf ptrace; do
        for mode in default off; do
            out[cpu.$b.$mode]=$(stats <"$TMP/$tag.cpu.$b.$mode")
        done
        out[cpu.$b.diff]=$(paste "$TMP/$tag.cpu.$b.default" "$TMP/$tag.cpu.$b.off" |
            awk 'NF == 2 {printf "%.2f\n", $1 - $2}' | stats)
        out[torn.$b]=$(awk '{s += $1; t += $2} END {printf "%d of %d", t, s + t}' "$TMP/$tag.torn.$b" 2>/dev/null)
    done
    for mode in default off; do
        out[wall.$mode]=$(awk '{print $1}' "$TMP/$tag.pair.$mode" | stats)
        out[slow.$mode]=$(awk '$2 > 0 {print $2}' "$TMP/$tag.pair.$mode" | stats)
    done
}

# 12: pyspin.py under Debian's python3, then the accuracy of each way of
# reading (tests/tools/pyaccuracy on pyhot.py): perf's BPF program in the
# sampling interrupt, perf reading at the drain (SPROFTOP_PY_READ=drain),
# ptrace during its stop.
PYBIN=/usr/bin/python3
declare -A PYC
if want python && [ -x "$PYBIN" ]; then
    log "python frames"
    script_cost py PYC "$PYBIN" "$TOP/tests/bench/pyspin.py"
    acc() { # DESIGN SAMPLER [ENV]: one pyaccuracy run's accuracy
        env ${3:-} "$TOP/$BUILD/tools/pyaccuracy" --sampler "$2" -F 1000 --log "$TMP/acc.log" -- \
            "$PYBIN" "$TOP/tests/targets/pyhot.py" --cpu 1.5 --log "$TMP/acc.log" 2>/dev/null |
            awk '$1 == "accuracy" {print $2}' >>"$TMP/py.acc.$1"
    }
    for ((r = 0; r < REPS; r++)); do
        acc bpf perf
        acc drain perf SPROFTOP_PY_READ=drain
        acc stop ptrace
    done
    for d in bpf drain stop; do
        PYC[acc.$d]=$(stats <"$TMP/py.acc.$d")
    done
    # code that lives for less than a drain: pyexec.py compiles, runs and
    # frees a new function every ~0.35 ms; the share (%) of the samples
    # whose Python frames could not be read (--stats)
    for ((r = 0; r < REPS; r++)); do
        for b in perf ptrace; do
            "$PYBIN" "$TOP/tests/targets/pyexec.py" 30 >"$TMP/pyexec.out" & PIDS+=($!)
            ex=$!
            for ((w = 0; w < 100; w++)); do
                grep -q '^ready' "$TMP/pyexec.out" 2>/dev/null && break
                sleep 0.1
            done
            "$SP" --sampler "$b" -p "$ex" -F 999 -d 4 --stats -o "$TMP/x.folded" 2>"$TMP/x.err" >/dev/null
            kill "$ex" 2>/dev/null; wait "$ex" 2>/dev/null
            sed -n 's/^python: .*; \([0-9]*\) samples with Python frames, Python frames unreadable \([0-9]*\)$/\1 \2/p' \
                "$TMP/x.err" | awk '$1 + $2 > 0 {printf "%.2f\n", 100 * $2 / ($1 + $2)}' >>"$TMP/py.exec.$b"
        done
    done
    for b in perf ptrace; do
        PYC[exec.$b]=$(stats <"$TMP/py.exec.$b")
    done
fi

# --- 13. kernel frames and off-CPU reasons (issue 21) -------------------------
# a: sproftop's CPU per sample with kernel frames and without (--no-kernel),
#    on spin_sys (every unit a 64 KiB read(): every sample has a kernel
#    chain), 1 kHz, interleaved;
# b: --idle with reasons, and as before them (SPROFTOP_OFFCPU_REASONS=0),
#    on 4 busy + 60 blocked threads at 100 Hz (the busy ones, 4 on the
#    CPUs, are preempted: a switch-out with a kernel stack each time);
# c: the target's slowdown with kernel frames and without, spin_sys at
#    1 kHz.
declare -A KF
if want kernel; then
KF[load0]=$(cut -d' ' -f1 /proc/loadavg)
log "13. kernel frames: cost per sample, --idle reasons, the target"
# ab_runs NAME FIELD SECS OFF_ENV OFF_FLAG ARGS...: REPS alternating pairs
# of cpu_run SECS ARGS (field FIELD of its line into NAME.on; the first
# one's --stats kept as NAME.stats) and the same with OFF_FLAG added
# under the environment OFF_ENV (NAME.off); KF[NAME.on], KF[NAME.off].
ab_runs() {
    local name=$1 field=$2 secs=$3 off_env=$4 off_flag=$5 r
    shift 5
    : >"$TMP/$name.on"; : >"$TMP/$name.off"
    for ((r = 0; r < REPS; r++)); do
        cpu_run "$secs" "$@" | awk -v f="$field" 'NF {print $f}' >>"$TMP/$name.on"
        [ $r = 0 ] && cp "$TMP/c.err" "$TMP/$name.stats"
        # shellcheck disable=SC2086
        (export ${off_env:-SPROFTOP_BENCH_AB=1}; cpu_run "$secs" "$@" $off_flag) |
            awk -v f="$field" 'NF {print $f}' >>"$TMP/$name.off"
    done
    KF[$name.on]=$(stats <"$TMP/$name.on"); KF[$name.off]=$(stats <"$TMP/$name.off")
}
start_spin "$B/spin_sys" "$TMP/progress_sys" 1 0
# reading and parsing kallsyms takes about 60 ms of CPU, spread over up to
# 4 s on a machine loaded 20 deep: the window starts at 6 s
CPU_WARM=6 ab_runs kf 2 12 "" --no-kernel --sampler perf -p "$SPIN" -F 1000
stop_spin
KF[diff]=$(awk -v a="$(median <"$TMP/kf.on")" -v b="$(median <"$TMP/kf.off")" 'BEGIN {printf "%.3f", a - b}')
start_spin "$B/spin" "$TMP/progress64" 4 60
ab_runs rs 1 5 SPROFTOP_OFFCPU_REASONS=0 "" --sampler perf -p "$SPIN" -F 100 --idle
stop_spin
KF[rsratio]=$(awk -v a="$(median <"$TMP/rs.on")" -v b="$(median <"$TMP/rs.off")" 'BEGIN {if (b > 0) printf "%.3f", a / b; else print "nan"}')
slowdown_row "$B/spin_sys" 1 1000 sp-perf sp-perf-nokernel
KF[load1]=$(cut -d' ' -f1 /proc/loadavg)
fi

# --- 14. a long -a session on a build loop (issue 24) ---------------------------
# longrun.sh runs it (an hour by default); LONG_DIR=DIR whose "done" exists
# reports a run made before (its own command: longrun.sh DIR MINUTES TOP).
LONG_MINUTES=${LONG_MINUTES:-60}
LONG_TOP=${LONG_TOP:-20}
LONG_DIR=${LONG_DIR:-}
if want long; then
    if [ -n "$LONG_DIR" ] && [ -s "$LONG_DIR/done" ]; then
        log "14. the long run of $LONG_DIR"
    else
        LONG_DIR=$TMP/long
        log "14. $LONG_MINUTES minutes of -a on a build loop (perf top for $LONG_TOP)"
        SPROFTOP=$SP "$TOP/tests/bench/longrun.sh" "$LONG_DIR" "$LONG_MINUTES" "$LONG_TOP"
    fi
fi
# long_clean TSV: its rows while sproftop ran: a last row taken as it
# was writing its file (its sampler and collector gone: less CPU than
# the row before) is left out
long_clean() {
    awk 'NR > 1 && $3 < prev {exit} {prev = $3; print}' "$1" 2>/dev/null
}
long_clean "${LONG_DIR:-$TMP/long}/rss.tsv" >"$TMP/long.tsv"
LONG_TSV=$TMP/long.tsv
LONG_LAST=$(tail -n 1 "$LONG_TSV" 2>/dev/null | cut -d' ' -f1)
LONG_LAST=${LONG_LAST:-$LONG_MINUTES}
# LONG_MORE="DIR...": other runs of longrun.sh on the same machine in
# the same hour (other builds, say), reported after the first
LONG_MORE=${LONG_MORE:-}
# long_at MINUTE COLUMN [TSV]: a column of rss.tsv at that minute
long_at() { awk -v m="$1" -v c="$2" '$1 == m {print $c}' "${3:-$LONG_TSV}" 2>/dev/null; }
# long_cpu TSV_COLUMN MINUTES: CPU over the first MINUTES, % of one core
long_cpu() {
    awk -v c="$1" -v m="$2" '$1 == m && $c > 0 {printf "%.1f", $c / (m * 60e9) * 100}' \
        "$LONG_TSV" 2>/dev/null
}
# long_half: the least-squares slope of RSS over the last half of the
# run (MiB per minute), the change it makes over that half, and the
# slope's standard error (from the residuals): "SLOPE CHANGE SE"
long_half() {
    awk 'NR == FNR {n = $1; next} $1 > n / 2 {x = $1; y = $2 / 1024; k++
            X[k] = x; Y[k] = y; sx += x; sy += y; sxx += x * x; sxy += x * y}
        END {if (k < 3) {print "nan nan nan"; exit}
            d = k * sxx - sx * sx; b = (k * sxy - sx * sy) / d; a = (sy - b * sx) / k
            for (i = 1; i <= k; i++) {r = Y[i] - a - b * X[i]; ss += r * r}
            printf "%.2f %.1f %.2f\n", b, b * (X[k] - X[1]), sqrt(ss / (k - 2) / (d / k))}' \
        <(tail -n 1 "${1:-$LONG_TSV}") "${1:-$LONG_TSV}" 2>/dev/null
}
# long_top_minutes TSV: the minutes perf top ran: while its CPU time
# grows (it may end sooner than asked: killed, say)
long_top_minutes() {
    awk '$5 > 0 && $5 >= p {n = $1; p = $5; next} $5 > 0 || n {exit} END {print n + 0}' "$1"
}
LONG_TOP_RAN=$(long_top_minutes "$LONG_TSV")
# why perf top ended before its time, if the kernel's log says
long_top_end() {
    [ "$LONG_TOP_RAN" -ge "$LONG_TOP" ] && return
    local k
    k=$(dmesg 2>/dev/null | grep -E 'Killed process [0-9]+ \(perf\)' | tail -n 1 |
        sed -E 's/^\[[ 0-9.]+\] //')
    local why=
    [ -n "$k" ] && why="; the kernel log: \"$k\""
    echo "perf top ended after $LONG_TOP_RAN of its $LONG_TOP minutes$why."
}
# long_more_rows DIR: the summary rows of another run, with its CPU
long_more_rows() {
    local LONG_TSV=$TMP/more.tsv n t
    long_clean "$1/rss.tsv" >"$LONG_TSV"
    n=$(tail -n 1 "$LONG_TSV" | cut -d' ' -f1)
    t=$(long_top_minutes "$LONG_TSV")
    long_rows "$LONG_TSV" "$n"
    [ "$t" -ge 5 ] && echo "| sproftop's CPU over its first $t minutes, % of one core; perf top's | $(long_cpu 3 "$t"); $(long_cpu 5 "$t") | sproftop ÷ perf top: $(awk -v a="$(long_cpu 3 "$t")" -v b="$(long_cpu 5 "$t")" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "nan"}') |"
    echo "| sproftop's CPU over the whole run, % of one core | $(long_cpu 3 "$n") | |"
}
# long_rows TSV LAST: the rows of the summary table for one run
long_rows() {
    local t=$1 n=$2 a b r
    a=$(long_at "$n" 2 "$t"); b=$(long_at 2 2 "$t")
    r=$(awk -v a="$a" -v b="$b" 'BEGIN {if (a != "" && b > 0) printf "%.4f", a / b; else print "nan"}')
    echo "| RSS at 2 minutes, MiB | $(awk -v k="$b" 'BEGIN {if (k != "") printf "%.1f", k / 1024}') | |"
    echo "| RSS at $n minutes, MiB | $(awk -v k="$a" 'BEGIN {if (k != "") printf "%.1f", k / 1024}') | ≤ 2 × at 2 minutes: ratio $(printf '%.2f' "$r" 2>/dev/null || echo nan), $(met "$r" 2 le) |"
    echo "| RSS over the last half: least-squares slope ± its standard error, MiB per minute; the change the slope makes over that half, MiB | $(long_half "$t" | awk '{printf "%s ± %s; %s", $1, $3, $2}') | flat: the slope within 2 standard errors of 0, $(long_half "$t" | awk '{b = $1 < 0 ? -$1 : $1; print ($3 == "nan") ? "not measured" : b <= 2 * $3 ? "met" : "**missed**"}') |"
    echo "| the largest RSS over the run, MiB | $(awk '$2 > m {m = $2} END {printf "%.1f", m / 1024}' "$t" 2>/dev/null) | |"
}

# --- 15. 5,000 processes in the TUI (issue 24) -----------------------------------
# saved profiles of 5,000 processes of 3 commands (3 of their command's
# 30 stacks each): each view redrawn 50 times (:refresh) minus a run
# without, ms per redraw
if want manyprocs; then
    log "15. the tree, the processes view and the flame graph of 5,000 processes"
    # FOLD=1: as a live session holds them, the newest 64 apart and the
    # others in their commands' aggregates, "cc1 (1,645 exited)"
    p5k() {
        awk -v fold="$1" 'function commas(n) { return n < 1000 ? n : commas(int(n / 1000)) "," sprintf("%03d", n % 1000) }
            BEGIN { srand(7)
            for (c = 0; c < 3; c++) for (k = 0; k < 30; k++) { st = "main"
                for (d = 0; d < 6; d++) st = st ";f" c * 70 + int(rand() * 70)
                pool[c, k] = st }
            for (p = 0; p < 5000; p++) { c = p % 3; pid = 10000 + p
                cmd = c == 0 ? "cc1" : c == 1 ? "as" : "sh"
                root = cmd "-" pid ";" cmd "-" pid
                if (fold && p < 4936) root = cmd " (" commas(int((4936 - c + 2) / 3)) " exited);" cmd " (exited)"
                for (s = 0; s < 3; s++) print root ";" pool[c, int(rand() * 30)], 1 + int(rand() * 20) } }'
    }
    p5k 0 >"$TMP/p5k.folded"
    p5k 1 >"$TMP/p5k.f.folded"
    for v in 1 6 7 f1 f6 f7; do
        f=$TMP/p5k.folded
        case $v in f*) f=$TMP/p5k.f.folded ;; esac
        : >"$TMP/p5k.redraw.$v"
        : >"$TMP/p5k.key.$v"
        printf '%s\n' "${v#f}" >"$TMP/p5k.k0"
        { printf '%s\n' "${v#f}"; for ((i = 0; i < 50; i++)); do printf ':refresh\n'; done; } >"$TMP/p5k.k50"
        { printf '%s\n' "${v#f}"; for ((i = 0; i < 200; i++)); do printf '<Down>\n'; done; } >"$TMP/p5k.kd"
        for ((r = 0; r < REPS; r++)); do
            t0=$(date +%s.%N); TERM=xterm-256color LINES=40 COLUMNS=120 "$SP" -i "$f" --script "$TMP/p5k.k0" >/dev/null 2>&1; t1=$(date +%s.%N)
            TERM=xterm-256color LINES=40 COLUMNS=120 "$SP" -i "$f" --script "$TMP/p5k.k50" >/dev/null 2>&1; t2=$(date +%s.%N)
            TERM=xterm-256color LINES=40 COLUMNS=120 "$SP" -i "$f" --script "$TMP/p5k.kd" >/dev/null 2>&1; t3=$(date +%s.%N)
            awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {printf "%.3f\n", ((c - b) - (b - a)) / 50 * 1000}' >>"$TMP/p5k.redraw.$v"
            awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" 'BEGIN {x = ((d - c) - (b - a)) / 200 * 1000; printf "%.3f\n", x < 0 ? 0 : x}' >>"$TMP/p5k.key.$v"
        done
    done
    p5k_load=$(cut -d' ' -f1 /proc/loadavg)
fi

# --- 16. Ruby frames (issue 23) --------------------------------------------------
# rbspin.rb under Debian's ruby 3.1, through script_cost (section 12).
RBBIN=/usr/bin/ruby
declare -A RBC
if want ruby && [ -x "$RBBIN" ]; then
    log "ruby frames"
    script_cost rb RBC "$RBBIN" "$TOP/tests/bench/rbspin.rb"
fi

# --- report -------------------------------------------------------------------
# Only some sections run: the others' cells are "not run", and the files
# they would read are missing: not worth a line each on stderr.
[ "$SECTIONS" = all ] || exec 3>&2 2>/dev/null
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
| 8 busy threads on $cores CPUs, 1 kHz: samples per second of thread CPU time | ≥ perf record's ($(m "${RATE[perf-record.1000]:-nan}")) | $(m "${RATE[sp-perf.1000]:-not run}") | $(met "$(m "${RATE[sp-perf.1000]:-not run}")" "$(m "${RATE[perf-record.1000]:-nan}")" ge) | $(m "${RATE[sp-ptrace.1000]:-not run}") |
| 4 busy + 60 blocked threads, 100 Hz: whole CPU (share of a core) | ≤ 0.02 | $(m "${IDLE[share.perf.default]:-not run}") | $(met "$(m "${IDLE[share.perf.default]:-not run}")" 0.02 le) | $(m "${IDLE[share.ptrace.default]:-not run}") |
| \`--idle\` on 60 blocked threads (4 busy), 100 Hz: whole CPU (share of a core) | ≤ 0.05 | $(m "${IDLE[share.perf.idle]:-not run}") | $(met "$(m "${IDLE[share.perf.idle]:-not run}")" 0.05 le) | $(m "${IDLE[share.ptrace.idle]:-not run}") |

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
sec1_rows K
cat <<EOF

The target's CPU time per unit of work, with ÷ without:

| target | rate | perf | ptrace | perf --call-graph dwarf | perf --call-graph fp |
|---|---|---|---|---|---|
EOF
sec1_rows C
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
| 100 Hz | ${RATE[sp-perf.100]:-not run} | ${RATE[sp-ptrace.100]:-not run} | ${RATE[perf-record.100]:-not run} | wall $(K sp-perf.100.spin.8.h0), CPU $(C sp-perf.100.spin.8.h0) | wall $(K sp-ptrace.100.spin.8.h0), CPU $(C sp-ptrace.100.spin.8.h0) |
| 1000 Hz | ${RATE[sp-perf.1000]:-not run} | ${RATE[sp-ptrace.1000]:-not run} | ${RATE[perf-record.1000]:-not run} | wall $(K sp-perf.1000.spin.8.h0), CPU $(C sp-perf.1000.spin.8.h0) | wall $(K sp-ptrace.1000.spin.8.h0), CPU $(C sp-ptrace.1000.spin.8.h0) |

ptrace's figure counts the ticks of threads that were runnable but
waiting for a CPU (it stops them when they next run): more samples than
there was CPU time.

## 4. 4 busy + 60 blocked threads at 100 Hz

| backend, mode | sproftop's whole CPU, share of a core | stops of blocked threads | stacks reused without unwinding |
|---|---|---|---|
| perf, default (on-CPU) | ${IDLE[share.perf.default]:-not run} | ${IDLE[bstops.perf.default]:-not run} | ${IDLE[reused.perf.default]:-not run} |
| perf, --idle | ${IDLE[share.perf.idle]:-not run} | ${IDLE[bstops.perf.idle]:-not run} | ${IDLE[reused.perf.idle]:-not run} |
| ptrace, default (on-CPU) | ${IDLE[share.ptrace.default]:-not run} | ${IDLE[bstops.ptrace.default]:-not run} | ${IDLE[reused.ptrace.default]:-not run} |
| ptrace, --idle | ${IDLE[share.ptrace.idle]:-not run} | ${IDLE[bstops.ptrace.idle]:-not run} | ${IDLE[reused.ptrace.idle]:-not run} |

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
    for z in $SIZES; do printf ' %s |' "${TRUNC["$name.$z"]:-not run}"; done
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

## 9. Each backend's default rate (issue 12)

The 28-frame target of section 1 (one busy thread, with frame pointers
and without, and two busy threads) under each backend at common odd
rates (odd, so that the timer does not tick in lockstep with the
target), in interleaved on/off pairs, $SWEEP_REPS per cell. "CPU" is the
target's CPU time per unit of work with ÷ without the profiler; "held"
adds the time the target was stopped (its threads' time not spent
waiting for a CPU, from schedstat: run time plus stopped time, for a
target that never blocks), the figure that counts ptrace's stops; "wall"
is its throughput without ÷ with; "sproftop" is sproftop's own CPU (all
threads) over the window, as a share of one core (counted in clock
ticks: ± 0.01).

| target | rate | perf: CPU | perf: wall | perf: sproftop | ptrace: CPU | ptrace: held | ptrace: wall | ptrace: sproftop |
|---|---|---|---|---|---|---|---|---|
EOF
for row in "${SWEEP_ROWS[@]}"; do
    read -r bin busy <<<"$row"
    t="$(bn $bin)"; [ "$busy" = 1 ] || t="$t, $busy threads"
    for hz in $SWEEP_HZ; do
        k=$hz.$bin.$busy.h0
        echo "| $t | $hz Hz | $(C sp-perf.$k) | $(K sp-perf.$k) | $(T sp-perf.$k) | $(C sp-ptrace.$k) | $(H sp-ptrace.$k) | $(K sp-ptrace.$k) | $(T sp-ptrace.$k) |"
    done
done
cat <<EOF

The choice is read on the CPU column for perf (it never stops the
target) and on the held column for ptrace (its stops are the larger part
of what it costs): other jobs on the shared machine change the target's
share of the CPUs from one window to the next, and so the wall column by
several points, but not what a unit of work costs it nor how long the
sampler keeps it stopped. The default is the median rule's rate, over
the two single-thread rows: the highest rate whose median stays
≤ $SWEEP_LIMIT, at that rate and at every lower one. The fit checks it:
slowdown − 1 = rate × cost per sample, least squares over every pair of
every rate (the high rates, where the cost stands well above the noise,
weigh the most), and the highest swept rate at which rate × cost
≤ $(awk -v l="$SWEEP_LIMIT" 'BEGIN {print (l - 1) * 100}') %.

| backend | median rule | fit | cost per sample (fit), µs of the target's time | default of this build (\`--stats\` without \`-F\`) |
|---|---|---|---|---|
| perf | ${CHOSEN[perf]:-not run} Hz | ${FITTED[perf]:-not run} Hz | ${COST[perf]:-not run} | ${DEFAULT_HZ[perf]:-not measured} Hz |
| ptrace | ${CHOSEN[ptrace]:-not run} Hz | ${FITTED[ptrace]:-not run} Hz | ${COST[ptrace]:-not run} | ${DEFAULT_HZ[ptrace]:-not measured} Hz |

EOF
cat "$TOP/tests/bench/notes_rates.md"
cat <<EOF

## 10. Several processes (issue 14)

| figure | sproftop | peer | target |
|---|---|---|---|
| \`-a -F 99\`, 2 busy \`spin\` + $IDLE_PROCS idle \`sleeper\` processes (and the machine's other jobs): whole CPU, ms per second | $(awk '{printf "%.2f\n", $1 * 1000}' "$TMP/all.sp" | stats) | \`perf top -a -g -F 99\`: $(awk '{printf "%.2f\n", $1 * 1000}' "$TMP/all.top" | stats) | ≤ 0.5 × perf top: ratio $(awk -v a="$(median <"$TMP/all.sp")" -v t="$(median <"$TMP/all.top")" 'BEGIN {if (t + 0 > 0) printf "%.2f", a / t; else print "nan"}'), $(met "$(median <"$TMP/all.sp")" "$(awk -v t="$(median <"$TMP/all.top")" 'BEGIN {print (t == "" || t == "nan") ? "nan" : t / 2}')" le) |
| the same run: resident memory at the end of the window, MiB | $(awk '{printf "%.1f\n", $1 / 1024}' "$TMP/all.sprss" | stats) | perf top: $(awk '{printf "%.1f\n", $1 / 1024}' "$TMP/all.toprss" | stats) | |
| \`-p\` with 20 \`split\` processes: peak RSS, MiB | $(stats <"$TMP/rss20") | \`-p\` with one of them: $(stats <"$TMP/rss1") | ≤ 2 × one: ratio $(stats <"$TMP/rssratio"), $(met "$(median <"$TMP/rssratio")" 2 le) |

The CPU figures are from \`/proc/PID/task/*/schedstat\` of the tool (for
perf top, the perf process) between 4 s after its start and 1 s before
its end; the runs of the two tools alternate, $REPS each. \`-a\` sees the
whole machine, so the other jobs on it are in both tools' work.
$(cat "$TOP/tests/bench/notes_procs.md")

## 11. Launch mode on a busy machine (issue 27)

\`sproftop -F HZ -o FILE -- CMD\` against \`perf record -F HZ --call-graph dwarf
-- CMD\` and CMD alone, CMD being \`$BUILD/bench/spin PROGRESS 1 0 $LAUNCH_UNITS\`
(a fixed $LAUNCH_UNITS units of the 28-frame work of section 1, about
0.8 s of CPU, timed by the program itself from its \`main\` to its last
unit) and its build without frame pointers, with two more \`spin\`
processes keeping both CPUs busy. $LAUNCH_REPS rounds per row; a round
runs the three back to back, in an order turned from round to round.
"÷ alone" compares each run with the run alone of its own round; the
cells are the median (min-max) over the rounds. The last two columns
do not depend on the machine's other load: the CPU time the profiler
(every thread of the target's parent) used between the target's \`main\`
and its last unit, over the target's wall time, which is what the
profiler would cost the target if all of it came out of the target's
share of the CPUs. 199 Hz is sproftop's
default rate. The 1-minute load average when each run started (the two
hogs and the target are 3 of it): $(cat "$TMP"/launch.*.*.spin* 2>/dev/null | awk '{print $7}' | stats).

| target | rate | sproftop: wall ÷ alone | perf record: wall ÷ alone | target: sproftop ≤ perf record + 0.01 | sproftop: CPU ÷ alone | perf record: CPU ÷ alone | sproftop's CPU during the run, % of its wall | perf record's |
|---|---|---|---|---|---|---|---|---|
EOF
for bin in spin spin_nofp; do
    for hz in $LAUNCH_HZ; do
        k=$hz.$bin
        sw=$(launch_ratio sproftop "$k" 3); pw=$(launch_ratio perf "$k" 3)
        lim=$(awk -v p="$(m "$pw")" 'BEGIN {print (p ~ /^[0-9.]+$/) ? p + 0.01 : "nan"}')
        echo "| $(bn $bin) | $hz Hz | $sw | $pw | $lim: $(met "$(m "$sw")" "$lim" le) | $(launch_ratio sproftop "$k" 4) | $(launch_ratio perf "$k" 4) | $(launch_pct sproftop "$k") | $(launch_pct perf "$k") |"
    done
done
cat <<EOF

Per unit of work, µs: wall, CPU, and time spent waiting for a CPU (the
target's own \`/proc/self/task/*/schedstat\` at its end); and the CPU
time the profiler (every thread of the target's parent) used while the
target ran, from its \`main\` to its last unit, ms per run:

| target | rate, figure | alone | sproftop | perf record |
|---|---|---|---|---|
EOF
for bin in spin spin_nofp; do
    for hz in $LAUNCH_HZ; do
        k=$hz.$bin
        for f in "3 wall" "4 CPU" "5 waiting"; do
            read -r n what <<<"$f"
            echo "| $(bn $bin) | $hz Hz, $what | $(launch_stat alone "$k" "$n") | $(launch_stat sproftop "$k" "$n") | $(launch_stat perf "$k" "$n") |"
        done
        echo "| $(bn $bin) | $hz Hz, profiler CPU while the target ran, ms | | $(launch_ms sproftop "$k") | $(launch_ms perf "$k") |"
    done
done
if [ -s "$TMP/launch.before.1000.spin" ]; then
cat <<EOF

The same rounds also ran \`$LAUNCH_BEFORE\` (LAUNCH_BEFORE, $("$LAUNCH_BEFORE" --version 2>/dev/null | head -n 1)):

| target | rate | that build: wall ÷ alone | CPU ÷ alone | its CPU during the run, ms | % of the target's wall |
|---|---|---|---|---|---|
EOF
for bin in spin spin_nofp; do
    for hz in $LAUNCH_HZ; do
        k=$hz.$bin
        echo "| $(bn $bin) | $hz Hz | $(launch_ratio before "$k" 3) | $(launch_ratio before "$k" 4) | $(launch_ms before "$k") | $(launch_pct before "$k") |"
    done
done
fi
cat <<EOF

What sproftop loads before it launches the command (\`--stats\` of
\`sproftop -F 199 --stats -o FILE -- spin PROGRESS 1 0 1000\` in this run):

\`\`\`
$(grep -E '^(loaded before the launch|symbol store)' "$TMP/launch.stats" 2>/dev/null)
\`\`\`

$(cat "$TOP/tests/bench/notes_launch.md")
## 12. Python frames (issue 22)

| figure | perf backend | ptrace backend | target |
|---|---|---|---|
| sproftop's whole CPU per sample, pyspin.py at 1 kHz, reading Python frames (µs) | ${PYC[cpu.perf.default]:-not run} | ${PYC[cpu.ptrace.default]:-not run} | |
| ...the same target read natively only, \`SPROFTOP_PY_READ=off\` (µs) | ${PYC[cpu.perf.off]:-not run} | ${PYC[cpu.ptrace.off]:-not run} | |
| what Python frames add per sample, pairs of the rows above (µs) | ${PYC[cpu.perf.diff]:-not run} | ${PYC[cpu.ptrace.diff]:-not run} | ≤ 5: perf $(met "$(m "${PYC[cpu.perf.diff]:-n/a}")" 5 le) |
| the target's slowdown at 199 Hz (perf), CPU per unit of work, reading Python frames | ${PYC[slow.default]:-not run} | | unchanged within noise |
| ...native frames only | ${PYC[slow.off]:-not run} | | |
| the same, wall clock: reading / native only | ${PYC[wall.default]:-not run} / ${PYC[wall.off]:-not run} | | |
| accuracy: share of samples (%) whose Python leaf is the function pyhot.py's own log says ran then | ${PYC[acc.bpf]:-not run} (BPF, in the sampling interrupt) | ${PYC[acc.stop]:-not run} (during the stop) | |
| ...perf reading the frames when it drains the sample, up to 200 ms later (\`SPROFTOP_PY_READ=drain\`) | ${PYC[acc.drain]:-not run} | | |
| code that lives for less than a drain (pyexec.py: a new function compiled, run and freed every ~0.35 ms): samples (%) whose Python frames could not be read | ${PYC[exec.perf]:-not run} (checked at the drain, after the free) | ${PYC[exec.ptrace]:-not run} (read during the stop) | |

pyspin.py does fixed units of work 12 Python frames deep; the rows read
it once with Python frames and once without, interleaved, $REPS times.
The CPU per sample is sproftop's whole process (sampler, collector, main)
between 1.5 s and 3.5 s of a 4 s run, over the samples it took. The
perf backend's Python cost is mostly the target's: the BPF program walks
the frames in the sampling interrupt (its time is the target's, so it
shows in the slowdown rows); sproftop then names them through its code
cache, which checks each code object once per drain. The ptrace
backend walks the frames during its stop, a few reads through
process_vm_readv. The accuracy rows run tests/tools/pyaccuracy, which
runs the real sampler and compares each sample's Python leaf, at the
sample's CLOCK_MONOTONIC time, with the function pyhot.py's log (its own
calls' start times) says ran then: three functions of 60/30/10% take
turns every few milliseconds, so a read made 200 ms late agrees about as
often as chance (0.6² + 0.3² + 0.1² = 46%). The pyexec.py row samples
a loop whose code objects are freed within a millisecond: the perf
backend checks a code object when it drains the sample (an address can
be reused), by when most are gone, and counts those samples unreadable;
ptrace reads them during its stop.

## 13. Kernel frames and off-CPU reasons (issue 21)

| figure | with | without | change | target |
|---|---|---|---|---|
| sproftop's whole CPU per sample, µs: kernel frames (spin_sys, every sample with a kernel chain, 1 kHz) | ${KF[kf.on]:-not run} | \`--no-kernel\`: ${KF[kf.off]:-not run} | medians: ${KF[diff]:-not run} µs | ≤ 1 µs above: $(met "${KF[diff]:-x}" 1 le) |
| \`--idle\` on 4 busy + 60 blocked threads at 100 Hz: sproftop's whole CPU, share of a core | with reasons: ${KF[rs.on]:-not run} | as before them (\`SPROFTOP_OFFCPU_REASONS=0\`): ${KF[rs.off]:-not run} | medians: ratio ${KF[rsratio]:-not run} | ≤ 1.2×: $(met "${KF[rsratio]:-x}" 1.2 le) |
| spin_sys's slowdown at 1 kHz, CPU per unit with ÷ without | $(C sp-perf.1000.spin_sys.1.h0) | \`--no-kernel\`: $(C sp-perf-nokernel.1000.spin_sys.1.h0) | | unchanged within noise |
| the same, wall | $(K sp-perf.1000.spin_sys.1.h0) | $(K sp-perf-nokernel.1000.spin_sys.1.h0) | | |

Kernel frames cost sproftop the chain's bytes in each ring record, the
kernel addresses' lookups in the collector's pc cache (kallsyms is read
once, as the collector starts: about 60 ms of CPU, before the window),
and deeper stacks in the tree; they cost the target the
kernel's walk of its own stack in the sampling interrupt, which the
slowdown rows compare.  The machine's load average was ${KF[load0]:-?} as
this section began and ${KF[load1]:-?} as it ended: the more loaded, the
fewer samples spin_sys gets a second, and the more of a sample's figure
is sproftop's fixed work per second (the same in both modes: the
difference of the medians is then within the spread of either).  The perf backend's \`--stats\` of the first
run with kernel frames, and of the first \`--idle\` run with reasons:

\`\`\`
$(grep -E '^(samples|tracer|sproftop CPU|kernel|kallsyms)' "$TMP/kf.stats" 2>/dev/null)
$(grep -E '^(perf|sproftop CPU|kernel|off-CPU reasons)' "$TMP/rs.stats" 2>/dev/null)
\`\`\`

## 14. A day of \`-a\`: an hour on a build loop (issue 24)

\`tests/bench/longrun.sh DIR $LONG_MINUTES $LONG_TOP\`: a copy of this project is
built again and again (\`make -B -j2 sproftop\`) while
\`sproftop -a -d $((LONG_MINUTES * 60)) --stats -o FILE\` runs at its default rate;
for the first $LONG_TOP minutes \`perf top --stdio -a -g -d 60\` runs beside it
on the same loop. Every minute: sproftop's resident memory, the CPU time
of its threads and of perf's (\`/proc/PID/task/*/schedstat\`) and the
1-minute load average (whatever else the machine runs is in the load,
and in what \`-a\` sees).

The sproftop measured: $(cat "${LONG_DIR:-$TMP/long}/binary" 2>/dev/null || echo 'not recorded')$([ -n "$LONG_DIR" ] && printf '; reported from the runs in `%s`%s' "$LONG_DIR" "${LONG_MORE:+ and \`$LONG_MORE\` (LONG_DIR, LONG_MORE)}").

| figure | value | aim |
|---|---|---|
$(long_rows "$LONG_TSV" "$LONG_LAST")
| sproftop's CPU over the first $LONG_TOP_RAN minutes, % of one core | $(long_cpu 3 "$LONG_TOP_RAN") | |
| \`perf top -a -g\`'s over the same minutes, % of one core | $(long_cpu 5 "$LONG_TOP_RAN") | sproftop ÷ perf top: $(awk -v a="$(long_cpu 3 "$LONG_TOP_RAN")" -v b="$(long_cpu 5 "$LONG_TOP_RAN")" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "nan"}') |
| sproftop's CPU over the whole run, % of one core | $(long_cpu 3 "$LONG_LAST") | |
| 1-minute load average over the run | $(awk '{print $4}' "$LONG_TSV" 2>/dev/null | stats) | |

$(long_top_end)

$(for d in $LONG_MORE; do [ -s "$d/rss.tsv" ] || continue
cat <<EOF2
Another run ($d: $(cat "$d/binary" 2>/dev/null || echo 'another build'), its loop started
$(( ($(stat -c %Y "$d/loop.pid") - $(stat -c %Y "${LONG_DIR:-$TMP/long}/loop.pid")) / 60 )) minutes after the first's, $(long_clean "$d/rss.tsv" | tail -n 1 | cut -d' ' -f1) minutes,
perf top beside it for its first $(awk '$5 > 0 && $5 >= p {n = $1; p = $5; next} $5 > 0 || n {exit} END {print n + 0}' "$d/rss.tsv") minutes):

| figure | value | aim |
|---|---|---|
$(long_more_rows "$d")

\`\`\`
$(grep -E '^(samples|dropped|symbol reuse|symbol loads):' "$d/long.stats" 2>/dev/null)
\`\`\`

EOF2
done)

Module loads per binary, the folds, and what the profile held at the end
(\`--stats\` at the end: the binaries loaded most often, with how many
times, and the totals; the profile's memory by part, and the rare stacks
of exited processes cut):

\`\`\`
$(grep -E '^(samples|dropped|threads|folds of exited processes and threads|profile|rare stacks of exited processes and threads|symbol reuse|symbol loads|symbol frees|symbol store):' "${LONG_DIR:-$TMP/long}/long.stats" 2>/dev/null)
\`\`\`

The curve, every minute (perf top's CPU in its first $LONG_TOP minutes):

| minute | RSS, MiB | of it heap (RssAnon); mapped files (RssFile) | sproftop CPU in that minute, % of a core | perf top's | load |
|---|---|---|---|---|---|
$(awk '{c = prev == "" ? $3 : $3 - prev; p = pprev == "" ? $5 : $5 - pprev; prev = $3; pprev = $5
        printf "| %d | %.1f | %s | %.1f | %s | %s |\n", $1, $2 / 1024,
               (NF >= 7) ? sprintf("%.1f; %.1f", $6 / 1024, $7 / 1024) : "not recorded",
               c / 60e9 * 100,
               ($5 > 0 && p > 0) ? sprintf("%.1f", p / 60e9 * 100) : "", $4}' "$LONG_TSV" 2>/dev/null)

$(cat "$TOP/tests/bench/notes_long.md")

## 15. 5,000 processes in the TUI (issue 24)

Saved profiles of 5,000 processes (\`cc1\`, \`as\` and \`sh\`, each process 3
of its command's 30 stacks, 7 deep: 90 distinct stacks), opened with
\`sproftop -i FILE --script KEYS\` in a 120x40 terminal. "apart": every
process a root of its own (what a session would hold if nothing were
folded); "folded": as a live session holds them, the newest 64 apart and
the 4,936 others in their commands' aggregates. Load average at the end:
${p5k_load:-not run}.

A redraw: the view's key, then 200 \`<Down>\` (each a key's redraw of
the whole screen), minus the same run without them, per key; a run
shorter than the one without (noise) counts 0.

| view | apart: ms per redraw | aim | folded: ms per redraw | aim |
|---|---|---|---|---|
$(for v in "1 Tree" "6 Flame" "7 Procs"; do k=${v%% *}
    echo "| $v | $(stats <"$TMP/p5k.key.$k") | ≤ 20: $(met "$(median <"$TMP/p5k.key.$k")" 20 le) | $(stats <"$TMP/p5k.key.f$k") | ≤ 20: $(met "$(median <"$TMP/p5k.key.f$k")" 20 le) |"; done)

A refresh: 50 \`:refresh\` (each a snapshot of the whole profile, the
model over it, the views' lines and a draw), minus the same run without
them, per refresh. In a live session the snapshot and the model are
built on the TUI's builder thread (ui/feed.c), not on the thread that
answers keys; only a forced refresh (\`C-l\`, \`:refresh\`, a
\`:load\`) is built on it, as here.

| view | apart: ms per refresh | folded: ms per refresh |
|---|---|---|
$(for v in "1 Tree" "6 Flame" "7 Procs"; do k=${v%% *}
    echo "| $v | $(stats <"$TMP/p5k.redraw.$k") | $(stats <"$TMP/p5k.redraw.f$k") |"; done)

## 16. Ruby frames (issue 23)

| figure | perf backend | ptrace backend | target |
|---|---|---|---|
| sproftop's whole CPU per sample, rbspin.rb at 1 kHz, reading Ruby frames (µs) | ${RBC[cpu.perf.default]:-not run} | ${RBC[cpu.ptrace.default]:-not run} | |
| ...the same target read natively only, \`SPROFTOP_PY_READ=off\` (µs) | ${RBC[cpu.perf.off]:-not run} | ${RBC[cpu.ptrace.off]:-not run} | |
| what Ruby frames add per sample, pairs of the rows above (µs) | ${RBC[cpu.perf.diff]:-not run} | ${RBC[cpu.ptrace.diff]:-not run} | ≤ 5: perf $(met "$(m "${RBC[cpu.perf.diff]:-n/a}")" 5 le) |
| samples whose Ruby frames could not be read (torn), of the samples with a Ruby stack | ${RBC[torn.perf]:-not run} | ${RBC[torn.ptrace]:-not run} | counted in --stats |
| the target's slowdown at 199 Hz (perf), CPU per unit of work, reading Ruby frames | ${RBC[slow.default]:-not run} | | unchanged within noise |
| ...native frames only | ${RBC[slow.off]:-not run} | | |
| the same, wall clock: reading / native only | ${RBC[wall.default]:-not run} / ${RBC[wall.off]:-not run} | | |

rbspin.rb does fixed units of work 12 Ruby frames deep under Debian 12's
/usr/bin/ruby (3.1); the rows read it once with Ruby frames and once
without, interleaved, $REPS times, as section 12 does for Python. The
perf backend's BPF program walks the control frames in the sampling
interrupt (the target's time: the slowdown rows); sproftop then names
iseqs and C methods through the code cache it shares with the Python
reader.

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
- Section 9: \`sproftop --sampler perf|ptrace -p PID -F HZ -d $(awk -v w="$WIN" 'BEGIN {print w + 0.7}') -o FILE\` for HZ in $SWEEP_HZ,
  on \`$BUILD/bench/spin PROGRESS 1\`, \`spin_nofp PROGRESS 1\` and \`spin PROGRESS 2\`; \`SECTIONS=rates tests/bench/run.sh\` runs it alone.
- Section 10: \`sproftop -a -F 99 -d $MACH_SECS -o FILE\` and \`perf top --stdio -a -g -F 99\` beside $IDLE_PROCS \`$BUILD/targets/sleeper\`
  and 2 \`$BUILD/bench/spin\`; \`/usr/bin/time -f %M sproftop -p P1,...,P20 -F 99 -d $MEM_SECS -o FILE\` and the same with \`-p P1\`,
  on 20 \`$BUILD/targets/split\`; \`SECTIONS=procs tests/bench/run.sh\` runs it alone.
- Section 11: \`sproftop -F HZ -o FILE -- $BUILD/bench/spin PROGRESS 1 0 $LAUNCH_UNITS\`,
  \`perf record -q -F HZ --call-graph dwarf -o FILE -- $BUILD/bench/spin PROGRESS 1 0 $LAUNCH_UNITS\`
  and the command alone (and \`spin_nofp\`), HZ in $LAUNCH_HZ, beside 2 more \`$BUILD/bench/spin\`;
  \`SECTIONS=launch tests/bench/run.sh\` runs it alone (LAUNCH_REPS, LAUNCH_HZ, LAUNCH_UNITS; LAUNCH_BEFORE=BINARY
  adds another sproftop build to the rounds).
- Section 12: \`/usr/bin/python3 tests/bench/pyspin.py PROGRESS\`, \`[SPROFTOP_PY_READ=off] sproftop --sampler perf|ptrace -p PID -F 1000 -d 4 --stats\`
  and \`sproftop --sampler perf -p PID -F 199 -d $(awk -v w="$WIN" 'BEGIN {print w + 0.7}') -o FILE\` (windows); \`[SPROFTOP_PY_READ=drain] $BUILD/tools/pyaccuracy --sampler perf|ptrace -F 1000 --log LOG -- /usr/bin/python3 tests/targets/pyhot.py --cpu 1.5 --log LOG\`;
  \`sproftop --sampler perf|ptrace -p PID -F 999 -d 4 --stats\` on \`/usr/bin/python3 tests/targets/pyexec.py 30\`;
  \`SECTIONS=python tests/bench/run.sh\` runs it alone.
- Section 13: \`sproftop --sampler perf [--no-kernel] -p PID -F 1000 -d 12 --stats -o FILE\` on
  \`$BUILD/bench/spin_sys PROGRESS 1\` (CPU between 6 s and 11.5 s), \`[SPROFTOP_OFFCPU_REASONS=0] sproftop
  --sampler perf -p PID -F 100 -d 5 --idle --stats\` on \`$BUILD/bench/spin PROGRESS 4 60\`, and section 1's
  pairs for \`--sampler perf [--no-kernel] -F 1000\` on spin_sys; \`SECTIONS=kernel tests/bench/run.sh\` runs it alone.
- Section 14: \`tests/bench/longrun.sh DIR $LONG_MINUTES $LONG_TOP\` (\`SECTIONS=long\`; LONG_MINUTES, LONG_TOP;
  LONG_DIR=DIR reports a run made before).
- Section 15: \`sproftop -i P5K.folded --script KEYS\` with the view's key and 50 \`:refresh\` lines minus a run
  without them (\`SECTIONS=manyprocs\`).
- Section 16: \`/usr/bin/ruby tests/bench/rbspin.rb PROGRESS\`, \`[SPROFTOP_PY_READ=off] sproftop --sampler perf|ptrace -p PID -F 1000 -d 4 --stats\`
  and \`sproftop --sampler perf -p PID -F 199 -d $(awk -v w="$WIN" 'BEGIN {print w + 0.7}') -o FILE\` (windows);
  \`SECTIONS=ruby tests/bench/run.sh\` runs it alone.
- Regenerate: \`make bench\` (REPS, WIN, SECTIONS, SWEEP_HZ, SWEEP_REPS, IDLE_PROCS, LAUNCH_REPS environment variables).
EOF
    # the soak (tests/soak/soak.sh, an hour): not rerun here, its last
    # results kept
    [ -f "$TOP/tests/soak/results.md" ] && { echo; cat "$TOP/tests/soak/results.md"; }
} >"$TMP/doc.md"
[ "$SECTIONS" = all ] || exec 2>&3 3>&-
if [ "$SECTIONS" = all ]; then
    cp "$TMP/doc.md" "$OUT"
    log "wrote $OUT"
else
    # only the sections run, from their "## N." heading to the next one
    nums=
    for sec in $SECTIONS; do
        case $sec in
        slowdown) nums="$nums 1" ;; cost) nums="$nums 2 6" ;; threads) nums="$nums 3" ;;
        idle) nums="$nums 4" ;; aggregate) nums="$nums 5" ;; stackcopy) nums="$nums 7" ;;
        signals) nums="$nums 8" ;; rates) nums="$nums 9" ;; procs) nums="$nums 10" ;;
        launch) nums="$nums 11" ;;
        python) nums="$nums 12" ;;
        kernel) nums="$nums 13" ;;
        long) nums="$nums 14" ;; manyprocs) nums="$nums 15" ;;
        ruby) nums="$nums 16" ;;
        *) log "unknown section $sec" ;;
        esac
    done
    awk -v nums="$nums" 'BEGIN {n = split(nums, a, " "); for (i = 1; i <= n; i++) keep[a[i] "."] = 1}
        /^## / {on = ($2 in keep)} on' "$TMP/doc.md" >"$TMP/part.md"
    cat "$TMP/part.md"
    if [ "${UPDATE:-0}" = 1 ] && [ -f "$OUT" ]; then
        # these sections (and the command list) replace the ones of the
        # same number in $OUT; a new one N goes after section N-1, or
        # before "## Commands"
        when="Measured by \`SECTIONS=\"$SECTIONS\" UPDATE=1 tests/bench/run.sh\` on $(date -u +%Y-%m-%d), apart from the run of the other sections (REPS=$REPS)."
        awk -v when="$when" '
            FNR == NR {
                if (/^## /) { cur = $2; order[++n] = cur; text[cur] = $0 "\n\n_" when "_\n"; next }
                text[cur] = text[cur] $0 "\n"; next }
            /^## / {
                skip = 0
                if (last != "" && (last + 1) "." in text && !((last + 1) "." in done)) {
                    printf "%s", text[(last + 1) "."]; done[(last + 1) "."] = 1 }
                if ($2 ~ /^[0-9]+\.$/) last = $2 + 0
                if ($2 == "Commands")
                    for (i = 1; i <= n; i++) if (!(order[i] in done)) { printf "%s", text[order[i]]; done[order[i]] = 1 }
                if ($2 in text) { if (!($2 in done)) printf "%s", text[$2]; done[$2] = 1; skip = 1; next }
            }
            !skip' "$TMP/part.md" "$OUT" >"$TMP/new.md"
        awk '/^## Commands/ {on = 1} on' "$TMP/doc.md" >"$TMP/cmds.md"
        awk 'FNR == NR {c = c $0 "\n"; next} /^## Commands/ {printf "%s", c; exit} {print}' \
            "$TMP/cmds.md" "$TMP/new.md" >"$OUT"
        log "updated $OUT"
    fi
fi
