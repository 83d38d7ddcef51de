#!/usr/bin/env bash
# python_ui.t - Python frames in the live TUI, in a real terminal (tmux).
#
#   1. sproftop -p on pyhot.py: the header names the interpreter
#      ("Interpreter: Python 3.11.2"); the tree holds <module> and its
#      three functions under the interpreter's native frames; P keeps the
#      Python frames alone (<module> at the root, "Frames: script only"
#      in the header) and P again brings the native frames back; the
#      source view of py_sixty shows pyhot.py with samples on the lines
#      of its loop;
#   2. --idle on pyblock.py: the source view of in_recv puts its samples
#      on the line that blocks, s.recv(16).
# Every wait is bounded polling of the captured screen.
. "$(dirname "$0")/lib.sh"
require_sproftop
use_tmux sproftop-pyui

# (sets PY, Debian's python3, for pyblock.py below)
tmux_script_view hot pyhot.py --cpu 120
hot=$SCRIPT_PID
wait_until 20 screen_has hot '▾ PyEval_EvalCode'
check "<module> stands under the interpreter's native frames" \
    screen_has hot '▾ PyEval_EvalCode'
[ $? = 0 ] || diag "$(screen hot)"
# the hot path opens down to the kernel's clock_gettime: py_ten, the
# coldest, may be below the window until the search reaches it (and the
# native frames then scroll off the top); the search is typed again until
# it has a sample to find
wait_until 20 search_shows hot py_ten 'py_ten +pyhot\.py'
check "the tree shows the Python functions (py_ten)" screen_has hot 'py_ten +pyhot\.py'
keys hot g P
wait_until 10 screen_has hot 'Frames: script only'
check "P: the header says Python frames only" screen_has hot 'Frames: script only'
wait_until 10 screen_has hot '^[> ] *[0-9.]+% +[0-9.]+% +[0-9]+ +[▾▸] <module>'
check "P: <module> is the root of the tree" \
    screen_has hot '^[> ] *[0-9.]+% +[0-9.]+% +[0-9]+ +[▾▸] <module> +pyhot\.py:1'
[ $? = 0 ] || diag "$(screen hot)"
is "$(screen_rows hot '_start|PyEval_EvalCode|python3\.11$')" 0 "P: no native frame is left"
keys hot 2
wait_until 10 screen_has hot 'py_sixty +pyhot\.py'
keys hot / py_sixty Enter
keys hot a
wait_until 10 screen_has hot 'def py_sixty'
check "the source view shows pyhot.py" screen_has hot 'Line +/.*tests/targets/pyhot\.py'
# (on the loop's line, wherever the cursor is: it starts on the line
# hottest when the view opened, which with the few samples then may be
# the loop's other line)
check "...with samples on py_sixty's loop" \
    wait_until 10 screen_has hot '^[> ]( +[0-9]+){2,3} +while clock\(\) < end:'
[ $? = 0 ] || diag "$(screen hot)"
keys hot 1 P
wait_until 10 screen_has hot '_start'
check "P again: the native frames are back" screen_has hot '▾ _start'
keys hot q
wait_until 10 sh -c "! ${T[*]} has-session -t hot 2>/dev/null"
kill_pid "$hot"

start_script block "$PY" "$TOP/tests/targets/pyblock.py" 120
blk=$SCRIPT_PID
tmux_sproftop blk -p "$blk" --idle -r 0.2 --no-confirm
wait_until 20 screen_has blk 'Interpreter: Python'
keys blk 2
wait_until 20 search_shows blk in_recv 'in_recv +pyblock\.py'
keys blk / in_recv Enter
keys blk a
wait_until 15 screen_has blk 's\.recv\(16\)'
check "--idle: in_recv's source view puts its samples on s.recv(16), where it blocks" \
    screen_has blk '^[> ]( +[0-9]+){2,3} +s\.recv\(16\)'
[ $? = 0 ] || diag "$(screen blk)"
keys blk q
kill_pid "$blk"

done_testing
