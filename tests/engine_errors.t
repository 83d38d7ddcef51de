#!/usr/bin/env bash
# engine_errors.t - bad input and refused attaches: the exit code, one line
# on stderr naming the cause, and a target left running and untraced.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets split

SP_TIMEOUT=20

start_target split || bail_out "cannot start split"
pid=$TARGET_PID

# --- usage errors: exit 2, one line, nothing attached -----------------------
usage_error() { # DESC ARGS...
    local desc=$1
    shift
    run_sproftop "$@"
    is "$RC" 2 "$desc: exit 2"
    assert_one_line_error "$desc: one line on stderr"
}

usage_error "-F 0" -p "$pid" -d 1 -o "$TMPD/x.folded" -F 0
usage_error "-F 10001" -p "$pid" -d 1 -o "$TMPD/x.folded" -F 10001
usage_error "-F abc" -p "$pid" -d 1 -o "$TMPD/x.folded" -F abc
usage_error "-F ''" -p "$pid" -d 1 -o "$TMPD/x.folded" -F ''
like "$ERRS" 'F|freq' "-F '' error names the option"
usage_error "-d -1" -p "$pid" -d -1 -o "$TMPD/x.folded"
usage_error "-d abc" -p "$pid" -d abc -o "$TMPD/x.folded"
usage_error "unknown option --bogus" -p "$pid" -d 1 --bogus
like "$ERRS" 'bogus' "unknown option is named"
usage_error "-p ''" -p '' -d 1
usage_error "-p 12abc" -p 12abc -d 1
usage_error "-p 'a['" -p 'a[' -d 1
like "$ERRS" 'bad process name pattern' "...a name that is no pattern says so"
# Not a PID: a process name (issue 19, item 10), which none has here.
for name in no-such-proc-abc; do
    run_sproftop -p "$name" -d 1
    is "$RC" 1 "-p $name (a name no process has): exit 1"
    assert_one_line_error "-p $name: one line on stderr"
    like "$ERRS" "no process is named '$name'" "-p $name: says no process has that name"
done
usage_error "-f of an unknown format" -p "$pid" -d 1 -o "$TMPD/x.out" -f no-such-format
usage_error "no target at all" -d 1
check "no usage error wrote an output file" test ! -e "$TMPD/x.folded"
assert_not_stopped "$pid" "target running and untraced after the usage errors"

# --- runtime failures: exit 1, one line naming the cause -------------------
# A PID that exists no more: a child that exited and was reaped.
( exit 0 ) &
gone=$!
wait "$gone"
if [ -e "/proc/$gone" ]; then
    skip 3 "PID $gone was reused already"
else
    run_sproftop -p "$gone" -d 1 -o "$TMPD/gone.folded"
    is "$RC" 1 "nonexistent PID $gone: exit 1"
    assert_one_line_error "nonexistent PID: one line on stderr"
    like "$ERRS" "(^|[^0-9])$gone([^0-9]|$)" "nonexistent PID: message names the PID"
fi

# A kernel thread (kthreadd, PID 2) cannot be traced.
if [ "$(cat /proc/2/comm 2>/dev/null)" = kthreadd ]; then
    run_sproftop -p 2 -d 1 -o "$TMPD/kthread.folded"
    is "$RC" 1 "kernel thread (PID 2): exit 1"
    assert_one_line_error "kernel thread: one line on stderr"
else
    skip 2 "PID 2 is not kthreadd here (a container?)"
fi

# Already traced by strace: the ptrace backend cannot attach, and its
# message names the tracer's PID and name (perf_event can sample it:
# tests/perf_safety.t).
if command -v strace >/dev/null; then
    if strace_attach "$pid"; then
        run_sproftop --sampler ptrace -p "$pid" -d 1 -o "$TMPD/traced.folded"
        is "$RC" 1 "already traced: exit 1"
        assert_one_line_error "already traced: one line on stderr"
        like "$ERRS" "(^|[^0-9])$STRACE_PID([^0-9]|$)" "already traced: names the tracer PID $STRACE_PID"
        like "$ERRS" 'strace' "already traced: names the tracer (strace)"
        is "$(tracer_pid "$pid")" "$STRACE_PID" "strace is still the tracer afterwards"
    else
        skip 5 "strace did not attach (TracerPid $(tracer_pid "$pid"))"
    fi
    kill -TERM "$STRACE_PID" 2>/dev/null
    wait_exit "$STRACE_PID" 10 || kill_pid "$STRACE_PID"
    untraced() { [ "$(tracer_pid "$pid")" = 0 ]; }
    wait_until 10 untraced
else
    skip 5 "strace not installed"
fi

# -o into a directory that does not exist: an error, and the target is fine.
run_sproftop -p "$pid" -d 1 -o "$TMPD/no/such/dir/out.folded"
isnt "$RC" 0 "unwritable -o: non-zero exit"
assert_one_line_error "unwritable -o: one line on stderr"
like "$ERRS" 'no/such/dir' "unwritable -o: names the path"
assert_not_stopped "$pid" "target running and untraced after the runtime errors"
check "target still alive" is_running "$pid"

# --- --help and --version -----------------------------------------------
run_sproftop --version
is "$RC" 0 "--version: exit 0"
like "$OUTS" '[0-9]+\.[0-9]+' "--version prints a version number"
run_sproftop -V
is "$RC" 0 "-V: exit 0"
run_sproftop --help
is "$RC" 0 "--help: exit 0"
like "$OUTS" '--freq' "--help lists --freq"
like "$OUTS" '--duration' "--help lists --duration"
like "$OUTS" '--idle' "--help lists --idle"
run_sproftop -h
is "$RC" 0 "-h: exit 0"

done_testing
