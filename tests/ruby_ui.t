#!/usr/bin/env bash
# ruby_ui.t - Ruby frames in the live TUI, in a real terminal (tmux)
# (issue 23 item 2).
#
# sproftop -p on rbhot.rb (Debian's /usr/bin/ruby 3.1): the header names
# the interpreter ("Interpreter: Ruby 3.1.2"); the tree holds the three
# methods under the VM's native frames; P keeps the Ruby frames alone
# (<main> at the root, "Frames: script only" in the header) and P again
# brings the native frames back; the source view of rb_sixty shows
# rbhot.rb with samples on the line of its loop.  Every wait is bounded
# polling of the captured screen.
. "$(dirname "$0")/lib.sh"
require_sproftop
use_tmux sproftop-rbui

tmux_script_view hot rbhot.rb --cpu 120
hot=$SCRIPT_PID
keys hot 2
wait_until 20 search_shows hot rb_ten 'rb_ten +rbhot\.rb'
check "the flat view lists the Ruby methods (rb_ten, rbhot.rb)" screen_has hot 'rb_ten +rbhot\.rb'
keys hot 1 P
wait_until 10 screen_has hot 'Frames: script only'
check "P: the header says interpreter frames only" screen_has hot 'Frames: script only'
wait_until 10 screen_has hot '^ +[0-9.]+% +[0-9.]+% +[0-9]+ +▾ <main>'
check "P: <main> is the root of the tree" screen_has hot '▾ <main> +rbhot\.rb'
is "$(screen_rows hot '_start|rb_vm_exec|ruby_run_node')" 0 "P: no native frame is left"
keys hot 2
wait_until 10 screen_has hot 'rb_sixty +rbhot\.rb'
keys hot / rb_sixty Enter
keys hot a
wait_until 10 screen_has hot 'def rb_sixty'
check "the source view shows rbhot.rb" screen_has hot 'Line +/.*tests/targets/rbhot\.rb'
check "...with samples on rb_sixty's loop" screen_has hot '^>( +[0-9]+){2,3} +x \+= 1 while clock < stop'
[ $? = 0 ] || diag "$(screen hot)"
keys hot 1 P
wait_until 10 screen_has hot 'rb_vm_exec'
check "P again: the native frames are back (rb_vm_exec above <main>)" screen_has hot '▾ rb_vm_exec'
[ $? = 0 ] || diag "$(screen hot)"
keys hot q
wait_until 10 sh -c "! ${T[*]} has-session -t hot 2>/dev/null"
kill_pid "$hot"

done_testing
