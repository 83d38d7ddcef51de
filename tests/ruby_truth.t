#!/usr/bin/env bash
# ruby_truth.t - the Ruby ground truth (issue 23, item 3), on both
# backends, on an idle machine and with two CPU hogs.
#
# rbhot.rb spends 60%, 30% and 10% of its main thread's CPU in rb_sixty,
# rb_thirty and rb_ten, in calls of a few milliseconds, and writes each
# method's share of its own CPU time.  sproftop attaches once it runs
# (-p) and samples it to its end:
#   - each method's share of the samples is within 5 points of the
#     target's own;
#   - every sample of the main thread that holds Ruby frames reaches
#     <main>.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_ruby
SP_TIMEOUT=60

# one run: backend $1 under load $2
one_run() {
    local b=$1 load=$2
    hot_run "$b" "$load" "$RB" rbhot.rb rb_sixty rb_thirty rb_ten
    read -r all main < <(awk -v t="ruby-$pid;" '
        index($0, t) == 1 && /\(rbhot\.rb(:[0-9]+)?\)/ { c = $NF; a += c
            if (index($0, ";<main> (rbhot.rb)")) m += c }
        END { printf "%d %d\n", a, m }' "$f")
    cmp_ok "$all" '>' 0 "$b, $load: the main thread has samples with Ruby frames"
    is "$main" "$all" "$b, $load: every one of them reaches <main> ($main of $all)"
}

hot_loads one_run

done_testing
