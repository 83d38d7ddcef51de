#!/usr/bin/env bash
# ruby_formats.t - a live Ruby profile in the formats Ruby's own tools
# read (issue 23 item 5): sproftop samples Debian's /usr/bin/ruby running
# rbhot.rb and writes
#   - stackprof JSON, read by the real `stackprof` CLI (Debian's
#     ruby-stackprof): --text lists the Ruby methods, --method shows
#     rb_sixty's callers, callees and its code with the hot line, --file
#     annotates rbhot.rb's lines;
#   - callgrind, read by callgrind_annotate: the Ruby methods under their
#     .rb file, inclusive.
. "$(dirname "$0")/lib.sh"
require_sproftop
RB=/usr/bin/ruby
[ -x "$RB" ] || skip_all "Debian's $RB is not installed (make deps)"
case $("$RB" -e 'print RUBY_VERSION') in 3.1.*) ;; *) skip_all "reads Ruby 3.1" ;; esac
command -v stackprof >/dev/null || skip_all "stackprof not installed (make deps: ruby-stackprof)"
command -v callgrind_annotate >/dev/null || skip_all "callgrind_annotate not installed (make deps: valgrind)"
SP_TIMEOUT=30

cd "$TOP" || bail_out "no $TOP"
start_script hot "$RB" tests/targets/rbhot.rb --cpu 4
pid=$SCRIPT_PID
run_sproftop -p "$pid" -d 1.5 -o "$TMPD/p.stackprof.json"
is "$RC" 0 "sproftop writes stackprof JSON"
run_sproftop -p "$pid" -d 1 -o "$TMPD/p.callgrind"
is "$RC" 0 "sproftop writes callgrind"
kill_pid "$pid"

t=$(stackprof --text --limit 1000 "$TMPD/p.stackprof.json" 2>&1)
like "$t" "rb_sixty" "stackprof --text lists rb_sixty"
like "$t" "Process.clock_gettime" "stackprof --text lists the C method Process.clock_gettime"
m=$(stackprof --method rb_sixty "$TMPD/p.stackprof.json" 2>&1)
like "$m" "rb_sixty \(tests/targets/rbhot.rb:30\)" "stackprof --method: rb_sixty at its file and first line"
like "$(sed -n '/callers:/,/callees/p' <<<"$m")" "block \(2 levels\) in <main>" \
    "stackprof --method: its caller, the block"
like "$(sed -n '/callees/,/code:/p' <<<"$m")" "%\) +clock" "stackprof --method: its callee clock"
like "$m" "[0-9]+ +\([0-9.]+%\).*\| +33 +\|   x \+= 1 while clock < stop" \
    "stackprof --method: samples on line 33, the loop"
fl=$(stackprof --file tests/targets/rbhot.rb "$TMPD/p.stackprof.json" 2>&1)
like "$fl" "[0-9]+ +\([0-9.]+%\) .*\| +33 +\|   x \+= 1 while clock < stop" \
    "stackprof --file annotates rbhot.rb's line 33"
c=$(callgrind_annotate --inclusive=yes "$TMPD/p.callgrind" 2>&1)
like "$c" "tests/targets/rbhot.rb:<main> \[rbhot.rb\]" "callgrind_annotate: <main> under rbhot.rb"
like "$c" "tests/targets/rbhot.rb:rb_sixty \[rbhot.rb\]" "callgrind_annotate: rb_sixty under rbhot.rb"
done_testing
