#!/usr/bin/env bash
# cli_rate.t - each backend's default sampling rate (issue 12, item 11),
# chosen by `make bench` (docs/PERFORMANCE.md, section 9): perf 199 Hz,
# ptrace 99 Hz.
#
# Checks, on a running split: without -F, --stats asks each backend's own
# rate (--sampler perf, --sampler ptrace, auto falling back to ptrace
# under the noperf seccomp filter, and every process of -p P1,P2); -F
# overrides it on both; the live header shows the default (Rate: and
# Interval:), `<` doubles it from there; --help names the same two rates.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets split noperf

PERF_HZ=199
PTRACE_HZ=99
SP_TIMEOUT=30

# asked FILE: the "asked N Hz per thread" rates of a --stats report, one
# per process, space-separated
asked() {
    sed -n 's/^sproftop stats: .* asked \([0-9.]*\) Hz per thread.*/\1/p' "$1" | tr '\n' ' ' | sed 's/ $//'
}

# rate_and_override BACKEND HZ: --stats asks HZ without -F, 333 Hz with -F 333;
# and says when its first and last samples were taken, by CLOCK_MONOTONIC
# (as perf record -k CLOCK_MONOTONIC stamps its own): within the run
rate_and_override() {
    local before after span
    before=$(mono_now)
    run_sproftop --sampler "$1" -p "$pid" -d 0.3 --stats -o "$TMPD/$1.folded"
    after=$(mono_now)
    is "$RC:$(asked "$ERR")" "0:$2.0" "--sampler $1 without -F asks $2 Hz"
    span=$(sed -n 's/^samples taken: from \([0-9.]*\) to \([0-9.]*\) s (CLOCK_MONOTONIC.*/\1 \2/p' "$ERR")
    is "$(echo "$span" | awk -v b="$before" -v a="$after" \
            'NF == 2 { print ($1 >= b && $1 <= $2 && $2 <= a) ? "within" : "outside: " b " " $0 " " a }')" \
        within "--sampler $1: --stats' samples taken from and to, by CLOCK_MONOTONIC, within the run"
    run_sproftop --sampler "$1" -p "$pid" -F 333 -d 0.3 --stats -o "$TMPD/$1-F.folded"
    is "$RC:$(asked "$ERR")" "0:333.0" "--sampler $1 -F 333 asks 333 Hz"
}

# header_of HZ: the header's Rate: and Interval: for that rate, as
# header_rate prints them ("99.0 10.10ms": one decimal below 100 Hz)
header_of() { awk -v h="$1" 'BEGIN {printf (h < 100 ? "%.1f" : "%.0f") " %.2fms\n", h, 1000 / h}'; }

# header_rate BACKEND [ARGS...]: the live view's Rate: and Interval:
# fields ("RATE INTERVAL"), from a --script dump of its first screen
header_rate() {
    local b=$1
    shift
    printf ':refresh\n:dump %s\nq\n' "$TMPD/rate.dump" >"$TMPD/rate.keys"
    rm -f "$TMPD/rate.dump"
    TERM=xterm-256color LINES=30 COLUMNS=120 run_sproftop --no-confirm --sampler "$b" \
        -p "$pid" "$@" --script "$TMPD/rate.keys"
    sed -n 's/.* Rate: \([0-9.]*\) Hz *Interval: \([0-9.]*[mun]*s\).*/\1 \2/p' "$TMPD/rate.dump" 2>/dev/null
}

start_target split || bail_out "cannot start split"
pid=$TARGET_PID
start_target split || bail_out "cannot start a second split"
pid2=$TARGET_PID

have_perf=
"$SPROFTOP" --version | grep -q '^sampler: auto picks perf' && have_perf=1

plan 17

# --- ptrace ----------------------------------------------------------------------
rate_and_override ptrace "$PTRACE_HZ"
is "$(header_rate ptrace)" "$(header_of "$PTRACE_HZ")" \
    "ptrace: the header shows the default rate"

# auto, refused perf_event: ptrace's default, not perf's
_run_seq=$((_run_seq + 1))
ERR=$TMPD/noperf.err
timeout -k 5 "$SP_TIMEOUT" "$TARGETS/noperf" "$SPROFTOP" -p "$pid" -d 0.3 --stats \
    -o "$TMPD/np.folded" </dev/null 2>"$ERR"
is "$?:$(stats_sampler "$ERR"):$(asked "$ERR")" "0:ptrace:$PTRACE_HZ.0" \
    "auto falling back to ptrace asks ptrace's default"

# --- perf --------------------------------------------------------------------------
if [ -n "$have_perf" ]; then
    rate_and_override perf "$PERF_HZ"
    run_sproftop -p "$pid" -d 0.3 --stats -o "$TMPD/auto.folded"
    is "$(stats_sampler "$ERR"):$(asked "$ERR")" "perf:$PERF_HZ.0" \
        "auto on perf asks perf's default"
    run_sproftop --sampler perf -p "$pid,$pid2" -d 0.3 --stats -o "$TMPD/two.folded"
    is "$RC:$(asked "$ERR")" "0:$PERF_HZ.0" "-p P1,P2: one sampler for both, at perf's default"
    run_sproftop --sampler perf -p "$pid,$pid2" -F 333 -d 0.3 --stats -o "$TMPD/two2.folded"
    is "$RC:$(asked "$ERR")" "0:333.0" "-p P1,P2 -F 333: one sampler for both, at 333 Hz"
    is "$(header_rate perf)" "$(header_of "$PERF_HZ")" \
        "perf: the header shows the default rate"
    is "$(header_rate perf -F 50)" "50.0 20.00ms" "perf: -F 50 in the header"
else
    skip 8 "perf_event is not permitted here"
fi

# `<` halves the interval from the default (ptrace: no privilege needed)
printf ':refresh\n<\n:refresh\n:dump %s\nq\n' "$TMPD/half.dump" >"$TMPD/half.keys"
TERM=xterm-256color LINES=30 COLUMNS=120 run_sproftop --no-confirm --sampler ptrace -p "$pid" \
    --script "$TMPD/half.keys"
like "$(cat "$TMPD/half.dump" 2>/dev/null)" "Rate: $((PTRACE_HZ * 2)) Hz" \
    "ptrace: < from the default doubles the rate"

# `<` and `>` past the interval's bounds (src/base/bounds.h): the rate
# stops at the bound and the message line says it was clamped, and to what
clamp_msg() {
    printf ':refresh\n%s\n:dump %s\nq\n' "$2" "$TMPD/clamp.dump" >"$TMPD/clamp.keys"
    rm -f "$TMPD/clamp.dump"
    TERM=xterm-256color LINES=30 COLUMNS=120 run_sproftop --no-confirm --sampler ptrace \
        -p "$pid" -F "$1" --script "$TMPD/clamp.keys"
    grep -o 'sampling every .*' "$TMPD/clamp.dump" 2>/dev/null | sed 's/ *$//'
}
is "$(clamp_msg 9000 '<')" "sampling every 100.0us (10000 Hz), clamped to 100.0us..1.00s" \
    "< from 9000 Hz stops at 10 kHz and says it was clamped"
is "$(clamp_msg 1 '>')" "sampling every 1.00s (1.0 Hz), clamped to 100.0us..1.00s" \
    "> from 1 Hz stops at 1 Hz and says it was clamped"

# --help names both defaults
help=$("$SPROFTOP" --help)
like "$(echo "$help" | grep -A1 -- '-F, --freq' | tr -s '\n ' ' ')" "perf sampler $PERF_HZ, ptrace $PTRACE_HZ\)" \
    "--help names each backend's default"
