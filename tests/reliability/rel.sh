# tests/reliability/rel.sh - helpers shared by tests/reliability_*.t.
#
# Sourced after tests/lib.sh.  It adds:
#   - spawn_sproftop: a background sproftop bounded by timeout(1), whose
#     own PID is known so signals (even SIGKILL) reach it, not timeout;
#   - traced_by_sproftop, threads_clean, wait_clean: the state of the
#     target seen from /proc (no thread stopped, no tracer);
#   - cpu_ticks: a process's utime + stime;
#   - stats_value: a number from a --stats report;
#   - folded_max_frames: the deepest stack of a folded file.
# Everything here looks at the target or at files; nothing at timing.

# spawn_sproftop NAME ARGS...: start `timeout SP_TIMEOUT sproftop ARGS` in
# the background; stdout/stderr go to $TMPD/NAME.out and NAME.err.  Sets
# SP_PID (sproftop itself) and SPT_PID (the job to wait for); all the
# processes of the chain are killed by cleanup.  Returns 1 if sproftop does
# not start within 10 s.  The job is `sh -c 'timeout ...; exit $?'`: when
# sproftop dies of a signal, timeout(1) re-raises it on itself, and bash
# would report every such job as "Killed" on stderr; the shell turns that
# into a plain exit status (128 + signal).
spawn_sproftop() {
    local name=$1 bin i
    shift
    bin=$(readlink -f "$SPROFTOP")
    spawn sh -c '"$@"; exit $?' sh timeout -k 5 "$SP_TIMEOUT" "$SPROFTOP" "$@" \
        >"$TMPD/$name.out" 2>"$TMPD/$name.err"
    SPT_PID=$SPAWN_PID
    SP_PID="" _sp_timeout=""
    # Poll every 5 ms, not wait_until's 50: the SIGKILL test wants to hit
    # sproftop in its first milliseconds too.
    for ((i = 0; i < 2000; i++)); do
        _sp_find "$bin" && break
        sleep 0.005
    done
    [ -n "$_sp_timeout" ] && _pids+=("$_sp_timeout")
    if [ -z "$SP_PID" ]; then
        diag "sproftop did not start under timeout (job $SPT_PID)"
        return 1
    fi
    _pids+=("$SP_PID")
}

# _sp_first_child PID: PID's first child, or nothing.
_sp_first_child() {
    local c
    c=$(cat "/proc/$1/task/$1/children" 2>/dev/null) || return 1
    c=${c%% *}
    [ -n "$c" ] && echo "$c"
}

# _sp_find BIN: the job's grandchild runs BIN; sets _sp_timeout, SP_PID.
_sp_find() {
    local c
    [ -n "$_sp_timeout" ] || _sp_timeout=$(_sp_first_child "$SPT_PID") || return 1
    c=$(_sp_first_child "$_sp_timeout") || return 1
    _exe_is "$c" "$1" && SP_PID=$c
}

# wait_sproftop: wait for the spawn_sproftop run to end (bounded by its
# timeout(1)); sets SP_RC to sproftop's status (124: timeout(1) ended it;
# 128 + N: signal N).
wait_sproftop() {
    wait "$SPT_PID" 2>/dev/null
    SP_RC=$?
}

# traced_by_sproftop PID: SP_PID samples PID (sproftop_attached: it
# traces it, or holds perf_event fds for it).
traced_by_sproftop() {
    sproftop_attached "$SP_PID" "$1"
}

# threads_clean PID: no thread of PID is stopped (t/T) or traced.  Sets
# UNCLEAN to a description of the offenders.  A process that is gone is
# not clean.  One awk reads every thread's stat and status (forks are slow
# on a loaded machine, and the SIGKILL test calls this 50 times); a thread
# that exits meanwhile is skipped.
threads_clean() {
    [ -d "/proc/$1" ] || { UNCLEAN="process $1 is gone"; return 1; }
    UNCLEAN=$(awk 'BEGIN {
        for (i = 1; i < ARGC; i++) {
            d = ARGV[i]; tid = d; sub(/.*\//, "", tid)
            if ((getline line < (d "/stat")) > 0) {
                sub(/.*\) /, "", line); split(line, f, " ")
                if (f[1] == "t" || f[1] == "T") bad = bad " thread " tid " state " f[1] ";"
            }
            close(d "/stat")
            while ((getline line < (d "/status")) > 0)
                if (line ~ /^TracerPid:/) {
                    split(line, f, /[ \t]+/)
                    if (f[2] != 0) bad = bad " thread " tid " TracerPid " f[2] ";"
                    break
                }
            close(d "/status")
        }
        printf "%s", bad; exit }' /proc/"$1"/task/*)
    [ -z "$UNCLEAN" ] && [ -d "/proc/$1" ]
}

# threads_in PID STATES: every thread's state is one of STATES' letters
# (all_threads_in_state, but false for a process with no thread left).
threads_in() {
    [ -d "/proc/$1/task" ] && all_threads_in_state "$1" "$2"
}

# cpu_ticks PID: utime + stime of the whole process (fields 14 and 15 of
# /proc/PID/stat, in clock ticks), read after the command name.
# cpu_ns PID: the CPU time every thread of PID has run, ns (schedstat:
# exact, where stat's ticks are 10 ms and scaled).
cpu_ns() {
    cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'
}

# cpu_settled PID: cpu_ns once two readings 50 ms apart agree (at most
# 2 s), so a thread that has just stopped has had its last slice counted:
# the kernel adds a running thread's time at ticks and when it leaves the
# CPU, so a reading taken as it stops can miss up to a tick or more of
# time it ran before the stop.
cpu_settled() {
    local a b i
    a=$(cpu_ns "$1")
    for i in $(seq 40); do
        sleep 0.05
        b=$(cpu_ns "$1")
        [ "$a" = "$b" ] && break
        a=$b
    done
    echo "$b"
}

cpu_ticks() {
    local s
    s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    s=${s##*) }
    awk '{ print $12 + $13 }' <<<"$s"
}

# cpu_grew PID FROM: the process has used CPU since cpu_ticks said FROM.
cpu_grew() {
    local now
    now=$(cpu_ticks "$1") || return 1
    [ "$now" -gt "$2" ]
}

# stats_value FILE ERE: the first number after ERE in a --stats report
# (e.g. stats_value err 'EINTR restarts: '), or nothing.
stats_value() {
    grep -Eo -- "$2[0-9]+" "$1" 2>/dev/null | head -n 1 | grep -Eo '[0-9]+$'
}

# folded_max_frames FILE: the most frames on one line (thread root and
# markers included), 0 for an empty or missing file.
folded_max_frames() {
    [ -f "$1" ] || { echo 0; return; }
    awk '{ s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";")
           if (k > m) m = k } END { printf "%d\n", m }' "$1"
}

# --- TAP TODO ----------------------------------------------------------------
# todo REASON ... end_todo: the tests in between are TAP TODO tests ("not ok
# N - desc # TODO REASON"): they still run and print their diagnostics, but
# an expected failure (a known engine bug, named in REASON) does not fail
# the file; prove lists them, and reports them when they start passing.
REL_TODO=""
todo() { REL_TODO=$*; }
end_todo() { REL_TODO=""; }

eval "_lib_ok() $(declare -f ok | tail -n +2)"
ok() {
    [ -z "$REL_TODO" ] && { _lib_ok "$@"; return; }
    local cond=$1
    shift
    # lib.sh's ok, with the TODO directive; its failure is not the file's
    _lib_ok "$cond" "$* # TODO $REL_TODO" && return 0
    _tap_failed=$((_tap_failed - 1))
    return 1
}

# no_problems PROBLEMS DESC: passes when PROBLEMS (what went wrong, run by
# run) is empty, else fails and shows them.
no_problems() {
    is "$1" "" "$2" || diag "$1"
}
