#!/usr/bin/env bash
# ruby_gvl.t - a Ruby thread waiting for the GVL says so (issue 23 item
# 4): with --idle (perf, whose off-CPU stretches carry their reason),
# rbgvl.rb's two CPU-bound threads take turns under the GVL, so each
# spends about half its wall-clock time waiting for it.  Checks, for each
# of the two threads:
#   - [off-CPU: lock (GVL)] holds 35-65% of its samples (Ruby 3.1 hands
#     the lock over every 100 ms; a runner that is preempted waits for a
#     CPU, not for the GVL, so a loaded machine moves little);
#   - that reason frame sits under the Ruby line that wanted the lock
#     (spin, rbgvl.rb:10, below gvl_a or gvl_b);
# and the main thread, blocked in Thread#join, waits for the GVL only
# when it wakes to check for interrupts (at most 15% of its time).
. "$(dirname "$0")/lib.sh"
require_sproftop
require_ruby
SP_TIMEOUT=60

start_script gvl "$RB" "$TOP/tests/targets/rbgvl.rb" 120
pid=$SCRIPT_PID
f=$TMPD/gvl.folded
run_sproftop -p "$pid" --idle -F 200 -d 4 --stats -o "$f"
is "$RC" 0 "--idle -p rbgvl.rb: exits 0"
[ "$RC" = 0 ] || diag_file "$ERR"
kill_pid "$pid"

# per thread root: its samples, those waiting for the GVL, and those of
# them under spin (rbgvl.rb:10)
awk '{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s); split(s, fr, ";"); t = fr[1]
       all[t] += c
       if (index(s, ";[off-CPU: lock (GVL)]")) {
           gvl[t] += c
           if (index(s, ";spin (rbgvl.rb:10)")) under[t] += c
       } }
     END { for (t in all) printf "%s\t%d\t%d\t%d\n", t, all[t], gvl[t], under[t] }' \
    "$f" | sort >"$TMPD/threads"
diag_file "$TMPD/threads"
workers=0
while IFS=$'\t' read -r t all gvl under; do
    case $t in
        rbgvl.rb:2[45]-*)
            workers=$((workers + 1))
            pct=$((100 * gvl / (all ? all : 1)))
            cmp_ok "$pct" '>=' 35 "$t: waits for the GVL $pct% of its time (>= 35)"
            cmp_ok "$pct" '<=' 65 "$t: ...and <= 65%"
            cmp_ok "$under" '>=' $((gvl * 9 / 10)) \
                "$t: the GVL wait is under spin (rbgvl.rb:10) ($under of $gvl)"
            ;;
        *)
            cmp_ok "$((100 * gvl / (all ? all : 1)))" '<=' 15 \
                "$t (the main thread, in Thread#join): waits for the GVL only to check for interrupts ($gvl of $all)"
            ;;
    esac
done <"$TMPD/threads"
is "$workers" 2 "both Ruby threads were sampled"
done_testing
