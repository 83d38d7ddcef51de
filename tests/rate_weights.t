#!/usr/bin/env bash
# rate_weights.t - every sample weighs the time it stands for (issue 19,
# item 2): a rate changed mid-run leaves the shares and the saved times
# true.
#
# The target (tests/targets/rates.c) spins in spin_a, then in spin_b,
# each for a known CPU time that it measures itself (and the wall time
# it took), each phase started on a cue.  The live view (tmux) samples
# phase A at 100 Hz; `i` then asks 1000 Hz before phase B.  Counting
# samples would give spin_a 1 part in 11; weighing them gives each phase
# its time.  Checked against the target's own figures, for each backend:
#   - the shares: the flat view's Total% of spin_a and spin_b, and the
#     shares in the saved pprof (go tool pprof -top), text and folded
#     files;
#   - the times: go tool pprof's "Total samples" and its cum of each
#     spin, the text report's "Total cpu time observed" and its rows, and
#     the folded counts (in the nominal interval, 1 ms: the shortest
#     asked).
# perf counts CPU time (cpu-clock): within 5% of the target's CPU time.
# ptrace samples a thread that is running or waiting for a CPU, so on a
# busy machine it counts up to the wall time the phase took: its bounds
# are 95% of the CPU time and 105% of the wall time (equal when the
# machine is idle), and its shares follow from those.
# Every wait is bounded polling (wait_until).
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets rates
use_tmux sproftop-rates
export HOME=$TMPD/home GOCACHE=$TMPD/gocache PPROF_TMPDIR=$TMPD/pprof
mkdir -p "$HOME"
have_go=
command -v go >/dev/null 2>&1 && go tool pprof -h >/dev/null 2>&1 && have_go=1

CPU_S=1  # each phase's CPU time
NOMINAL_MS=1  # the shortest interval asked (1000 Hz): the folded unit

# within NAME VALUE LO HI: one TAP test, LO <= VALUE <= HI.
within() {
    ok "$(awk -v v="$2" -v lo="$3" -v hi="$4" \
        'BEGIN { exit !(v != "" && v >= lo && v <= hi) }'; echo $?)" \
        "$1: $2 in [$3, $4]"
}

# share_bounds: LO HI of spin_a's share in percent from the target's
# figures: [CA/(CA+WB), WA/(WA+CB)] (ptrace) or CA/(CA+CB) (perf),
# widened by 5% of the share.
share_bounds() {
    awk -v ca="$CA" -v wa="$WA" -v cb="$CB" -v wb="$WB" -v b="$BACKEND" \
        'BEGIN { if (b != "ptrace") { wa = ca; wb = cb }
                 lo = 100 * ca / (ca + wb); hi = 100 * wa / (wa + cb)
                 printf "%.2f %.2f\n", lo * 0.95, hi * 1.05 }'
}

# time_bounds A|B|ALL: LO HI in ms for that phase (or both).
time_bounds() {
    awk -v ca="$CA" -v wa="$WA" -v cb="$CB" -v wb="$WB" -v b="$BACKEND" \
        -v which="$1" \
        'BEGIN { if (b != "ptrace") { wa = ca; wb = cb }
                 c = which == "A" ? ca : which == "B" ? cb : ca + cb
                 w = which == "A" ? wa : which == "B" ? wb : wa + wb
                 printf "%.1f %.1f\n", c / 1e6 * 0.95, w / 1e6 * 1.05 }'
}

# check_share NAME PCT_A: spin_a's share within its bounds.
check_share() {
    local lo hi
    read -r lo hi < <(share_bounds)
    within "$BACKEND: $1: spin_a's share (%)" "$2" "$lo" "$hi"
}

# check_time NAME A|B|ALL MS
check_time() {
    local lo hi
    read -r lo hi < <(time_bounds "$2")
    within "$BACKEND: $1" "$3" "$lo" "$hi"
}

# flat_total FUNC: the flat view's Total% of FUNC on screen (Self,
# Self%, Total, Total%, Function; the cursor's '>' first).
flat_total() {
    screen "$BACKEND" | awk -v f="$1" '{ sub(/^ *> */, " ") }
        $5 == f { sub(/%/, "", $4); print $4; exit }'
}

# samples_steady: the header's sample count is the same at two reads
# 0.5 s apart of the screen refreshed every 0.3 s (the target is asleep).
samples_steady() {
    local a b
    a=$(header_value "$BACKEND" Samples)
    sleep 0.5
    b=$(header_value "$BACKEND" Samples)
    [ -n "$a" ] && [ "$a" = "$b" ]
}

# save FILE: s, the name, Enter; wait until FILE is written.
save() {
    keys "$BACKEND" s
    wait_until 10 screen_has "$BACKEND" '^Save '
    keys "$BACKEND" C-u
    keys "$BACKEND" -l "$1"
    keys "$BACKEND" Enter
    wait_until 20 test -s "$1" || diag "no $1: $(screen "$BACKEND" | tail -n 2)"
}

run_backend() {
    BACKEND=$1
    local dir=$TMPD/$1 pid
    mkdir -p "$dir/cue"
    start_target rates "$CPU_S" "$CPU_S" "$dir/cue" || bail_out "cannot start rates"
    pid=$TARGET_PID
    "${T[@]}" new-session -d -s "$1" -x 120 -y 30 \
        "cd '$dir' && '$SPROFTOP' --no-confirm -r 0.3 --sampler $1 -F 100 -p $pid 2>'$dir/err'"
    wait_until 20 screen_has "$1" "PID $pid" && screen_has "$1" 'Rate: 100 Hz' ||
        { diag "$(screen "$1")"; bail_out "$1: the live view did not start"; }
    touch "$dir/cue/start"
    wait_until 60 test -s "$dir/cue/a" || bail_out "$1: phase A did not end"
    keys "$1" i
    wait_until 10 screen_has "$1" 'Sampling interval'
    keys "$1" C-u
    keys "$1" -l 1000hz
    keys "$1" Enter
    check "$1: i asked 1000 Hz" wait_until 10 screen_has "$1" 'Rate: 1000 Hz'
    touch "$dir/cue/go"
    wait_until 60 test -s "$dir/cue/b" || bail_out "$1: phase B did not end"
    read -r CA WA <"$dir/cue/a"
    read -r CB WB <"$dir/cue/b"
    note "$1: the target's own figures: A ${CA} ns CPU in ${WA} ns, B ${CB} ns CPU in ${WB} ns"
    wait_until 20 samples_steady || diag "$1: samples still coming"

    keys "$1" 2
    wait_until 10 screen_has "$1" ' spin_b$| spin_b ' || diag "$(screen "$1")"
    local sa sb
    sa=$(flat_total spin_a)
    sb=$(flat_total spin_b)
    note "$1: flat view: spin_a $sa%, spin_b $sb%"
    check_share "the flat view" "$sa"

    cd "$dir" || bail_out "no $dir"
    save rates.pb.gz
    save rates.txt
    save rates.folded
    keys "$1" q
    wait_until 10 session_gone "$1"
    kill_pid "$pid"

    # pprof: go tool pprof reads the times.
    if [ -n "$have_go" ]; then
        local top total ta tb
        top=$(go tool pprof -top -nodefraction=0 -unit=ms rates.pb.gz 2>&1)
        total=$(printf '%s\n' "$top" | sed -n 's/.*Total samples = \([0-9.]*\)ms.*/\1/p')
        ta=$(printf '%s\n' "$top" | awk '$6 == "spin_a" { sub(/ms/, "", $4); print $4 }')
        tb=$(printf '%s\n' "$top" | awk '$6 == "spin_b" { sub(/ms/, "", $4); print $4 }')
        note "$1: go tool pprof: total ${total}ms, spin_a ${ta}ms, spin_b ${tb}ms"
        check_time "pprof: go tool pprof's Total samples (ms)" ALL "$total"
        check_time "pprof: spin_a's cum (ms)" A "$ta"
        check_time "pprof: spin_b's cum (ms)" B "$tb"
        check_share "pprof" "$(awk -v a="$ta" -v b="$tb" 'BEGIN { if (a + b) printf "%.2f", 100 * a / (a + b) }')"
    else
        skip 4 "go tool pprof not installed (apt-get install golang-go)"
    fi

    # text: the report's total and rows (ms).
    local ttotal xa xb
    ttotal=$(sed -n 's/.*Total cpu time observed: \([0-9.]*\)ms.*/\1/p' rates.txt)
    xa=$(awk '$1 ~ /^\[[0-9]+\]$/ && $4 == "spin_a" { sub(/\(.*/, "", $2); print $2 }' rates.txt)
    xb=$(awk '$1 ~ /^\[[0-9]+\]$/ && $4 == "spin_b" { sub(/\(.*/, "", $2); print $2 }' rates.txt)
    note "$1: text: total ${ttotal}ms, spin_a ${xa}ms, spin_b ${xb}ms"
    check_time "text: Total cpu time observed (ms)" ALL "$ttotal"
    check_time "text: spin_a's total (ms)" A "$xa"
    check_time "text: spin_b's total (ms)" B "$xb"

    # folded: counts of the nominal interval.
    local fa fb
    fa=$(awk -v ms="$NOMINAL_MS" '/;spin_a[ ;]/ { n += $NF } END { print n * ms }' rates.folded)
    fb=$(awk -v ms="$NOMINAL_MS" '/;spin_b[ ;]/ { n += $NF } END { print n * ms }' rates.folded)
    note "$1: folded: spin_a ${fa}ms, spin_b ${fb}ms"
    check_time "folded: spin_a's counts x 1 ms" A "$fa"
    check_time "folded: spin_b's counts x 1 ms" B "$fb"
    check_share "folded" "$(awk -v a="$fa" -v b="$fb" 'BEGIN { if (a + b) printf "%.2f", 100 * a / (a + b) }')"
    cd "$TMPD" || true
}

if "$SPROFTOP" --version | grep -q '^sampler: auto picks perf'; then
    run_backend perf
else
    skip 12 "perf_event is not permitted here"
fi
run_backend ptrace

done_testing
