# tests/lib.sh - TAP helpers and process plumbing for the shell tests.
#
# Sourced by every tests/*.t (bash).  It gives:
#   - TAP output: plan, ok, is, isnt, like, unlike, cmp_ok, skip, skip_all,
#     diag, note, bail_out, done_testing;
#   - processes: spawn and start_target record every PID they start, and
#     cleanup (trap on EXIT) kills exactly those PIDs, so no test leaves a
#     process behind and none kills anything by name;
#   - checks on a traced process: target_state, tracer_pid,
#     assert_not_stopped, and wait_until for bounded polling;
#   - run_sproftop, which bounds every sproftop run with timeout(1), and
#     sample_until, which runs it until the target has been sampled
#     enough (not for a fixed time: a loaded machine gives fewer samples);
#   - folded-file helpers (folded_total, folded_count_frame, ...).
#
# Paths: TOP is the source tree, SPROFTOP the binary under test
# ($TOP/sproftop unless set), BUILD the build directory (env BUILD, default
# "build", so `make asan` runs use build-asan/targets), TARGETS the
# directory of the test target programs, TOOLS that of the test-only
# helper programs (make tools), TMPD a per-test scratch directory
# removed on exit.

set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SPROFTOP=${SPROFTOP:-$TOP/sproftop}
BUILD=${BUILD:-build}
case $BUILD in
    /*) TARGETS=$BUILD/targets ;;
    *) TARGETS=$TOP/$BUILD/targets ;;
esac
TOOLS=${TARGETS%/targets}/tools
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/sproftop-test.XXXXXX")

# Seconds a single sproftop run may take before timeout(1) ends it; a
# run that needs it is a failure, never a hang.
SP_TIMEOUT=${SP_TIMEOUT:-60}

_tap_n=0        # tests run so far
_tap_failed=0   # tests that failed
_tap_planned="" # the plan, once printed
_pids=()        # every PID this test started, for cleanup

# --- TAP --------------------------------------------------------------------

# plan N: announce N tests.
plan() {
    _tap_planned=$1
    echo "1..$1"
}

# skip_all REASON: nothing to test here; exits 0.
skip_all() {
    echo "1..0 # SKIP $*"
    _tap_planned=0
    exit 0
}

# ok COND DESC: COND is a shell status (0 passes), e.g. ok $? "ran".
# Returns COND's truth so callers can chain diagnostics.
ok() {
    local cond=$1
    shift
    _tap_n=$((_tap_n + 1))
    if [ "$cond" -eq 0 ] 2>/dev/null; then
        echo "ok $_tap_n - $*"
        return 0
    fi
    _tap_failed=$((_tap_failed + 1))
    echo "not ok $_tap_n - $*"
    # The line of the test script's top-level call that led here.
    local depth=${#FUNCNAME[@]}
    diag "  Failed test '$*' at ${BASH_SOURCE[-1]##*/} line ${BASH_LINENO[depth - 2]}."
    return 1
}

# check DESC CMD...: run CMD; pass if it succeeds.
check() {
    local desc=$1
    shift
    "$@"
    ok $? "$desc"
}

# is GOT EXPECTED DESC: string equality.
is() {
    if [ "$1" = "$2" ]; then
        ok 0 "$3"
    else
        ok 1 "$3"
        diag "       got: '$1'"
        diag "  expected: '$2'"
        return 1
    fi
}

# isnt GOT UNEXPECTED DESC
isnt() {
    if [ "$1" != "$2" ]; then
        ok 0 "$3"
    else
        ok 1 "$3"
        diag "  got '$1', expected anything else"
        return 1
    fi
}

# like GOT ERE DESC / unlike GOT ERE DESC: extended regex match.
like() {
    if printf '%s' "$1" | grep -Eq -- "$2"; then
        ok 0 "$3"
    else
        ok 1 "$3"
        diag "  '$(printf '%s' "$1" | head -c 400)'"
        diag "  doesn't match /$2/"
        return 1
    fi
}

unlike() {
    if printf '%s' "$1" | grep -Eq -- "$2"; then
        ok 1 "$3"
        diag "  '$(printf '%s' "$1" | head -c 400)'"
        diag "  matches /$2/"
        return 1
    else
        ok 0 "$3"
    fi
}

# cmp_ok A OP B DESC: numeric comparison with awk (decimals allowed);
# OP is one of < <= > >= == !=.
cmp_ok() {
    if awk -v a="$1" -v b="$3" -v op="$2" 'BEGIN {
            if (a !~ /^-?[0-9]+(\.[0-9]+)?$/ || b !~ /^-?[0-9]+(\.[0-9]+)?$/) exit 1
            a += 0; b += 0
            if (op == "<") r = a < b; else if (op == "<=") r = a <= b
            else if (op == ">") r = a > b; else if (op == ">=") r = a >= b
            else if (op == "==") r = a == b; else if (op == "!=") r = a != b
            else r = 0
            exit !r }'; then
        ok 0 "$4"
    else
        ok 1 "$4"
        diag "  '$1' $2 '$3' is false"
        return 1
    fi
}

# skip N REASON: record N skipped tests.
skip() {
    local n=$1 i
    shift
    for ((i = 0; i < n; i++)); do
        _tap_n=$((_tap_n + 1))
        echo "ok $_tap_n # skip $*"
    done
}

# diag MSG...: a comment on stderr (shown by prove); note: on stdout.
diag() {
    local line
    while IFS= read -r line; do
        echo "# $line" >&2
    done <<<"$*"
}

note() {
    local line
    while IFS= read -r line; do
        echo "# $line"
    done <<<"$*"
}

# diag_file FILE [MAX_LINES]: show a file's head as diagnostics.
diag_file() {
    [ -f "$1" ] || { diag "  ($1: no such file)"; return 0; }
    diag "  --- $1 ---"
    diag "$(head -n "${2:-20}" "$1" | cut -c1-300)"
}

# bail_out REASON: stop the whole run.
bail_out() {
    echo "Bail out! $*"
    exit 255
}

# done_testing: print the plan if none was given; exit status is the
# number of failed tests (as Test::More does).
done_testing() {
    [ -z "$_tap_planned" ] && echo "1..$_tap_n"
    local rc=$_tap_failed
    [ "$rc" -gt 254 ] && rc=254
    if [ -n "$_tap_planned" ] && [ "$_tap_planned" != "$_tap_n" ]; then
        diag "planned $_tap_planned tests but ran $_tap_n"
        [ "$rc" -eq 0 ] && rc=255
    fi
    exit "$rc"
}

# --- processes ----------------------------------------------------------------

# target_state PID: field 3 of /proc/PID/stat (R, S, D, t, T, Z...), or
# nothing if the process is gone.  The command name in field 2 can hold
# spaces and ')' so the state is read after the last ')'.
target_state() {
    local s
    s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    s=${s##*) }
    echo "${s%% *}"
}

# tracer_pid PID: TracerPid from /proc/PID/status, or nothing if gone.
tracer_pid() {
    awk '/^TracerPid:/ { print $2 }' "/proc/$1/status" 2>/dev/null
}

# strace_attach PID: start strace on PID (its PID in STRACE_PID, ended by
# the cleanup like any spawn) and wait, at most 10 s, until it is PID's
# tracer.  Fails when it never becomes the tracer.
strace_attach() {
    spawn strace -p "$1" -o /dev/null 2>"$TMPD/strace.err"
    STRACE_PID=$SPAWN_PID
    wait_until 10 _traced_by "$1" "$STRACE_PID"
}
_traced_by() { [ "$(tracer_pid "$1")" = "$2" ]; }

# sproftop_attached SP PID: the sproftop process SP samples PID: one of
# SP's threads traces PID's leader (the ptrace backend), or SP holds more
# perf_event fds than there are CPUs (the perf backend: one ring-buffer
# owner per CPU, then the target's own events).
sproftop_attached() {
    local tp n
    tp=$(tracer_pid "$2")
    [ -n "$tp" ] && [ "$tp" != 0 ] && [ -d "/proc/$1/task/$tp" ] && return 0
    n=$(ls -l "/proc/$1/fd" 2>/dev/null | grep -c 'anon_inode:\[perf_event\]')
    [ "$n" -gt "$(nproc)" ]
}

# thread_count PID: entries in /proc/PID/task.
thread_count() {
    local d n=0
    for d in /proc/"$1"/task/*; do
        [ -d "$d" ] && n=$((n + 1))
    done
    echo "$n"
}

# all_threads_in_state PID STATES: every thread's state is one of the
# letters in STATES (e.g. "S", "RS").
all_threads_in_state() {
    local t s
    for t in /proc/"$1"/task/*; do
        s=$(target_state "$1/task/${t##*/}") || return 1
        [[ $2 == *"$s"* ]] || return 1
    done
}

# is_running PID: the process exists and is not a zombie.
is_running() {
    local s
    s=$(target_state "$1") || return 1
    [ -n "$s" ] && [ "$s" != Z ] && [ "$s" != X ]
}

# wait_until TIMEOUT_S CMD...: poll CMD every 50 ms until it succeeds or
# TIMEOUT_S seconds pass; returns 0 or 1.  Bounded polling only: no test
# may wait forever.
wait_until() {
    local limit=$1 i
    shift
    local tries
    tries=$(awk -v t="$limit" 'BEGIN { printf "%d", t * 20 + 1 }')
    for ((i = 0; i < tries; i++)); do
        "$@" && return 0
        sleep 0.05
    done
    "$@"
}

# spawn CMD...: start CMD in the background, remember its PID for cleanup;
# sets SPAWN_PID.  Its stdin is /dev/null; redirect output at the call
# site's descriptors (spawn inherits them).
spawn() {
    "$@" </dev/null &
    SPAWN_PID=$!
    _pids+=("$SPAWN_PID")
}

# _exe_is PID PATH: the process already runs PATH (it has exec'ed).
_exe_is() {
    [ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$2" ]
}

# start_target NAME ARGS...: start $TARGETS/NAME ARGS in the background and
# wait (at most 10 s) until it runs the target binary.  Sets TARGET_PID,
# TARGET_OUT and TARGET_ERR (files holding its stdout and stderr, so
# nothing it prints can break the TAP stream).  Fails if it does not start.
_target_seq=0
start_target() {
    local name=$1 bin
    shift
    bin=$(readlink -f "$TARGETS/$name")
    if [ ! -x "$bin" ]; then
        diag "target $TARGETS/$name is not built (make targets)"
        return 1
    fi
    _target_seq=$((_target_seq + 1))
    TARGET_OUT=$TMPD/$name.$_target_seq.out
    TARGET_ERR=$TMPD/$name.$_target_seq.err
    spawn "$bin" "$@" >"$TARGET_OUT" 2>"$TARGET_ERR"
    TARGET_PID=$SPAWN_PID
    if ! wait_until 10 _exe_is "$TARGET_PID" "$bin"; then
        diag "target $name (PID $TARGET_PID) did not start"
        return 1
    fi
}

# require_targets NAME...: skip the whole test unless these are built.
require_targets() {
    local n
    for n in "$@"; do
        [ -x "$TARGETS/$n" ] || skip_all "target $n not built: make targets"
    done
}

# require_sproftop: skip the whole test unless the binary exists.
require_sproftop() {
    [ -x "$SPROFTOP" ] || skip_all "$SPROFTOP not built: make"
}

# assert_not_stopped PID DESC: the process and each of its threads is not
# in a stop (state t or T) and no thread has a tracer (TracerPid 0).  One
# TAP test; the diagnostics list the offending threads.
assert_not_stopped() {
    local pid=$1 desc=$2 t tid s tp bad=""
    if [ ! -d "/proc/$pid" ]; then
        ok 1 "$desc"
        diag "  process $pid is gone"
        return 1
    fi
    for t in /proc/"$pid"/task/*; do
        tid=${t##*/}
        [ -d "$t" ] || continue
        s=$(target_state "$pid/task/$tid") || continue   # thread just exited
        tp=$(tracer_pid "$pid/task/$tid")
        case $s in
            t|T) bad="$bad thread $tid state $s;" ;;
        esac
        [ -n "$tp" ] && [ "$tp" != 0 ] && bad="$bad thread $tid TracerPid $tp;"
    done
    if [ -z "$bad" ]; then
        ok 0 "$desc"
    else
        ok 1 "$desc"
        diag " $bad"
        return 1
    fi
}

# wait_exit PID TIMEOUT_S: wait (bounded) for a child started with spawn
# to exit; sets EXIT_RC to its status.  Returns 1, leaving it running, if
# it is still alive after TIMEOUT_S.
wait_exit() {
    EXIT_RC=""
    if ! wait_until "$2" _not_alive "$1"; then
        return 1
    fi
    wait "$1" 2>/dev/null
    EXIT_RC=$?
    return 0
}

_not_alive() {
    ! is_running "$1"
}

# kill_pid PID: end one process this test started (SIGCONT first, so a
# stopped process can die, then SIGKILL) and reap it.
kill_pid() {
    kill -CONT "$1" 2>/dev/null
    kill -KILL "$1" 2>/dev/null
    wait "$1" 2>/dev/null
    return 0
}

# cleanup: kill every PID this test started, then remove TMPD.  Installed
# on EXIT; by PID only, never by name.
cleanup() {
    local p
    for p in "${_pids[@]}"; do
        kill_pid "$p"
    done
    _pids=()
    [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMPD"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# --- the live view in tmux ----------------------------------------------------
# use_tmux NAME [COLSxROWS]: a private tmux server (socket NAME-PID) in
# ${T[@]}, killed on exit before cleanup; then screen, screen_has,
# header_value and keys read and drive its sessions, and tmux_sproftop
# opens them COLSxROWS (110x34 when not given).
use_tmux() {
    command -v tmux >/dev/null 2>&1 || skip_all "tmux not installed"
    T=(tmux -L "$1-$$")
    _tmux_size=${2:-110x34}
    trap '"${T[@]}" kill-server >/dev/null 2>&1; cleanup' EXIT
}

# screen NAME: session NAME's screen now.
screen() { "${T[@]}" capture-pane -p -t "$1" 2>/dev/null; }

# screen_has NAME ERE: the screen matches ERE.
screen_has() { screen "$1" | grep -Eq -- "$2"; }

# header_value NAME LABEL: the value after "LABEL: " in the header.
header_value() { screen "$1" | sed -n "s/.* $2: \([^ ]*\).*/\1/p" | head -n 1; }

# keys NAME KEY...: tmux send-keys to session NAME.
keys() { local n=$1; shift; "${T[@]}" send-keys -t "$n" "$@"; }

# search_shows NAME FUNCTION ERE: for wait_until: the screen matches ERE;
# when it does not, `/ FUNCTION Enter` is typed again, at most once a
# second (a function with no sample yet when a search was typed is found
# by a later one).
_search_sent=0
search_shows() {
    screen_has "$1" "$3" && return 0
    if [ "$SECONDS" != "$_search_sent" ]; then
        keys "$1" / "$2" Enter
        _search_sent=$SECONDS
    fi
    return 1
}

# --- running sproftop --------------------------------------------------------

# run_sproftop ARGS...: run sproftop bounded by $SP_TIMEOUT seconds (then
# SIGTERM, SIGKILL 5 s later).  Sets RC, and OUT/ERR to files holding its
# stdout and stderr (overwritten by the next run); OUTS/ERRS hold them as
# strings.  stdin is /dev/null, stdout is not a terminal.
_run_seq=0
run_sproftop() {
    _run_seq=$((_run_seq + 1))
    OUT=$TMPD/run.$_run_seq.out
    ERR=$TMPD/run.$_run_seq.err
    timeout -k 5 "$SP_TIMEOUT" "$SPROFTOP" "$@" </dev/null >"$OUT" 2>"$ERR"
    RC=$?
    OUTS=$(cat "$OUT")
    ERRS=$(cat "$ERR")
    [ "$RC" -eq 124 ] && diag "sproftop $* timed out after ${SP_TIMEOUT}s"
    return 0
}

# thread_stops PID TID: voluntary context switches of thread TID.  A thread
# that spins switches only when something stops it, as the ptrace backend
# does for each sample, so its count grows by one per sample taken.
thread_stops() {
    awk '/^voluntary_ctxt_switches:/ { print $2 }' "/proc/$1/task/$2/status" 2>/dev/null
}

# thread_cpu_ns PID TID: the CPU time thread TID has run, in ns (field 1
# of its schedstat).  The perf backend stops nothing: it samples each
# thread every 1/F s of its CPU time, so that time counts its samples.
thread_cpu_ns() {
    awk '{ print $1 }' "/proc/$1/task/$2/schedstat" 2>/dev/null
}

# _stops_snapshot PID: note every thread's stops and CPU time, the start
# of _stops_since's counts.
declare -A _stops_base _cpu_base
_stops_snapshot() {
    local t
    _stops_base=()
    _cpu_base=()
    for t in /proc/"$1"/task/*; do
        _stops_base[${t##*/}]=$(thread_stops "$1" "${t##*/}")
        _cpu_base[${t##*/}]=$(thread_cpu_ns "$1" "${t##*/}")
    done
}

# _stops_since PID GLOB [HZ]: the samples taken of PID's threads since
# _stops_snapshot: traced (the ptrace backend), their stops; else (perf)
# their CPU time times HZ (99 when not given).  With GLOB (a comm
# pattern), the fewest of any matching thread (0 while fewer than
# ${SAMPLE_THREADS:-1} match); without, the sum over all threads.  Threads
# born since count from 0.
_stops_since() {
    local pid=$1 glob=$2 hz=${3:-99} t tid n d sum=0 min= name matched=0 traced=
    [ "$(tracer_pid "$pid")" != 0 ] && traced=1
    for t in /proc/"$pid"/task/*; do
        tid=${t##*/}
        if [ -n "$glob" ]; then
            name=$(cat "$t/comm" 2>/dev/null) || continue
            # shellcheck disable=SC2053
            [[ $name == $glob ]] || continue
        fi
        if [ -n "$traced" ]; then
            n=$(thread_stops "$pid" "$tid")
            [ -n "$n" ] || continue
            d=$((n - ${_stops_base[$tid]:-0}))
        else
            n=$(thread_cpu_ns "$pid" "$tid")
            [ -n "$n" ] || continue
            d=$(( (n - ${_cpu_base[$tid]:-0}) / 1000 * hz / 1000000 ))
        fi
        sum=$((sum + d))
        matched=$((matched + 1))
        if [ -z "$min" ] || [ "$d" -lt "$min" ]; then min=$d; fi
    done
    if [ -z "$glob" ]; then
        echo "$sum"
    elif [ "$matched" -lt "${SAMPLE_THREADS:-1}" ]; then
        echo 0
    else
        echo "${min:-0}"
    fi
}

# _sproftop_end PID: end the sproftop PID with SIGINT, as a user would,
# and wait (30 s) for it to write its file: RC, OUTS and ERRS.
_sproftop_end() {
    kill -INT "$1" 2>/dev/null
    if wait_exit "$1" 30; then
        RC=$EXIT_RC
    else
        kill_pid "$1"
        RC=124
    fi
    OUTS=$(cat "$OUT")
    ERRS=$(cat "$ERR")
}

# sample_until MIN MAX_S ARGS...: run sproftop ARGS (which hold -p PID,
# -o FILE and maybe -F HZ; no -d) until about MIN samples of PID were
# taken since the start (_stops_since: stops with ptrace, CPU time x HZ
# with perf; with SAMPLE_EACH=GLOB, of each thread whose name matches
# GLOB, once SAMPLE_THREADS of them exist), then end it with SIGINT, as a
# user would, and wait for it to write its file.  At most MAX_S seconds
# of sampling (then -d ends it).  Sets RC, OUT/ERR and OUTS/ERRS as
# run_sproftop does, and STOPS to the count reached; SAMPLE_T0 and
# SAMPLE_T1 to the CLOCK_MONOTONIC seconds (mono_now) when sproftop was
# seen sampling and when it was told to end.
sample_until() {
    local min=$1 max=$2 pid= hz=99 a prev= sp
    shift 2
    for a in "$@"; do
        [ "$prev" = -p ] && pid=$a
        [ "$prev" = -F ] && hz=$a
        prev=$a
    done
    _run_seq=$((_run_seq + 1))
    OUT=$TMPD/run.$_run_seq.out
    ERR=$TMPD/run.$_run_seq.err
    spawn "$SPROFTOP" "$@" -d "$max" >"$OUT" 2>"$ERR"
    sp=$SPAWN_PID
    _sampling() { sproftop_attached "$sp" "$pid" || ! is_running "$sp"; }
    wait_until 15 _sampling
    SAMPLE_T0=$(mono_now)
    _stops_snapshot "$pid"
    _enough() {
        STOPS=$(_stops_since "$pid" "${SAMPLE_EACH:-}" "$hz")
        [ "$STOPS" -ge "$min" ] || ! is_running "$sp"
    }
    wait_until "$max" _enough
    [ "$STOPS" -ge "$min" ] || diag "sample_until: $STOPS of $min stops in ${max}s"
    SAMPLE_T1=$(mono_now)
    _sproftop_end "$sp"
}

# mono_now: CLOCK_MONOTONIC now, in seconds (perf record -k CLOCK_MONOTONIC
# stamps its samples by the same clock).
mono_now() {
    perl -MTime::HiRes=clock_gettime,CLOCK_MONOTONIC -e 'printf "%.6f\n", clock_gettime(CLOCK_MONOTONIC)'
}

# proc_cpu_ms PID: the CPU time PID's threads have used, in ms.
proc_cpu_ms() {
    awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); print int(($12 + $13) * 1000 / hz) }' \
        "/proc/$1/stat" 2>/dev/null
}

# cpu_mark PID...: remember the CPU time of each now (cpu_ran counts from
# here; a process never marked, from its start).
declare -A _cpu_mark
cpu_mark() { local p; for p; do _cpu_mark[$p]=$(proc_cpu_ms "$p"); done; }

# cpu_ran MS PID...: each PID has run MS ms on a CPU since its cpu_mark.
# The perf sampler's samples follow CPU time, so this is the condition
# for "N samples at HZ" (MS = N / HZ s, with a margin) that holds however
# loaded the machine is.
cpu_ran() {
    local ms=$1 p n
    shift
    for p; do
        n=$(proc_cpu_ms "$p")
        [ -n "$n" ] && [ $((n - ${_cpu_mark[$p]:-0})) -ge "$ms" ] || return 1
    done
}

# sample_while MAX_S COND ARGS...: run sproftop ARGS (no -d) until the
# function COND succeeds (checked as wait_until does; SAMPLE_PID is the
# running sproftop's PID, for COND to look at), at most MAX_S
# seconds (then -d ends it), then end it with SIGINT as a user would and
# wait for its file.  Sets RC, OUT/ERR and OUTS/ERRS as run_sproftop does.
sample_while() {
    local max=$1 cond=$2 sp
    shift 2
    _run_seq=$((_run_seq + 1))
    OUT=$TMPD/run.$_run_seq.out
    ERR=$TMPD/run.$_run_seq.err
    spawn "$SPROFTOP" "$@" -d "$max" >"$OUT" 2>"$ERR"
    sp=$SPAWN_PID
    SAMPLE_PID=$sp
    _sw_done() { "$cond" || ! is_running "$sp"; }
    wait_until "$max" _sw_done
    "$cond" || diag "sample_while: $cond still false after ${max}s"
    _sproftop_end "$sp"
}

# stats_sampler FILE: the backend a --stats report names ("perf",
# "ptrace"), or nothing.
stats_sampler() {
    sed -n 's/^sampler: \([a-z]*\),.*/\1/p' "$1" 2>/dev/null | head -n 1
}

# line_count FILE: number of lines (a last line without newline counts).
line_count() {
    awk 'END { print NR }' "$1"
}

# assert_one_line_error DESC: the last run wrote exactly one non-empty
# line on stderr.
assert_one_line_error() {
    local n
    n=$(line_count "$ERR")
    if [ "$n" = 1 ] && [ -n "$ERRS" ]; then
        ok 0 "$1"
    else
        ok 1 "$1"
        diag "  stderr has $n lines:"
        diag_file "$ERR" 10
        return 1
    fi
}

# --- folded files ------------------------------------------------------------
# A folded line is "frame;frame;...;leaf COUNT", root first.  Frames are
# matched exactly, or as NAME followed by "(" (C++ names with parameters).

# folded_total FILE: the sum of all counts (0 for a missing file).
folded_total() {
    [ -f "$1" ] || { echo 0; return; }
    awk '{ n += $NF } END { printf "%d\n", n }' "$1"
}

# folded_count_frame FILE NAME: samples whose stack holds frame NAME.
folded_count_frame() {
    [ -f "$1" ] || { echo 0; return; }
    awk -v name="$2" '
        { c = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";")
          for (i = 1; i <= k; i++)
              if (f[i] == name || index(f[i], name "(") == 1) { n += c; break } }
        END { printf "%d\n", n }' "$1"
}

# folded_count_substr FILE TEXT: samples with a frame containing TEXT
# (C++ names may carry a return type before and parameters after).
folded_count_substr() {
    [ -f "$1" ] || { echo 0; return; }
    awk -v p="$2" '
        { c = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";")
          for (i = 1; i <= k; i++)
              if (index(f[i], p) > 0) { n += c; break } }
        END { printf "%d\n", n }' "$1"
}

# folded_count_chain FILE NAME1 NAME2 ...: samples whose stack holds the
# frames NAME1, NAME2, ... consecutively, in this order (root first).
folded_count_chain() {
    local file=$1
    shift
    [ -f "$file" ] || { echo 0; return; }
    awk -v chain="$*" '
        BEGIN { m = split(chain, want, " ") }
        { c = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";")
          for (i = 1; i + m - 1 <= k; i++) {
              for (j = 1; j <= m; j++) if (f[i + j - 1] != want[j]) break
              if (j > m) { n += c; break } } }
        END { printf "%d\n", n }' "$file"
}

# folded_count_broken FILE FRAME BOTTOM: samples whose stack holds FRAME
# but whose second frame (the one above the thread root) is not BOTTOM:
# stacks through known code that were not unwound to the end.
folded_count_broken() {
    [ -f "$1" ] || { echo 0; return; }
    awk -v name="$2" -v bottom="$3" '
        { c = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";"); has = 0
          for (i = 1; i <= k; i++) if (f[i] == name) has = 1
          if (has && f[2] != bottom) { n += c; if (shown++ < 3) print "broken: " $0 > "/dev/stderr" } }
        END { printf "%d\n", n }' "$1"
}

# folded_under_root FILE ROOT NAME: "YES NO": samples of frame NAME whose
# stack starts at frame ROOT, and those under any other root.
folded_under_root() {
    awk -v r="$2" -v name="$3" '
        { c = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";")
          for (i = 2; i <= k; i++) if (f[i] == name) { if (f[1] == r) y += c; else n += c; break } }
        END { printf "%d %d\n", y, n }' "$1"
}

# folded_roots FILE: the distinct first frames, one per line.
folded_roots() {
    [ -f "$1" ] || return 0
    awk '{ s = $0; sub(/ [0-9]+$/, "", s); split(s, f, ";"); print f[1] }' "$1" | sort -u
}

# folded_well_formed FILE: every line is "FRAMES COUNT" with a positive
# integer count and no empty frame.
folded_well_formed() {
    [ -f "$1" ] || { echo "no such file: $1" >&2; return 1; }
    awk '
        !/ [1-9][0-9]*$/ { bad = 1; print "bad count: " $0 > "/dev/stderr"; exit }
        { s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";")
          for (i = 1; i <= k; i++) if (f[i] == "") { bad = 1; print "empty frame: " $0 > "/dev/stderr"; exit } }
        END { exit bad }' "$1"
}

# require_interp VAR PATH WANT WHAT ARGS...: Debian 12's own interpreter
# PATH (WHAT, version WANT.*, which PATH ARGS prints), whose frames the
# tests read; sets VAR to PATH and VARVER to its version, or skips the
# whole test.
require_interp() {
    local var=$1 path=$2 want=$3 what=$4 ver
    shift 4
    [ -x "$path" ] || skip_all "Debian's $path is not installed (make deps)"
    ver=$("$path" "$@")
    case $ver in
        "$want".*) ;;
        *) skip_all "these tests read Debian 12's $what $want, found $ver" ;;
    esac
    printf -v "$var" %s "$path"
    printf -v "${var}VER" %s "$ver"
}

# require_python: Debian 12's python3 3.11; sets PY and PYVER.
require_python() {
    require_interp PY /usr/bin/python3 3.11 python3 \
        -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])'
}

# require_ruby: Debian 12's ruby 3.1 (libruby-3.1.so); sets RB and RBVER.
require_ruby() {
    require_interp RB /usr/bin/ruby 3.1 ruby -e 'print RUBY_VERSION'
}

# script_backends: the samplers that read interpreter frames here, in
# the array `backends`: ptrace always, perf first when root may load its
# BPF program and perf_event is allowed (else a note says why not).
script_backends() {
    backends=(ptrace)
    if [ "$(id -u)" = 0 ] && "$SPROFTOP" --version | grep -q '^sampler: auto picks perf'; then
        backends=(perf ptrace)
    else
        note "perf backend skipped: it reads interpreter frames with a BPF program (root)"
    fi
}

# start_hogs [CPU] / stop_hogs: two busy shells (the "loaded" runs of the
# ground-truth tests), bound to CPU when given (taskset: so that a
# process bound there too must wait for it, whatever the CPU count), in
# the array `hogs`; stop_hogs kills them by PID.
hogs=()
start_hogs() {
    local i
    for i in 1 2; do
        spawn ${1:+taskset -c "$1"} sh -c 'while :; do :; done'
        hogs+=("$SPAWN_PID")
    done
}

# first_cpu: the first CPU this test may run on (its affinity list).
first_cpu() {
    taskset -cp $$ | sed 's/.*: *//; s/[,-].*//'
}
stop_hogs() {
    local p
    for p in "${hogs[@]}"; do
        kill_pid "$p"
    done
    hogs=()
}

# frame_share FILE NAME ALL...: NAME's percentage of the samples of folded
# FILE whose stack holds one of the functions ALL (interpreter frames as
# the folded writer names them: "NAME (FILE:LINE)"), -1 when none does.
frame_share() {
    local file=$1 name=$2
    shift 2
    awk -v name="$name" -v all="$*" 'BEGIN { k = split(all, a, " ") }
        { c = $NF; hit = 0
          for (i = 1; i <= k; i++) if (index($0, ";" a[i] " (")) hit = 1
          if (hit) t += c
          if (index($0, ";" name " (")) n += c }
        END { printf "%.1f", t ? 100 * n / t : -1 }' "$file"
}

# check_shares FILE LOG WHAT NAME...: for each function NAME, one test
# that its share of folded FILE's samples (frame_share over the NAMEs) is
# within 5 points of the share the target wrote to LOG ("share NAME PCT").
check_shares() {
    local file=$1 log=$2 what=$3 fn got want d
    shift 3
    for fn in "$@"; do
        got=$(frame_share "$file" "$fn" "$@")
        want=$(awk -v n="$fn" '$1 == "share" && $2 == n { print $3 }' "$log")
        d=$(awk -v a="$got" -v b="${want:-0}" 'BEGIN { d = a - b; printf "%.1f", d < 0 ? -d : d }')
        cmp_ok "$d" '<=' 5 "$what: $fn $got% of the samples, the target says ${want:-?}%"
    done
}

# bpf_match_check B: with backend B perf on a kernel that stamps a sample
# before its BPF program runs (6.3 on), the last run's --stats ($ERRS)
# says every interpreter walk went to its sample by the sample's own time
# stamp, none by the nearest clock reading (a guess a stalled CPU can
# defeat).  Nothing for ptrace or an older kernel.
bpf_match_check() {
    local b=$1 v
    [ "$b" = perf ] || return 0
    v=$(uname -r | awk -F'[.-]' '{ print $1 * 1000 + $2 }')
    if [ "$v" -lt 6003 ]; then
        note "$b: kernel $(uname -r) stamps samples after the BPF program: walks matched by the nearest time"
        return 0
    fi
    like "$ERRS" "walks matched to their sample ([0-9]+) \(by the sample's own time stamp \1, by the nearest clock reading 0\)" \
        "$b: every interpreter walk matched to its sample by the sample's own time stamp"
}

# hot_loads FN: FN B LOAD for each backend B of script_backends, on an
# idle machine (LOAD idle) and then under two CPU hogs (LOAD hogs).
hot_loads() {
    local load b
    script_backends
    for load in idle hogs; do
        [ "$load" = hogs ] && start_hogs
        for b in "${backends[@]}"; do
            "$1" "$b" "$load"
        done
        [ "$load" = hogs ] && stop_hogs
    done
}

# hot_run B LOAD INTERP SCRIPT FN...: tests/targets/SCRIPT (pyhot.py,
# rbhot.rb: --cpu 1.0, its record in a log) run by INTERP, attached to
# once ready and sampled to its end by backend B at 1000 Hz (LOAD names
# the files); then check_shares of each FN against its record.  Sets pid
# (the script's) and f (the folded output).
hot_run() {
    local b=$1 load=$2 interp=$3 script=$4 log
    shift 4
    log=$TMPD/$b.$load.log
    spawn "$interp" "$TOP/tests/targets/$script" --cpu 1.0 --log "$log" >"$TMPD/$b.$load.out" 2>&1
    pid=$SPAWN_PID
    wait_until 15 grep -q ready "$TMPD/$b.$load.out" || diag "$script did not start"
    run_sproftop --sampler "$b" -p "$pid" -F 1000 --stats -o "$TMPD/$b.$load.folded"
    wait_exit "$pid" 30
    f=$TMPD/$b.$load.folded
    check_shares "$f" "$log" "$b, $load" "$@"
}

# tmux_sproftop NAME ARGS...: sproftop ARGS in a new tmux session NAME of
# use_tmux's size, run from $TMPD, its stderr in $TMPD/NAME.err.
tmux_sproftop() {
    local name=$1 cmd
    shift
    printf -v cmd ' %q' "$SPROFTOP" "$@"
    cmd="cd '$TMPD' &&$cmd"
    "${T[@]}" new-session -d -s "$name" -x "${_tmux_size%x*}" \
        -y "${_tmux_size#*x}" "$cmd 2>'$TMPD/$name.err'"
}

# thread_roots FILE COMM PID: how many roots of folded FILE are threads
# of their own (COMM-TID) of process PID other than its main thread.
thread_roots() {
    cut -d';' -f1 "$1" | sort -u | grep -E "^$2-[0-9]+\$" | grep -vc "^$2-$3\$"
}

# session_gone NAME: tmux session NAME has ended (its sproftop exited).
session_gone() { ! "${T[@]}" has-session -t "$1" 2>/dev/null; }

# screen_rows NAME ERE: the rows of session NAME's screen matching ERE.
screen_rows() { screen "$1" | grep -Ec -- "$2"; }

# screen_check DESC TIMEOUT NAME ERE: pass once session NAME's screen
# matches ERE (bounded polling, at most TIMEOUT s); else show the screen
# and the session's stderr ($TMPD/NAME.err, where tmux_sproftop puts it).
screen_check() {
    if wait_until "$2" screen_has "$3" "$4"; then
        ok 0 "$1"
        return 0
    fi
    ok 1 "$1"
    diag "$(screen "$3")"
    [ -e "$TMPD/$3.err" ] && diag_file "$TMPD/$3.err"
    return 1
}

# start_script NAME INTERP SCRIPT ARGS...: INTERP SCRIPT ARGS in the
# background (spawn), its output in $TMPD/NAME.out; waits (at most 15 s)
# for the "ready" line the script targets print, else bails out.  Sets
# SCRIPT_PID.
start_script() {
    local name=$1
    shift
    spawn "$@" >"$TMPD/$name.out" 2>&1
    SCRIPT_PID=$SPAWN_PID
    wait_until 15 grep -q ready "$TMPD/$name.out" ||
        bail_out "${2##*/} did not start"
}

# tmux_script_view NAME SCRIPT ARGS...: tests/targets/SCRIPT ARGS under
# Debian's interpreter for its kind (.py: require_python, .rb:
# require_ruby, which set PY/PYVER or RB/RBVER or skip the whole test),
# started as start_script NAME does; then sproftop -p on it in tmux
# session NAME (refreshing every 0.2 s), and a check that the header
# names the interpreter and its version.  Sets SCRIPT_PID.
tmux_script_view() {
    local name=$1 script=$2 interp label
    shift 2
    case $script in
        *.py) require_python; interp=$PY; label="Python $PYVER" ;;
        *.rb) require_ruby; interp=$RB; label="Ruby $RBVER" ;;
        *) bail_out "tmux_script_view: no interpreter for $script" ;;
    esac
    start_script "$name" "$interp" "$TOP/tests/targets/$script" "$@"
    tmux_sproftop "$name" -p "$SCRIPT_PID" -r 0.2 --no-confirm
    screen_check "the header names the interpreter: $label" \
        20 "$name" "Interpreter: ${label//./\\.}"
}

# chain FILE FRAME...: the samples of folded FILE whose stack holds these
# frames next to each other, root first (names may hold spaces:
# "main (x.py:3)").
chain() {
    local file=$1 want
    shift
    want=$(printf '%s;' "$@")
    awk -v want=";$want" '{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s)
        if (index(";" s ";", want)) n += c } END { printf "%d\n", n }' "$file"
}
