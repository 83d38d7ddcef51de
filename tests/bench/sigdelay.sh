#!/usr/bin/env bash
# tests/bench/sigdelay.sh - signal delivery delay with and without sproftop,
# per sampling backend, in one run: prints a Markdown table (run.sh puts
# it in docs/PERFORMANCE.md, section 7).
#
# `sigdelay recv` spins and logs, for each signal it handles, the time
# from its sigqueue (the value it carries) to its handler; `sigdelay send`
# queues SIG_N signals SIG_GAP_US apart.  The rows are interleaved REPS
# times: no profiler, then sproftop at 1 kHz with each backend of
# `backends` (a backend's command line is in tool_cmd).
#
#   tests/bench/sigdelay.sh [BUILD]     REPS, SIG_N, SIG_GAP_US from the
#                                       environment (5, 100, 5000)
set -u
cd "$(dirname "$0")/../.."
TOP=$PWD
BUILD=${1:-${BUILD:-build}}
SIGDELAY=$TOP/$BUILD/bench/sigdelay
SP=${SPROFTOP:-$TOP/sproftop}
REPS=${REPS:-5}
SIG_N=${SIG_N:-100}
SIG_GAP_US=${SIG_GAP_US:-5000}
TMP=$(mktemp -d /tmp/sproftop-sigdelay.XXXXXX)
RECV=
cleanup() {
    [ -n "$RECV" ] && { kill -KILL "$RECV" 2>/dev/null; wait "$RECV" 2>/dev/null; }
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The backends sproftop has: each row attaches it with --sampler; perf
# only where it is permitted (perf_event_paranoid, CAP_PERFMON).
tool_cmd() { # BACKEND PID -> command words (ended by SIGINT)
    echo "$SP --sampler $1 -p $2 -F 1000 -o $TMP/s.folded"
}
backends=(ptrace)
sleep 30 &
probe=$!
# shellcheck disable=SC2046
$(tool_cmd perf "$probe") -d 0.2 >/dev/null 2>&1 && backends+=(perf)
kill "$probe"
wait "$probe" 2>/dev/null

lines() { awk 'END { print NR }' "$TMP/delays"; }

# wait_for TIMEOUT_S CMD...: poll CMD every 10 ms, bounded.
wait_for() {
    local tries=$(( $1 * 100 )) i
    shift
    for ((i = 0; i < tries; i++)); do
        "$@" && return 0
        sleep 0.01
    done
    return 1
}
tracer() { awk '/^TracerPid:/ { print $2 }' "/proc/$RECV/status"; }
traced() { [ "$(tracer)" != 0 ]; }
untraced() { [ "$(tracer)" = 0 ]; }
# attached TOOL: sampling began: the receiver is traced (ptrace), or TOOL
# holds more perf_event fds than there are CPUs (perf: one ring buffer
# per CPU, then the receiver's own events), as tests/lib.sh checks.
attached() {
    traced && return 0
    [ "$(ls -l "/proc/$1/fd" 2>/dev/null | grep -c 'anon_inode:\[perf_event\]')" -gt "$(nproc)" ]
}
has_lines() { [ "$(lines)" -ge "$1" ]; }

"$SIGDELAY" recv "$TMP/delays" &
RECV=$!
wait_for 5 test -e "$TMP/delays" || { echo "sigdelay recv did not start" >&2; exit 1; }

# one_round MODE: SIG_N signals with MODE's profiler attached (none: no
# profiler); their delays go to $TMP/d.MODE
one_round() {
    local mode=$1 from tool=
    from=$(lines)
    if [ "$mode" != none ]; then
        # shellcheck disable=SC2046
        $(tool_cmd "$mode" "$RECV") >/dev/null 2>&1 &
        tool=$!
        wait_for 10 attached "$tool" || echo "$mode: did not attach" >&2
        sleep 0.2
    fi
    "$SIGDELAY" send "$RECV" "$SIG_N" "$SIG_GAP_US"
    wait_for 10 has_lines $((from + SIG_N)) || echo "$mode: signals missing" >&2
    if [ -n "$tool" ]; then
        kill -INT "$tool"
        wait "$tool"
        wait_for 10 untraced
    fi
    sed -n "$((from + 1)),$((from + SIG_N))p" "$TMP/delays" >>"$TMP/d.$mode"
}

for ((r = 0; r < REPS; r++)); do
    for mode in none "${backends[@]}"; do
        one_round "$mode"
    done
done

# p50, p99 and max of a file of ns, in µs
pcts() {
    sort -n "$1" | awk '{ v[NR] = $1 } END {
        if (!NR) { print "| 0 | n/a | n/a | n/a |"; exit }
        p50 = v[int((NR - 1) * 0.50) + 1]; p99 = v[int((NR - 1) * 0.99) + 1]
        printf "| %d | %.1f | %.1f | %.1f |\n", NR, p50 / 1e3, p99 / 1e3, v[NR] / 1e3 }'
}

echo "| profiler | signals | p50 µs | p99 µs | max µs |"
echo "|---|---|---|---|---|"
echo "| none $(pcts "$TMP/d.none")"
for b in "${backends[@]}"; do
    echo "| sproftop, $b backend, 1 kHz $(pcts "$TMP/d.$b")"
done
