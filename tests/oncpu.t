#!/usr/bin/env bash
# oncpu.t - the header's "On CPU" (issue 19, item 3) is what its help
# says, "how much of their time the live threads ran", from the same
# figures as the threads view, and a change of rate does not move it.
#
# The target is `threads 1`: one worker spinning and the main thread
# asleep in pthread_join (never sampled: the threads view lists only the
# worker).  In a real terminal (tmux, refresh 1 s, so the header's and
# the threads view's CPU figures are read at the same ticks) the threads
# view (4) is open: On CPU must be the mean of every live thread's CPU%,
# the worker's CPU% over the header's thread count (2), about 50% on an
# idle machine; so it is at most 55%.  Then `<` three times asks eight
# times the rate, and the same holds; and again while paused, when
# no new samples come but the threads keep running.  (It used to be the sampled
# threads' achieved rate over the asked one: 100% here, and a few % just
# after a change of rate.)  Every wait is bounded polling.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets threads
use_tmux sproftop-oncpu 120x30

start_target threads 1 120 || bail_out "cannot start threads"
pid=$TARGET_PID
tmux_sproftop live --no-confirm -p "$pid"
wait_until 20 screen_has live "PID $pid" || { diag "$(screen live)"; bail_out "no live view"; }
keys live 4

# worker_cpu: the threads view's CPU% of worker-0 (TID, Name, Samples,
# Share, CPU%; the cursor's '>' first).
worker_cpu() {
    screen live | awk '{ sub(/^ *> */, " ") } $2 == "worker-0" { print $5; exit }'
}
on_cpu() { header_value live 'On CPU' | tr -d '%'; }
# measured: both figures are on screen, and the next tick's are too
# (the view's CPU% needs two reads a second apart).
measured() {
    local w o
    w=$(worker_cpu)
    o=$(on_cpu)
    [[ $w =~ ^[0-9.]+$ ]] && [[ $o =~ ^[0-9]+$ ]]
}
# check_mean WHEN: On CPU is the mean of the live threads' CPU%.
check_mean() {
    local threads w o
    wait_until 20 measured || diag "$(screen live)"
    # one screen for all three figures
    local s
    s=$(screen live)
    # the live count: "Threads: 1 (2 live)" when the view lists fewer
    threads=$(printf '%s\n' "$s" | sed -n -e 's/.* Threads: [0-9]* (\([0-9]*\) live).*/\1/p' \
        -e 't' -e 's/.* Threads: \([0-9]*\) .*/\1/p' | head -n 1)
    w=$(printf '%s\n' "$s" | awk '{ sub(/^ *> */, " ") } $2 == "worker-0" { print $5; exit }')
    o=$(printf '%s\n' "$s" | sed -n 's/.* On CPU: \([0-9]*\)%.*/\1/p' | head -n 1)
    note "$1: On CPU $o%, worker-0 $w% CPU, $threads live threads"
    is "$threads" 2 "$1: the header counts both threads, the sleeping one too"
    ok "$(awk -v o="$o" -v w="$w" -v n="$threads" \
        'BEGIN { exit !(o != "" && w != "" && n > 0 && o - w / n <= 3 && w / n - o <= 3) }'; echo $?)" \
        "$1: On CPU ($o%) is the mean of the threads' CPU% ($w% / $threads, within 3 points)"
    ok "$(awk -v o="$o" 'BEGIN { exit !(o != "" && o <= 55) }'; echo $?)" \
        "$1: one busy thread and one asleep: On CPU $o% is at most 55%"
}

check_mean "at 199 Hz"
rate=$(header_value live Rate)
keys live '<'
keys live '<'
keys live '<'
check "< < <: the rate changed" wait_until 10 eval '[ "$(header_value live Rate)" != "$rate" ]'
# a tick after the change, then the figures of a tick after that
changed_at=$(header_value live Sampling)
wait_until 10 eval '[ "$(header_value live Sampling)" != "$changed_at" ]'
check_mean "after the change of rate ($(header_value live Rate) Hz)"

# Paused: no new samples, but the live figures still move, read at every
# refresh: the worker's TIME+ in the threads view grows, and On CPU is
# still the mean of the threads' CPU%.
worker_time() {
    screen live | awk '{ sub(/^ *> */, " ") } $2 == "worker-0" { print $6; exit }'
}
keys live p
check "p: paused" wait_until 10 screen_has live 'Paused: '
t0=$(worker_time)
check "paused: worker-0's TIME+ ($t0) moves on" \
    wait_until 15 eval '[ -n "$(worker_time)" ] && [ "$(worker_time)" != "$t0" ]'
check_mean "paused"

keys live q
kill_pid "$pid"
done_testing
