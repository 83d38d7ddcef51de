#!/usr/bin/env bash
# threads_header.t - smaller things a new user trips over (issue 19,
# item 11), on real targets in tmux:
#   1. the header's Threads is what the threads view lists (its "N
#      threads"), with the live count beside it when a thread sleeps
#      unsampled: with -p, and with --children (a shell that waits for
#      its child);
#   2. at 80 columns the threads view keeps a readable strip title
#      ("Samples/s"), not "S";
#   3. a stack copy too small is said for the process it cuts, with the
#      fix: --stats names it and the live view says so once.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets threads recurse
"$SPROFTOP" --version | grep -q '^sampler: auto picks perf' ||
    skip_all "perf_event is refused here: the stack copy is perf's"
use_tmux sproftop-small
SP_TIMEOUT=40

# threads_agree SESSION SHOWN LIVE: the header's first Threads number is
# the threads view's rows, SHOWN, and the live count beside it LIVE
_counts() {
    local sc hdr live view
    sc=$(screen "$1")
    hdr=$(printf '%s\n' "$sc" | sed -n 's/^ Threads: \([0-9]*\).*/\1/p' | head -n 1)
    live=$(printf '%s\n' "$sc" | sed -n 's/^ Threads: [0-9]* (\([0-9]*\) live).*/\1/p' | head -n 1)
    # the view's rows (its "N threads" may be cut at 80 columns)
    view=$(printf '%s\n' "$sc" | awk '/^ +TID +Name/ { on = 1; next }
        on && /^[>* ]+[0-9]+ / { n++ } END { print n + 0 }')
    echo "${hdr:-?} ${live:-?} ${view:-?}"
}
threads_agree() {
    local hdr live view
    read -r hdr live view < <(_counts "$1")
    [ "$hdr" = "$view" ] && [ "$hdr" = "$2" ] && [ "$live" = "$3" ]
}

# threads_session SESSION COLS SHOWN LIVE DESC SPROFTOP_ARGS: sproftop in
# tmux at COLS columns, the threads view shown, its header checked
threads_session() {
    local s=$1 cols=$2 shown=$3 live=$4 desc=$5
    "${T[@]}" new-session -d -s "$s" -x "$cols" -y 24 \
        "'$SPROFTOP' -r 0.3 --no-confirm $6 2>'$TMPD/$s.err'"
    wait_until 20 screen_has "$s" 'Samples: [1-9]' || diag "$(screen "$s")"
    keys "$s" 4
    check "$desc" wait_until 20 threads_agree "$s" "$shown" "$live"
    threads_agree "$s" "$shown" "$live" ||
        diag "header, live, view: $(_counts "$s")" "$(screen "$s")"
}
session_end() {
    keys "$1" q
    wait_until 10 eval "! \"\${T[@]}\" has-session -t '$1' 2>/dev/null"
}

# --- 1. -p: two workers spin, the main thread waits ----------------------------------
start_target threads 2 || bail_out "cannot start threads"
pid=$TARGET_PID
wait_until 10 eval '[ "$(thread_count "$pid")" = 3 ]' || bail_out "threads has not 3 threads"
s=p80
threads_session "$s" 80 2 3 "-p: the header's Threads is the view's 2, with 3 live beside it" \
    "-p $pid"

# --- 2. 80 columns: the strip's title ---------------------------------------------------
_title() { screen "$s" | grep -E '^ +TID +Name' | head -n 1; }
check "at 80 columns the strip is titled Samples/s, not cut to S" \
    wait_until 10 eval '_title | grep -Eq "Samples/s$"'
_title | grep -Eq 'Samples/s$' || diag "$(_title)"
session_end "$s"

# --- 1b. --children: the shell waits, its child works -----------------------------------
threads_session kids 120 2 4 \
    "--children: the header's Threads is the view's 2, with 4 live (the shell too)" \
    "--children -- /bin/sh -c '\"$TARGETS/threads\" 2 60; true'"
session_end kids

# --- 3. the stack copy: which process, and the fix ---------------------------------------
start_target recurse || bail_out "cannot start recurse"
r=$TARGET_PID
run_sproftop -p "$r" --stack-size 4096 -d 2 --stats -o "$TMPD/r.folded"
is "$RC" 0 "recurse with a 4 KiB stack copy: exits 0"
like "$(grep '^stack copy too small' "$ERR")" \
    "^stack copy too small: [0-9]+ stacks \\([0-9.]+% of all\\); recurse \\(pid $r\\) [0-9]+ of [0-9]+; try --stack-size 8192\$" \
    "--stats names the process the copy cuts, and the size to try" || diag_file "$ERR"
s=cut
"${T[@]}" new-session -d -s "$s" -x 120 -y 30 \
    "'$SPROFTOP' -p $r --stack-size 4096 -r 0.3 --no-confirm 2>'$TMPD/$s.err'"
note="stack copy too small for recurse \\(pid $r\\): [0-9]+% of its stacks cut; try --stack-size 8192"
check "the live view says once which process the copy cuts, and the fix" \
    wait_until 20 screen_has "$s" "$note"
screen_has "$s" "$note" || diag "$(screen "$s")"
session_end "$s"

assert_not_stopped "$pid" "threads running and untraced afterwards"
assert_not_stopped "$r" "recurse running and untraced afterwards"
done_testing
