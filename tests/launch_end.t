#!/usr/bin/env bash
# launch_end.t - one policy ends a launched command (src/app/launch.c,
# issue 20): it lives as long as the session.  Batch mode here; the live
# view's quit (SIGTERM, the stubborn command killed 2 s later with one
# line, --keep-cmd) is tests/ui_tmux.t's, through the same function.
#
#   - -d over first: the command is ended (SIGTERM), sproftop exits 0 and
#     says nothing; one that ignores SIGTERM is killed 2 s later, with one
#     line on stderr;
#   - --keep-cmd: sproftop exits 0 at the end of -d and the command runs
#     on, neither stopped nor traced;
#   - a stop signal to sproftop is passed on to the command, and sproftop
#     exits with the command's status (143: killed by SIGTERM);
#   - a command that ends first gives sproftop its status (3).
# Every wait is bounded (run_sproftop's timeout: the old batch mode waited
# for the command with no limit, which would end there).
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets demo split

# cmd.sh PIDFILE TARGET [ignore-term]: writes its PID, then becomes TARGET
# (running for 10 minutes), ignoring SIGTERM when asked.
cat >"$TMPD/cmd.sh" <<'EOS'
#!/bin/sh
[ "$3" = ignore-term ] && trap '' TERM
echo $$ >"$1"
exec "$2" 600
EOS
cmd() { echo sh "$TMPD/cmd.sh" "$TMPD/$1.pid" "$TARGETS/demo" "${@:2}"; }
cpid() { cat "$TMPD/$1.pid" 2>/dev/null; }

gone() { [ -n "$1" ] && _not_alive "$1"; }

# --- the duration ends first -------------------------------------------------
for sampler in auto ptrace; do
    run_sproftop --sampler $sampler -d 1 -F 200 -o "$TMPD/d-$sampler.folded" -- \
        $(cmd d-$sampler)
    is "$RC" 0 "$sampler: -d over first: sproftop exits 0"
    is "$ERRS" "" "$sampler: ...says nothing (the command ended on SIGTERM)"
    check "$sampler: ...and the command is gone" gone "$(cpid d-$sampler)"
    cmp_ok "$(folded_total "$TMPD/d-$sampler.folded")" '>' 0 \
        "$sampler: ...after its samples were written"
done

run_sproftop -d 1 -F 200 -o "$TMPD/s.folded" -- $(cmd s ignore-term)
p=$(cpid s)
is "$RC" 0 "a command ignoring SIGTERM: sproftop exits 0"
like "$ERRS" "^sproftop: sh \\(PID $p\\) was still running 2 s after SIGTERM: killed\$" \
    "...one line says it was killed after the grace period"
check "...and it is gone" gone "$p"

# --- --keep-cmd ------------------------------------------------------------------
run_sproftop --keep-cmd -d 1 -F 200 -o "$TMPD/k.folded" -- $(cmd k)
p=$(cpid k)
[ -n "$p" ] && _pids+=("$p")
is "$RC" 0 "--keep-cmd: sproftop exits 0 at the end of -d"
check "--keep-cmd: the command runs on" is_running "$p"
assert_not_stopped "$p" "--keep-cmd: ...neither stopped nor traced"

# --- a stop signal -------------------------------------------------------------
spawn "$SPROFTOP" -F 200 -o "$TMPD/t.folded" -- $(cmd t) >"$TMPD/t.out" 2>"$TMPD/t.err"
sp=$SPAWN_PID
_started() { [ -s "$TMPD/t.pid" ] && _exe_is "$(cpid t)" "$(readlink -f "$TARGETS/demo")"; }
wait_until 20 _started || diag "the command did not start: $(cat "$TMPD/t.err")"
p=$(cpid t)
kill -TERM "$sp"
if wait_exit "$sp" 20; then
    is "$EXIT_RC" 143 "SIGTERM to sproftop: passed on, sproftop exits as the command did (143)"
else
    ok 1 "SIGTERM to sproftop: it exits within 20 s"
    kill_pid "$sp"
fi
check "...and the command is gone" gone "$p"
check "...the profile is written" test -s "$TMPD/t.folded"

# --- the command ends first ----------------------------------------------------
run_sproftop -d 30 -o "$TMPD/e.folded" -- "$TARGETS/split" 1 3
is "$RC" 3 "the command ends first: sproftop exits with its status (3)"

done_testing
