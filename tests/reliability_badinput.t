#!/usr/bin/env bash
# reliability_badinput.t - a table of bad inputs: each gives one line on
# stderr naming the cause and a non-zero exit (2 for usage errors, 1 for
# runtime failures), never a crash (status >= 128), a hang (timeout) or a
# stopped target.  The one exception degrades instead: a 10x5 terminal.
#
# Cases: bad PIDs (abc, -5, 0, 99999999, '', kthreadd, sproftop's own PID,
# a zombie, a process already traced by strace, a process of another user
# when unprivileged); bad -F, -d, -r, -f and an unknown option; -o into a
# missing directory, onto a read-only file (as an unprivileged user: root
# may replace any file), onto /proc/version (which nobody can replace), and
# through a symlink another user planted in a sticky directory (it must be
# refused and its target left alone); -i of an empty, a truncated folded,
# a truncated pprof, a garbage, a 200 MB garbage file, a missing file and
# a directory; and the live view of a saved profile in a 10x5 tmux
# terminal, which must draw, take keys and quit with q.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/reliability/rel.sh"
require_sproftop
require_targets split

SP_TIMEOUT=60

start_target split || bail_out "cannot start split"
pid=$TARGET_PID
folded_in=$TMPD/in.folded
printf 'main;a;b 10\nmain;a;c 5\nmain;d 1\n' >"$folded_in"

# bad DESC RC ERE ARGS...: sproftop ARGS exits RC (not a crash, not a
# timeout), with one line on stderr that matches ERE.
bad() {
    local desc=$1 rc=$2 ere=$3
    shift 3
    run_sproftop "$@"
    _check_bad "$desc" "$rc" "$ere"
}

# _check_bad DESC RC ERE: the checks of `bad` on the last run ($RC, $ERR).
_check_bad() {
    local desc=$1 rc=$2 ere=$3
    if [ "$RC" -ge 124 ]; then
        ok 1 "$desc: exit $rc"
        diag "  status $RC: a crash (>= 128) or a timeout (124)"
    else
        is "$RC" "$rc" "$desc: exit $rc"
    fi
    if [ "$(line_count "$ERR")" = 1 ] && grep -Eq -- "$ere" "$ERR"; then
        ok 0 "$desc: one line naming the cause"
    else
        ok 1 "$desc: one line naming the cause (/$ere/)"
        diag_file "$ERR" 5
    fi
}

# as_user ARGS...: run sproftop ARGS as uid/gid 12345 with no groups (a
# plain user without CAP_SYS_PTRACE), bounded like run_sproftop.
as_user() {
    _run_seq=$((_run_seq + 1))
    OUT=$TMPD/run.$_run_seq.out
    ERR=$TMPD/run.$_run_seq.err
    timeout -k 5 "$SP_TIMEOUT" setpriv --reuid 12345 --regid 12345 --clear-groups \
        "$SPROFTOP" "$@" </dev/null >"$OUT" 2>"$ERR"
    RC=$?
}

# --- PIDs -------------------------------------------------------------------
bad "-p 12abc" 2 "PID.*12abc" -p 12abc -d 1
bad "-p no-such-proc (a name)" 1 "no process is named 'no-such-proc'" -p no-such-proc -d 1
bad "-p -5" 2 "PID.*-5" -p -5 -d 1
bad "-p 0" 2 "PID.*'0'" -p 0 -d 1
bad "-p ''" 2 "PID" -p '' -d 1
bad "-p 99999999" 1 "no process.*99999999" -p 99999999 -d 1
if [ "$(cat /proc/2/comm 2>/dev/null)" = kthreadd ]; then
    bad "-p 2 (kthreadd)" 1 "kernel thread" -p 2 -d 1
else
    skip 2 "PID 2 is not kthreadd here"
fi

# sproftop's own PID: bash execs sproftop with the PID it had.
_run_seq=$((_run_seq + 1))
OUT=$TMPD/run.$_run_seq.out ERR=$TMPD/run.$_run_seq.err
timeout -k 5 20 bash -c 'exec "$1" -p $$ -d 1' _ "$SPROFTOP" </dev/null >"$OUT" 2>"$ERR"
RC=$?
_check_bad "-p of sproftop itself" 1 "itself"

# A zombie: a child that exits after its parent became `sleep 60`, which
# never reaps it.
spawn bash -c 'sleep 0.3 & echo $! >"$1"; exec sleep 60' _ "$TMPD/zombie.pid"
wait_until 5 test -s "$TMPD/zombie.pid"
zpid=$(cat "$TMPD/zombie.pid" 2>/dev/null)
zombie() { [ "$(target_state "$zpid")" = Z ]; }
if [ -n "$zpid" ] && wait_until 5 zombie; then
    bad "-p of a zombie" 1 "zombie" -p "$zpid" -d 1
else
    skip 2 "could not make a zombie"
fi
kill_pid "$SPAWN_PID"

# Already traced by strace.
if command -v strace >/dev/null; then
    spawn strace -p "$pid" -o /dev/null 2>"$TMPD/strace.err"
    strace_pid=$SPAWN_PID
    by_strace() { [ "$(tracer_pid "$pid")" = "$strace_pid" ]; }
    if wait_until 10 by_strace; then
        bad "-p of a process traced by strace (ptrace)" 1 "traced by PID $strace_pid \\(strace\\)" \
            --sampler ptrace -p "$pid" -d 1 -o "$TMPD/traced.folded"
        is "$(tracer_pid "$pid")" "$strace_pid" "strace still traces it afterwards"
    else
        skip 3 "strace did not attach"
    fi
    kill -TERM "$strace_pid"
    wait_exit "$strace_pid" 10 || kill_pid "$strace_pid"
    untraced() { [ "$(tracer_pid "$pid")" = 0 ]; }
    wait_until 10 untraced
else
    skip 3 "strace not installed"
fi

# --- numbers and names ---------------------------------------------------------
bad "-F 0" 2 "frequency.*'0'" -p "$pid" -d 1 -F 0
bad "-F 10001" 2 "frequency.*10001" -p "$pid" -d 1 -F 10001
bad "-F 1e9" 2 "frequency.*1e9" -p "$pid" -d 1 -F 1e9
bad "-F abc" 2 "frequency.*abc" -p "$pid" -d 1 -F abc
bad "-d 0" 2 "duration.*'0'" -p "$pid" -d 0
bad "-d -1" 2 "duration.*-1" -p "$pid" -d -1
bad "-d x" 2 "duration.*'x'" -p "$pid" -d x
bad "-r 0" 2 "refresh.*'0'" -p "$pid" -r 0
bad "-r 99999" 2 "refresh.*99999" -p "$pid" -r 99999
bad "-f nosuch" 2 "format.*nosuch" -p "$pid" -d 1 -o "$TMPD/x.out" -f nosuch
bad "unknown option --bogus" 2 "bogus" -p "$pid" -d 1 --bogus

# --- -o ----------------------------------------------------------------------
bad "-o into a missing directory" 1 "no/such/dir" -p "$pid" -d 1 -o "$TMPD/no/such/dir/out.folded"

# A read-only file in the user's own directory: the user may not write it.
# As root anything can be replaced, so the case runs as uid 12345.
chmod 711 "$TMPD"
chmod 644 "$folded_in"
mkdir "$TMPD/own"
echo "keep me" >"$TMPD/own/ro.folded"
chown -R 12345:12345 "$TMPD/own"
chmod 444 "$TMPD/own/ro.folded"
as_user -i "$folded_in" -o "$TMPD/own/ro.folded"
_check_bad "-o onto a read-only file (uid 12345)" 1 "ro\\.folded.*(permission|read-only)"
is "$(cat "$TMPD/own/ro.folded")" "keep me" "-o onto a read-only file: the file is unchanged"

# /proc/version cannot be replaced even by root.
verbefore=$(cat /proc/version)
bad "-o /proc/version" 1 "/proc/version" -p "$pid" -d 0.5 -o /proc/version
unlike "$ERRS" "directory does not exist" "-o /proc/version: the cause given is not a false 'directory does not exist'"
is "$(cat /proc/version)" "$verbefore" "-o /proc/version: unchanged"

# A symlink planted by another user (uid 12345) in a sticky directory.
mkdir "$TMPD/sticky"
chmod 1777 "$TMPD/sticky"
echo "victim" >"$TMPD/victim"
ln -s "$TMPD/victim" "$TMPD/sticky/out.folded"
chown -h 12345 "$TMPD/sticky/out.folded"
bad "-o through another user's symlink" 1 "symlink" -p "$pid" -d 0.5 -o "$TMPD/sticky/out.folded"
is "$(cat "$TMPD/victim")" "victim" "planted symlink: its target is not written"
is "$(stat -c '%F %u' "$TMPD/sticky/out.folded")" "symbolic link 12345" "planted symlink: left in place"

# --- -i --------------------------------------------------------------------------
: >"$TMPD/empty.folded"
bad "-i an empty file" 1 "empty\\.folded" -i "$TMPD/empty.folded" -o "$TMPD/o1.folded"
printf 'main;a;b 10\nmain;a;c 5\nmain;a;' >"$TMPD/trunc.folded"
bad "-i a truncated folded file" 1 "trunc\\.folded" -i "$TMPD/trunc.folded" -o "$TMPD/o2.folded"
run_sproftop -i "$folded_in" -o "$TMPD/whole.pb.gz" -f pprof
if [ "$RC" = 0 ] && [ -s "$TMPD/whole.pb.gz" ]; then
    head -c "$(( $(stat -c %s "$TMPD/whole.pb.gz") / 2 ))" "$TMPD/whole.pb.gz" >"$TMPD/trunc.pb.gz"
    bad "-i a truncated pprof file" 1 "trunc\\.pb\\.gz.*truncated" -i "$TMPD/trunc.pb.gz" -o "$TMPD/o3.folded"
else
    skip 2 "cannot write a pprof file to truncate"
fi
head -c 100000 /dev/urandom >"$TMPD/garbage"
bad "-i a garbage file" 1 "garbage.*(format|unrecognized)" -i "$TMPD/garbage" -o "$TMPD/o4.folded"
head -c 200M /dev/urandom >"$TMPD/huge"
bad "-i a 200 MB garbage file" 1 "huge" -i "$TMPD/huge" -o "$TMPD/o5.folded"
rm -f "$TMPD/huge"
bad "-i a missing file" 1 "nosuchfile" -i "$TMPD/nosuchfile"
bad "-i a directory" 1 "directory" -i "$TMPD/own"
check "no failed -i wrote an output file" test ! -e "$TMPD/o1.folded" -a ! -e "$TMPD/o2.folded" \
    -a ! -e "$TMPD/o3.folded" -a ! -e "$TMPD/o4.folded" -a ! -e "$TMPD/o5.folded"

# --- an unprivileged user attaching to root's process ---------------------------
if [ "$(id -u)" = 0 ]; then
    as_user -p "$pid" -d 1
    _check_bad "-p of another user's process, unprivileged" 1 "(permission|CAP_SYS_PTRACE|ptrace_scope)"
else
    skip 2 "not root: cannot set up another user"
fi

assert_not_stopped "$pid" "split not stopped, untraced after every bad input"

# --- a 10x5 terminal --------------------------------------------------------------
if command -v tmux >/dev/null; then
    T=(tmux -L "sproftop-rel-$$")
    tmux_cleanup() { "${T[@]}" kill-server >/dev/null 2>&1; cleanup; }
    trap tmux_cleanup EXIT
    "${T[@]}" new-session -d -s tiny -x 10 -y 5 \
        "'$SPROFTOP' -i '$folded_in' 2>'$TMPD/tiny.err'; echo \$? >'$TMPD/tiny.rc'"
    "${T[@]}" resize-window -t tiny -x 10 -y 5 >/dev/null 2>&1
    drawn() { [ -n "$("${T[@]}" capture-pane -p -t tiny 2>/dev/null | tr -d ' \n')" ]; }
    check "10x5 terminal: sproftop draws something" wait_until 10 drawn
    for k in Down Enter E h Escape Tab '<' '>' c Escape; do
        "${T[@]}" send-keys -t tiny "$k" 2>/dev/null
    done
    sleep 0.3
    "${T[@]}" send-keys -t tiny q 2>/dev/null
    wait_until 10 test -s "$TMPD/tiny.rc"
    is "$(cat "$TMPD/tiny.rc" 2>/dev/null)" 0 "10x5 terminal: keys are taken, q quits with status 0"
    [ -s "$TMPD/tiny.err" ] && diag_file "$TMPD/tiny.err"
else
    skip 2 "tmux not installed"
fi

done_testing
