#!/usr/bin/env bash
# longrun.t - a long session of short processes (issue 24): no sample is
# lost, exited processes fold by command, a binary's symbols survive the
# gap between its processes, memory does not grow with the processes.
#
#   1. --children over 30 short processes (60 ms of CPU each) and over
#      300 very short ones (2 ms): the saved file holds every sample
#      --stats counts, and every process that ran 50 ms has samples;
#   2. -a during a short build (cc of a few targets, twice): the same;
#   3. 2,000 short processes of two binaries: the process roots are folded
#      into "fixedwork (N exited)" and "fixedwork2 (N exited)", the totals
#      are conserved, each binary's module is loaded at most twice, and
#      sproftop's RSS after the 2,000 is at most 1.5x its RSS after the
#      first 200; --stats counts the folds, which are paced by their cost;
#   4. the processes view's exited rows live in tmux, and X hides them;
#   5. -a --idle counts the threads that were blocked when it started
#      (a sleeper's three threads, blocked all along) from the start.
#   1b. --exited-nodes 100 over 200 processes of a 300-deep recursion:
#      the stack is cut into "[rare stacks]", every sample still in the
#      file (test_fold's test_frames_freed: the frames freed after).
# Every wait is bounded; every process is started here and ended by PID.
# Its time is the processes' (about 5 s alone; ~40 s at a load of 20).
. "$(dirname "$0")/lib.sh"

require_sproftop
require_targets fixedwork fixedwork2 sleeper recurse
plan 38

FW=$(readlink -f "$TARGETS/fixedwork")
FW2=$(readlink -f "$TARGETS/fixedwork2")

# stats_samples FILE: the samples --stats counted.
stats_samples() { sed -n 's/^samples: \([0-9]*\) .*/\1/p' "$1" | head -n 1; }
# stats_dropped FILE: the samples --stats says it dropped (both reasons).
stats_dropped() {
    sed -n 's/^dropped: \([0-9]*\) samples.*, \([0-9]*\) out of memory$/\1 \2/p' \
        "$1" | awk '{ print $1 + $2 }'
}
# stats_idle FILE: -a's idle-loop samples, counted and left out (--stats
# names them).
stats_idle() {
    sed -n 's/.*idle loop left out: \([0-9]*\) samples$/\1/p' "$1" |
        awk '{ n += $1 } END { print n + 0 }'
}
# roots FILE: the process roots of a folded file, one per line.
roots() { awk '{ split($0, f, ";"); print f[1] }' "$1" | sort -u; }
# exited_of FILE CMD: N of the root "CMD (N exited)" (0 when none).
exited_of() {
    roots "$1" | sed -n "s/^$2 (\([0-9,]*\) exited)\$/\1/p" | tr -d , |
        awk '{ n += $1 } END { print n + 0 }'
}

# --- 1. --children over short processes -----------------------------------------
# short N MS LABEL: N processes of MS ms of CPU each under --children:
# four tests (the exit, the file's sum, no drop, where they are); sets
# SEP and AGG (processes alone and folded that have samples)
short() {
    local f=$TMPD/$1.folded n
    run_sproftop --children -F 499 --stats -o "$f" -- \
        bash -c "for i in \$(seq $1); do '$FW' $2; done"
    is "$RC" 0 "$3: --children exits 0"
    n=$(stats_samples "$ERR")
    is "$(folded_total "$f")" "$n" "$3: the file holds every sample counted ($n)"
    is "$(stats_dropped "$ERR")" 0 "...and --stats drops none"
    SEP=$(roots "$f" | grep -c '^fixedwork-[0-9]*$')
    AGG=$(exited_of "$f" fixedwork)
}
short 30 60 "30 short processes"
# each ran 60 ms of CPU: each has ~30 samples, so each is in the file,
# as a root of its own or among its command's exited ones
is "$((SEP + AGG))" 30 "every one of the 30 processes has samples ($SEP alone, $AGG folded)"
short 300 2 "300 very short processes"
cmp_ok "$((SEP + AGG))" '<=' 300 "...in at most 300 processes ($SEP alone, $AGG folded)"
cmp_ok "$SEP" '<=' 64 "...of which at most the newest 64 stay apart"

# --- 1b. the exited stacks' budget (--exited-nodes) ------------------------------
# 200 processes of recurse, each 300 frames deep: their aggregate holds
# ~300 nodes, over a budget of 100, so a fold picks the weight a node
# needs to stay and the next one cuts the stack into "[rare stacks]",
# below which bottom_spin keeps its samples
REC=$(readlink -f "$TARGETS/recurse")
run_sproftop --children -F 499 --exited-nodes 100 --stats \
    -o "$TMPD/rare.folded" -- bash -c "for i in \$(seq 200); do '$REC' 0.02; done"
is "$RC" 0 "--exited-nodes 100: exits 0"
n=$(stats_samples "$ERR")
is "$(folded_total "$TMPD/rare.folded")" "$n" "...the file holds every sample counted ($n)"
like "$(grep '^rare stacks of exited' "$ERR")" \
    '^rare stacks of exited processes and threads: [0-9]+ nodes below them of 100 kept; [1-9][0-9]* nodes cut' \
    "...--stats says nodes were cut"
cmp_ok "$(grep -c '^recurse ([0-9,]* exited);[^;]*;\[rare stacks\];bottom_spin ' "$TMPD/rare.folded")" '==' 1 \
    "...bottom_spin keeps its samples below [rare stacks] in the aggregate"

# --- 2. -a during a short build ---------------------------------------------------
build() {
    local i f
    for i in 1 2; do
        for f in split recurse demo names threads; do
            cc -O2 -c "$TOP/tests/targets/$f.c" -I"$TOP/tests/targets" \
                -o "$TMPD/$f.o" 2>/dev/null
        done
    done
    echo done >"$TMPD/build.done"
}
build &
BPID=$!
_pids+=("$BPID")
run_sproftop -a -d 3 --stats -o "$TMPD/a.folded"
wait_until 120 test -e "$TMPD/build.done"
wait "$BPID" 2>/dev/null
is "$RC" 0 "-a during a build: exits 0"
n=$(stats_samples "$ERR")
idle=$(stats_idle "$ERR")
is "$(folded_total "$TMPD/a.folded")" "$((n - idle))" \
   "-a during a build: the file holds every sample counted ($n) but the idle loop's ($idle)"
is "$(stats_dropped "$ERR")" 0 "...and --stats drops none"
cmp_ok "$(roots "$TMPD/a.folded" | grep -c '^cc1')" '>=' 1 "...with the compiler's processes in it"

# --- 3. 2,000 short processes of two binaries ---------------------------------------
# Each burns 3 ms of CPU under a 1 ms period: an inherited event counts
# each child from zero, so a child with less CPU than one period may
# have no sample at all (as under perf record).
cat >"$TMPD/many.sh" <<EOF
#!/bin/sh
i=0
while [ \$i -lt 1000 ]; do
    '$FW' 3; '$FW2' 3
    i=\$((i + 1))
    [ \$i = 100 ] && : >'$TMPD/at200'
done
: >'$TMPD/at2000'
# wait (bounded) until the test has read sproftop's RSS
n=0
while [ ! -e '$TMPD/go' ] && [ \$n -lt 1200 ]; do sleep 0.05; n=\$((n + 1)); done
EOF
chmod +x "$TMPD/many.sh"
rss_of() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
SP_TIMEOUT=300 spawn timeout -k 5 300 "$SPROFTOP" --children -F 997 --stats \
    -o "$TMPD/2k.folded" -- "$TMPD/many.sh" >/dev/null 2>"$TMPD/2k.err"
TPID=$SPAWN_PID
sp_pid() { pgrep -P "$TPID" -x sproftop | head -n 1; }
wait_until 10 sp_pid >/dev/null
SPID=$(sp_pid)
wait_until 240 test -e "$TMPD/at200"
rss200=$(rss_of "$SPID")
wait_until 240 test -e "$TMPD/at2000"
rss2000=$(rss_of "$SPID")
: >"$TMPD/go"
wait_exit "$TPID" 120
is "$EXIT_RC" 0 "2,000 processes: --children exits 0"
n=$(stats_samples "$TMPD/2k.err")
is "$(folded_total "$TMPD/2k.folded")" "$n" "2,000 processes: the totals are conserved ($n samples)"
is "$(stats_dropped "$TMPD/2k.err")" 0 "...and --stats drops none"
# the folds: some, each followed by FOLD_SPACING (9) times its cost
# before the next (but the last two: the session's end folds at once)
read -r folds fold_all fold_max < <(sed -n \
    's/^folds of exited processes and threads: \([0-9]*\), \([0-9.]*\) ms in all, .*, the longest \([0-9.]*\) ms$/\1 \2 \3/p' \
    "$TMPD/2k.err")
secs=$(sed -n 's/^sproftop stats: PID [0-9-]*, \([0-9.]*\) s,.*/\1/p' "$TMPD/2k.err")
cmp_ok "${folds:-0}" '>' 0 "2,000 processes: --stats counts the folds (${folds:-none}, ${fold_all:-?} ms)"
ok "$(awk -v a="${fold_all:-x}" -v m="${fold_max:-x}" -v s="${secs:-x}" \
    'BEGIN { exit !(a ~ /^[0-9.]+$/ && s ~ /^[0-9.]+$/ && 10 * (a - 2 * m) <= s * 1000) }'; echo $?)" \
    "...paced: 10 times their cost, but the last two's, within the session's ${secs:-?} s"
# what the profile holds at the end: the live threads, the 64 newest
# exited processes' and the aggregates', not 2,000 processes' threads
pthreads=$(sed -n 's/^profile: [0-9.]* MiB; [0-9]* nodes [0-9.]* MiB, [0-9]* frames ([0-9]* free) [0-9.]*, \([0-9]*\) threads .*/\1/p' "$TMPD/2k.err")
cmp_ok "${pthreads:-99999}" '<=' 200 "2,000 processes: --stats's profile holds few threads (${pthreads:-no profile line})"
like "$(grep '^rare stacks of exited' "$TMPD/2k.err")" \
    '^rare stacks of exited processes and threads: [0-9]+ nodes below them of 300000 kept; 0 nodes cut' \
    "...and its few stacks cut none"
a1=$(exited_of "$TMPD/2k.folded" fixedwork)
a2=$(exited_of "$TMPD/2k.folded" fixedwork2)
cmp_ok "$a1" '>' 0 "the exited fixedwork processes fold into one root ($a1)"
cmp_ok "$a2" '>' 0 "the exited fixedwork2 processes fold into one root ($a2)"
cmp_ok "$(roots "$TMPD/2k.folded" | wc -l)" '<=' 70 "...so the file has few process roots"
loads() {
    sed -n 's/^symbol loads: //p' "$TMPD/2k.err" | tr ',' '\n' |
        awk -v b="$1" '$1 == b { print $2 }'
}
l1=$(loads fixedwork)
l2=$(loads fixedwork2)
ok "$([ -n "$l1" ] && [ "$l1" -le 2 ]; echo $?)" "fixedwork's module was loaded at most twice (${l1:-never})"
ok "$([ -n "$l2" ] && [ "$l2" -le 2 ]; echo $?)" "fixedwork2's module was loaded at most twice (${l2:-never})"
most=$(sed -n 's/^symbol reuse: .*, at most \([0-9]*\) .*/\1/p' "$TMPD/2k.err")
cmp_ok "${most:-99}" '<=' 2 "no binary's module was loaded more than twice"
note "RSS after 200 processes ${rss200:-?} kB, after 2,000 ${rss2000:-?} kB"
if [ "$BUILD" != build ]; then
    # a sanitizer keeps freed memory in quarantine: RSS says nothing
    skip 1 "RSS under a sanitizer build ($BUILD)"
else
    ok "$([ -n "$rss200" ] && [ -n "$rss2000" ] &&
          [ $((rss2000 * 2)) -le $((rss200 * 3)) ]; echo $?)" \
        "RSS after 2,000 processes <= 1.5x RSS after 200 ($rss2000 kB, $rss200 kB)"
fi

# --- 5. -a --idle: threads blocked all along --------------------------------------
start_target sleeper 60 || bail_out "cannot start sleeper"
slp=$TARGET_PID
run_sproftop -a --idle -d 3 -o "$TMPD/idle.folded"
is "$RC" 0 "-a --idle: exits 0"
for f in sleep_inner poll_inner epoll_inner; do
    read -r yes _ < <(folded_under_root "$TMPD/idle.folded" "sleeper-$slp" "$f")
    cmp_ok "$yes" '>' 0 "-a --idle: the sleeper's $f, blocked since before the start, is counted ($yes)"
done
kill_pid "$slp"

# --- 4. the processes view's exited rows, live -----------------------------------------
use_tmux sproftop-longrun
cat >"$TMPD/short.sh" <<EOF
#!/bin/sh
i=0
while [ \$i -lt 200 ]; do '$FW' 3; i=\$((i + 1)); done
n=0
while [ ! -e '$TMPD/stop' ] && [ \$n -lt 300 ]; do sleep 0.2; n=\$((n + 1)); done
EOF
chmod +x "$TMPD/short.sh"
# 100 rows: the 64 newest processes stay rows of their own, and the row of
# the exited ones may sort below them (CI once waited 120 s for it on a
# 30-row screen)
"${T[@]}" new-session -d -s ui -x 100 -y 100 \
    "'$SPROFTOP' --no-confirm -r 0.3 -F 999 --children -- '$TMPD/short.sh' 2>'$TMPD/ui.err'"
wait_until 30 screen_has ui 'Samples:' || bail_out "the live view did not start"
keys ui 7
check "procs view: the exited fixedwork processes are one row" \
    wait_until 120 screen_has ui ' - .*fixedwork \([0-9,]+ exited\)'
keys ui X
hidden() { ! screen_has ui 'exited\)'; }
check "X hides the exited rows" wait_until 20 hidden
keys ui X
keys ui g   # the rows came back above the cursor: to the first
check "X again shows them" wait_until 20 screen_has ui 'fixedwork \([0-9,]+ exited\)' || diag "$(screen ui)"
: >"$TMPD/stop"
keys ui q
wait_until 20 session_gone ui || keys ui y
done_testing
