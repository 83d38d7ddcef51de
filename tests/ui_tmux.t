#!/usr/bin/env bash
# ui_tmux.t - the live TUI in a real terminal (tmux), attached to a target.
#
# `sproftop -p PID` runs in a detached tmux session (100x30); keys go in
# with send-keys, the screen comes back with capture-pane.  Every wait is
# bounded polling on the captured screen (wait_until), never a sleep.
# Checks: the header names the PID; E shows the known hot function; the
# source view shows its file; < and > change the rate shown; p pauses
# (the sample count stops) and resumes; s + Enter writes a folded file;
# q asks once about unsaved samples, q again exits 0 and leaves the
# target running, not stopped, untraced (--no-confirm: one q); a target
# that exits leaves the data browsable with "exited (code 0)"; the recent
# window (w) shows a new hot function first within N + 2 s; a crash
# (SIGSEGV, SIGABRT sent to sproftop) gives the terminal back: normal
# screen, echo on, one line saying so, and the signal's exit status.
# Launch mode: --cmd-output, q ending the command (SIGTERM, then SIGKILL),
# --keep-cmd.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets demo phase

use_tmux sproftop-ui

# start_ui NAME ARGS...: run sproftop ARGS in a new 100x30 session NAME;
# its exit status lands in $TMPD/NAME.rc.  With KEEP_PANE set the pane
# stays open afterwards (cat), so its terminal does not hang up on what
# sproftop leaves running.
start_ui() {
    local name=$1 cmd
    shift
    printf -v cmd ' %q' "$SPROFTOP" "$@"
    cmd="cd '$TMPD' &&$cmd 2>'$TMPD/$name.err'; echo \$? >'$TMPD/$name.rc'"
    [ -n "${KEEP_PANE:-}" ] && cmd="$cmd; exec cat"
    "${T[@]}" new-session -d -s "$name" -x 100 -y 30 "$cmd"
}

# samples_above NAME N: the header's sample count is above N.
samples_above() {
    local s
    s=$(header_value "$1" Samples)
    [ -n "$s" ] && [ "$s" -gt "$2" ]
}

# seconds VALUE: a header time ("4.2s", "1:05") in seconds.
seconds() {
    awk -v t="$1" 'BEGIN { sub(/s$/, "", t); n = split(t, a, ":"); s = 0
        for (i = 1; i <= n; i++) s = s * 60 + a[i]; print s }'
}

# paused_at_least NAME S: the header says Paused: S seconds or more.
paused_at_least() {
    local p
    p=$(header_value "$1" Paused)
    [ -n "$p" ] && awk -v a="$(seconds "$p")" -v b="$2" 'BEGIN { exit !(a >= b) }'
}

start_target demo 600 || bail_out "cannot start demo"
pid=$TARGET_PID

start_ui live -p "$pid" -F 100 -r 0.2
screen_check "the header shows PID $pid" 20 live "PID $pid" ||
    bail_out "sproftop -p did not start in tmux"
check "the header shows the target running" screen_has live "State: running"
wait_until 20 samples_above live 100
check "samples are coming in" samples_above live 100

keys live E
screen_check "E leads the cursor to the hot function hash_chunk" \
    10 live '> .*hash_chunk'

keys live 5
wait_until 10 screen_has live 'demo\.c'
check "the source view shows demo.c" screen_has live 'Line  .*tests/targets/demo\.c'
check "the source view shows hash_chunk's hot loop" \
    screen_has live '^> +[0-9].*(for \(size_t i|h = \(h \^ p\[i\]\))'
keys live 1

# The threads view of a live target has htop's %CPU and CPU time
# (issue 12.10), from /proc; %CPU once two reads are 0.5 s apart.
keys live 4
wait_until 10 screen_has live 'CPU% +TIME\+ +State'
check "the threads view has CPU% and TIME+ columns" screen_has live 'Share +CPU% +TIME\+ +State'
wait_until 10 screen_has live '% +[0-9]+\.[0-9] +[0-9]+:[0-9]{2}\.[0-9]{2} +[a-z]'
check "a thread's row shows its %CPU and CPU time" \
    screen_has live '% +[0-9]+\.[0-9] +[0-9]+:[0-9]{2}\.[0-9]{2} +[a-z]'
keys live 1

check "the header shows the asked rate" screen_has live 'Rate: 100 Hz'
# What the header's figures are (issue 12.8): on-CPU, On CPU is the
# share of time the threads ran (tests/oncpu.t checks its value); the
# stop is per sample; the sampling time is rounded to a tenth of a
# second.
wait_until 10 screen_has live 'On CPU: [0-9]+%'
check "on-CPU mode: the header reads the share of time on CPU" \
    screen_has live 'Rate: 100 Hz  On CPU: [0-9]+%'
unlike "$(screen live)" '\(got ' "no \"(got N Hz)\" that reads like the sampler falling behind"
# The stop time is the ptrace backend's; the perf backend stops nothing
# and names itself instead.
if screen_has live 'Sampler: perf'; then
    unlike "$(screen live)" 'Stop/sample:' "the perf backend shows no stop time: it stops nothing"
else
    check "the stop time says it is per sample" screen_has live 'Stop/sample: [0-9.]+(ns|us|ms)'
fi
check "the sampling time has tenths of a second" screen_has live 'Sampling: [0-9]+\.[0-9]s'
keys live -l '<'
wait_until 10 screen_has live 'Rate: 200 Hz'
check "< halves the interval: 200 Hz, 5.00ms" screen_has live 'Rate: 200 Hz .*Interval: 5\.00ms'
keys live -l '>'
keys live -l '>'
wait_until 10 screen_has live 'Rate: 50\.0 Hz'
check "> > doubles it twice: 50 Hz, 20.00ms" screen_has live 'Rate: 50\.0 Hz .*Interval: 20\.00ms'

# Pause: the count and the sampling time must stop while Paused counts.
# Read them once the collector has merged what was in flight (a second
# into the pause), then again a second later.
keys live p
wait_until 10 screen_has live 'PAUSED'
check "p shows PAUSED" screen_has live 'PAUSED'
wait_until 10 paused_at_least live 1
a=$(header_value live Samples)
sa=$(header_value live Sampling)
wait_until 10 paused_at_least live 2
b=$(header_value live Samples)
sb=$(header_value live Sampling)
is "$b" "$a" "paused: the sample count stays at $a"
like "$sa" '^[0-9]' "paused: the header says how long it sampled ($sa) and for how long it is paused"
is "$sb" "$sa" "paused: the sampling time stays at $sa (issue 12.8)"
check "paused: no thread of the target is stopped" all_threads_in_state "$pid" RSD
keys live p
wait_until 10 samples_above live "${b:-0}"
check "p again resumes: the count grows past $b" samples_above live "${b:-0}"
unlike "$(screen live | head -n 1)" 'PAUSED' "resumed: no PAUSED badge"
sc=$(header_value live Sampling)
ok "$([ -n "$sc" ] && awk -v a="$(seconds "$sc")" -v b="$(seconds "$sa")" 'BEGIN { exit !(a < b + 1.5) }'; echo $?)" \
    "resumed: the sampling time goes on from $sa, the pause left out ($sc)"

keys live s
wait_until 10 screen_has live '^Save as pprof'
check "s opens the save prompt with a default name, in pprof" \
    screen_has live "^Save as pprof \(Tab: format\): sproftop-[^ ]+-$pid-[0-9]{8}-[0-9]{6}\.pb\.gz"
keys live Enter
wait_until 10 screen_has live '^saved [0-9]+ samples as pprof to '
check "Enter saves and says so, with the full path" \
    screen_has live "^saved [0-9]+ samples as pprof to (/|~/)[^ ]*/sproftop-"
nsaved=$(screen live | sed -n 's/^saved \([0-9][0-9]*\) samples as pprof.*/\1/p' | head -n 1)
saved=$(ls "$TMPD"/sproftop-*-"$pid"-*.pb.gz 2>/dev/null | head -n 1)
check "the snapshot file exists" test -s "$saved"
"$SPROFTOP" -i "$saved" -o "$TMPD/saved.folded" 2>/dev/null
check "the snapshot reads back (-i), as folded stacks" folded_well_formed "$TMPD/saved.folded"
cmp_ok "$(folded_count_frame "$TMPD/saved.folded" hash_chunk)" '>' 0 "the snapshot holds hash_chunk"

# Quitting with samples taken since the save asks once (issue 12.5);
# any other key stays, q again quits.  First a sample newer than the
# save: the save wrote the newest data, which the screen may not show
# yet, so the count to pass is the saved one (bounded: a starved target
# may take a while).
wait_until 30 samples_above live "${nsaved:-0}"
keys live q
wait_until 10 screen_has live '^Quit\? [0-9]+ samples are not saved \(q: quit'
check "q with unsaved samples asks first" \
    screen_has live '^Quit\? [0-9]+ samples are not saved \(q: quit, s: save, other: stay\)'
keys live x
wait_until 10 screen_has live '^not quitting'
check "another key answers: not quitting" screen_has live '^not quitting'
check "and sproftop still runs" test ! -e "$TMPD/live.rc"
keys live q
wait_until 10 screen_has live '^Quit\? '
keys live q
wait_until 15 test -s "$TMPD/live.rc"
is "$(cat "$TMPD/live.rc" 2>/dev/null)" 0 "q, q exits 0"
check "the target still runs after q" is_running "$pid"
assert_not_stopped "$pid" "after q the target is neither stopped nor traced"
is "$(cat "$TMPD/live.err" 2>/dev/null)" "" "nothing on stderr"

# A target that exits: the data stays browsable, the header says so.
start_target demo 3 || bail_out "cannot start demo 3"
pid2=$TARGET_PID
start_ui gone -p "$pid2" -F 200 -r 0.2 --no-confirm
wait_until 20 screen_has gone "PID $pid2"
screen_check "the header says exited (code 0)" \
    20 gone 'State: exited \(code 0\)'
keys gone p
wait_until 10 screen_has gone '^the target has exited: nothing to pause'
check "after the exit, p says the target has exited" \
    screen_has gone '^the target has exited: nothing to pause'
unlike "$(screen gone | head -n 1)" 'PAUSED' "after the exit, p shows no PAUSED badge"
keys gone -l '<'
wait_until 10 screen_has gone '^the target has exited: the rate cannot change'
check "after the exit, < says the rate cannot change" \
    screen_has gone '^the target has exited: the rate cannot change'
keys gone 2
wait_until 10 screen_has gone 'hash_chunk'
check "after the exit the flat view still shows hash_chunk" screen_has gone '% +hash_chunk'
keys gone q
wait_until 15 test -s "$TMPD/gone.rc"
is "$(cat "$TMPD/gone.rc" 2>/dev/null)" 0 \
    "with --no-confirm one q exits 0, unsaved samples and all"

# Launch mode (issue 12.6).  cmd.sh writes its PID, a line to stdout and
# one to stderr, then becomes demo (a CPU-bound target, so there are
# samples and q asks first).  --cmd-output FILE gets both lines; q ends
# the launched command (SIGTERM); one that ignores SIGTERM is killed
# 2 s later, with a line saying so; --keep-cmd leaves it running.
cat >"$TMPD/cmd.sh" <<'EOS'
#!/bin/sh
# cmd.sh PIDFILE TARGET [ignore-term]
[ "$3" = ignore-term ] && trap '' TERM
echo $$ >"$1"
echo to-stdout
echo to-stderr >&2
exec "$2" 600
EOS

# launch_case NAME OPTION... -- ARGS: sproftop OPTIONS -- sh cmd.sh
# NAME.pid demo ARGS in session NAME; waits for samples.  Sets CPID.
launch_case() {
    local name=$1
    shift
    local opts=()
    while [ "$1" != -- ]; do
        opts+=("$1")
        shift
    done
    shift
    start_ui "$name" -F 200 -r 0.2 "${opts[@]}" -- sh "$TMPD/cmd.sh" \
        "$TMPD/$name.pid" "$TARGETS/demo" "$@"
    wait_until 20 test -s "$TMPD/$name.pid"
    CPID=$(cat "$TMPD/$name.pid" 2>/dev/null)
    wait_until 20 samples_above "$name" 10
}

launch_case launch --cmd-output "$TMPD/cmd.out" --
wait_until 10 grep -q to-stderr "$TMPD/cmd.out"
is "$(sort "$TMPD/cmd.out" 2>/dev/null)" "$(printf 'to-stderr\nto-stdout')" \
    "--cmd-output: the command's output and errors go to the file"
keys launch q
wait_until 10 screen_has launch '^Quit\? '
check "the quit question says the command will be ended" \
    screen_has launch '^Quit\? [0-9]+ samples are not saved and the command will be ended'
keys launch q
wait_until 15 test -s "$TMPD/launch.rc"
is "$(cat "$TMPD/launch.rc" 2>/dev/null)" 0 "q, q exits 0"
check "quitting ended the launched command" _not_alive "$CPID"
is "$(cat "$TMPD/launch.err" 2>/dev/null)" "" "nothing on stderr (it ended on SIGTERM)"

launch_case stubborn --no-confirm -- ignore-term
keys stubborn q
wait_until 15 test -s "$TMPD/stubborn.rc"
is "$(cat "$TMPD/stubborn.rc" 2>/dev/null)" 0 "a command ignoring SIGTERM: q exits 0"
check "...the command was killed" _not_alive "$CPID"
like "$(cat "$TMPD/stubborn.err" 2>/dev/null)" \
    "^sproftop: sh \(PID $CPID\) was still running 2 s after SIGTERM: killed\$" \
    "...and one line says it was killed after the grace period"

KEEP_PANE=1 launch_case keep --keep-cmd --no-confirm --
[ -n "$CPID" ] && _pids+=("$CPID")
keys keep q
wait_until 15 test -s "$TMPD/keep.rc"
is "$(cat "$TMPD/keep.rc" 2>/dev/null)" 0 "--keep-cmd: q exits 0"
check "--keep-cmd: the command still runs" is_running "$CPID"
assert_not_stopped "$CPID" "--keep-cmd: the command is neither stopped nor traced"

# The recent window follows what is hot now (w): phase spins in old_hot
# for 12 s, then in new_hot.  In the 5 s window new_hot must lead the flat
# table within 5 + 2 s of the change; since the start old_hot still leads
# then (it ran 12 s, new_hot at most 7).
# leads NAME FUNC: FUNC is the first row of the flat table on screen.
leads() {
    screen "$1" | awk '/ Self +Self%/ { getline; print; exit }' |
        grep -Eq -- "%  $2\$|%  $2 "
}

marker=$TMPD/phase.switched
start_target phase 12 "$marker" 600 || bail_out "cannot start phase"
pid3=$TARGET_PID
start_ui now -p "$pid3" -F 100 -r 0.2 --no-confirm
wait_until 20 screen_has now "PID $pid3"
keys now 2
keys now w
wait_until 10 screen_has now '^ last 5s '
check "w: the strip under the header says last 5s" screen_has now '^ last 5s '
wait_until 20 leads now old_hot
check "before the change old_hot leads the recent window" leads now old_hot
if wait_until 20 test -e "$marker"; then
    t0=$(date +%s.%N)
    if wait_until 7 leads now new_hot; then
        ok 0 "the recent window shows new_hot leading within 7 s of the change"
        note "new_hot led $(awk -v a="$t0" -v b="$(date +%s.%N)" \
            'BEGIN { printf "%.1f", b - a }') s after the change"
    else
        ok 1 "the recent window shows new_hot leading within 7 s of the change"
        diag "$(screen now)"
    fi
    keys now w
    wait_until 10 screen_has now '^ since start '
    check "w again: since start" screen_has now '^ since start '
    if leads now old_hot; then
        ok 0 "since the start old_hot still leads"
    else
        ok 1 "since the start old_hot still leads"
        diag "$(screen now)"
    fi
else
    ok 1 "phase switched to new_hot"
fi
keys now q
wait_until 15 test -s "$TMPD/now.rc"
is "$(cat "$TMPD/now.rc" 2>/dev/null)" 0 "q exits 0 (recent window)"
assert_not_stopped "$pid3" "the phase target is neither stopped nor traced"

# A crash gives the terminal back (ui/crash.c): sproftop, on a loaded file
# so no target is involved, gets a fatal signal by PID while it owns the
# terminal.  The shell around it records the exit status, then `cat`
# keeps the pane open to read the terminal's state afterwards.
cp "$TOP/tests/ui/demo.folded" "$TMPD/demo.folded"

# alternate NAME: 1 while the pane shows the alternate screen, else 0.
alternate() {
    "${T[@]}" display -p -t "$1" '#{alternate_on}' 2>/dev/null
}

crash_case() {
    local sig=$1 num=$2 name=crash-$1 pid
    "${T[@]}" new-session -d -s "$name" -x 100 -y 30 \
        "cd '$TMPD' && ulimit -c 0; sh -c 'echo \$\$ >$name.pid; exec \"\$0\" -i demo.folded' '$SPROFTOP'; echo \$? >$name.rc; exec cat"
    wait_until 20 screen_has "$name" 'file: demo\.folded'
    is "$(alternate "$name")" 1 "SIG$sig: the TUI is up, on the alternate screen"
    pid=$(cat "$TMPD/$name.pid" 2>/dev/null)
    [ -n "$pid" ] && kill -"$sig" "$pid"
    wait_until 10 test -s "$TMPD/$name.rc"
    is "$(cat "$TMPD/$name.rc" 2>/dev/null)" "$((128 + num))" \
        "SIG$sig: sproftop dies of the signal (exit status $((128 + num)))"
    is "$(alternate "$name")" 0 "SIG$sig: the terminal is back on the normal screen"
    check "SIG$sig: one line says so" \
        screen_has "$name" "^sproftop: crashed with SIG$sig; the terminal was restored\$"
    # Cooked mode again: a typed line is echoed, then cat prints it.
    keys "$name" typed-back Enter
    wait_until 10 test "$(screen "$name" | grep -c '^typed-back$')" -ge 2
    is "$(screen "$name" | grep -c '^typed-back$')" 2 \
        "SIG$sig: the terminal echoes again (line mode restored)"
}

crash_case SEGV 11
crash_case ABRT 6

done_testing
