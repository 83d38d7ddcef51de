#!/usr/bin/env bash
# perf_lost_exits.t - threads whose EXIT record the ring lost still end.
#
# A ring buffer that overflows loses records of every kind, EXIT records
# among them.  A thread whose EXIT is lost used to stay "alive" for the
# rest of the session: it never folded into its process's exited
# threads, its last off-CPU stretch kept growing, and the tables grew
# with every such thread (a 10-minute soak of -a kept 24,000 thread
# roots of churn's exited threads).  Now, after records are lost, /proc
# is asked at most once a second which threads are gone
# (pf_sweep_gone), and the end of the session tells the collector of
# every thread that exited.
#
# churn creates and joins 5,000 threads a second, in batches of 50: at
# most 50 alive at once besides its main thread.  (At 1,000 a second,
# in batches of 10, the rings lost mostly samples: a 2-KB sample does
# not fit the ring's last bytes, a 40-byte EXIT mostly does, so some
# runs lost no EXIT at all and CI's failed the sweep's check; 5,000 a
# second loses thousands of EXIT records here in 8 s.)  sproftop -p churn --idle with 8 KB
# rings and 2 KB stack copies (--ring-size, --stack-size) loses records
# for certain.  Checks: records were lost (counted); --stats says how
# many exits /proc found; at the end at most one batch of threads is
# alive in --stats; the saved profile keeps no more than that many
# separate roots of churn's worker threads (the rest are in
# "churn (exited)"); then -a over a loop of short processes (section 2
# below); --ring-size's bounds give one-line errors.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets churn

SP_TIMEOUT=60
start_target churn 30 5000 || bail_out "cannot start churn"
pid=$TARGET_PID

run_sproftop -p "$pid" --idle --ring-size 8K --stack-size 2K -F 999 -d 8 \
    --stats -o "$TMPD/churn.folded"
is "$RC" 0 "sproftop -p churn --ring-size 8K: exit 0"
lost=$(sed -n 's/^samples: .* lost \([0-9]*\),.*/\1/p' "$ERR")
cmp_ok "${lost:-0}" '>' 0 "records were lost in the small rings, and counted"
swept=$(sed -n 's/^perf: exits whose record was lost, found in \/proc: \([0-9]*\) threads.*/\1/p' "$ERR")
cmp_ok "${swept:-0}" '>' 0 "--stats: the exits whose record was lost, found in /proc"
[ "${swept:-0}" -gt 0 ] || diag_file "$ERR" 8
live=$(sed -n 's/^threads: \([0-9]*\) live.*/\1/p' "$ERR")
cmp_ok "${live:-999}" '<=' 51 "--stats: at most churn's main thread and one batch alive at the end"
[ "${live:-999}" -le 51 ] || diag_file "$ERR" 8
# The roots are threads (one process): churn-TID for a thread of its
# own, "churn (exited)" for the exited ones.
workers=$(thread_roots "$TMPD/churn.folded" churn "$pid")
cmp_ok "$workers" '<=' 50 "the saved profile keeps at most one batch of worker threads apart"
[ "$workers" -le 50 ] || diag "$(cut -d';' -f1 "$TMPD/churn.folded" | sort | uniq -c | sort -rn | head -n 15)"
check "...and the exited ones in churn (exited)" \
    grep -q '^churn (exited);' "$TMPD/churn.folded"
assert_not_stopped "$pid" "churn is not left stopped"
kill_pid "$pid"

# 2. -a with the same small rings over a loop of short processes: a
# process whose FORK and COMM records were lost, and that was gone
# before /proc could name it, is named after its executable once its
# maps are known; a leader met again once gone keeps its name.  So no
# "?" process root holds a function of a known program (before: 38 to
# 191 such stacks in 6 s, under a busy machine).
spawn bash -c 'while :; do "$0" 10; done' "$TARGETS/fixedwork" >/dev/null 2>&1
loop=$SPAWN_PID
run_sproftop -a --idle --ring-size 8K --stack-size 2K -F 999 -d 5 \
    --stats -o "$TMPD/all.folded"
kill_pid "$loop"
is "$RC" 0 "sproftop -a --ring-size 8K: exit 0"
check "-a: fixedwork's processes are in the profile" \
    grep -q '^fixedwork[- ].*;fixed_burn' "$TMPD/all.folded"
unnamed=$(grep -E '^\?[- ][^;]*;.*;(main|fixed_burn|__libc_start_call_main)( |;)' \
    "$TMPD/all.folded" | wc -l)
is "$unnamed" 0 "-a: no \"?\" process holds a known program's functions"
[ "$unnamed" = 0 ] || diag "$(grep '^?' "$TMPD/all.folded" | cut -c1-160 | head -n 5)"

# --ring-size's bounds.
run_sproftop -p 1 --ring-size 3K -d 1
is "$RC" 2 "--ring-size 3K: exit 2"
assert_one_line_error "--ring-size 3K: one line"
like "$ERRS" "invalid ring size '3K': expected 4K\.\.1024M" "...naming the bounds"
run_sproftop -p 1 --ring-size 2G -d 1
is "$RC" 2 "--ring-size 2G: exit 2"

done_testing
