#!/usr/bin/env bash
# procs.t - several processes in one profile.
#   - -p MASTER,W1,W2 on a master and its two forked workers shows all
#     three, each function under its own process root (comm-PID above the
#     thread), and the folded and pprof files read back the same;
#   - --children on the master attached before it forks brings in the
#     workers; on a launched script, both programs it runs one after the
#     other appear, named;
#   - a bad list, ptrace with several processes, a PID that is gone: refused.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets forkwork

_workers_known() { grep -q '^WORKERS ' "$TARGET_OUT"; }

# check_family FILE LABEL MASTER W1 W2: each process's function is sampled
# under its own process root and no other, and none was left stopped.
check_family() {
    local f=$1 label=$2 pair yes no p
    shift 2
    for pair in "$1 master_spin" "$2 worker_one" "$3 worker_two"; do
        set -- $pair
        read -r yes no < <(folded_under_root "$f" "forkwork-$1" "$2")
        cmp_ok "$yes" '>' 50 "$label$2 is sampled under forkwork-$1 ($yes samples)"
        is "$no" 0 "$label$2 appears under no other process"
    done
}

start_target forkwork || bail_out "cannot start forkwork"
m=$TARGET_PID
wait_until 10 _workers_known || bail_out "forkwork did not print its workers"
read -r _ w1 w2 <"$TARGET_OUT"
note "master $m, workers $w1 $w2"

out=$TMPD/fw.folded
# check_family wants > 50 samples of each at 500 Hz: 0.1 s of CPU each;
# 0.3 s for a margin, however long the load makes that take
cpu_mark "$m" "$w1" "$w2"
_family_ran() { cpu_ran 300 "$m" "$w1" "$w2"; }
sample_while 60 _family_ran -p "$m,$w1,$w2" -F 500 -o "$out"
is "$RC" 0 "sproftop -p MASTER,W1,W2 -o FILE exits 0 (ended by SIGINT)"
[ "$RC" = 0 ] || diag_file "$ERR"
check "folded lines are 'frames COUNT'" folded_well_formed "$out"
is "$(folded_roots "$out" | tr '\n' ' ')" \
   "$(printf '%s\n' "forkwork-$m" "forkwork-$w1" "forkwork-$w2" | sort | tr '\n' ' ')" \
   "the three processes are the three roots"

# each process has one thread, its leader: "forkwork-PID;forkwork-PID;..."
is "$(awk '{ split($1, f, ";"); if (f[1] != f[2]) n++ } END { print n + 0 }' "$out")" 0 \
   "every stack is comm-PID;thread-TID;... with the process above its thread"
run_sproftop -i "$out" -o "$TMPD/back.folded"
is "$RC" 0 "the folded file loads back"
is "$(sort "$TMPD/back.folded" | md5sum)" "$(sort "$out" | md5sum)" \
   "...and is written back the same (processes and threads kept)"
run_sproftop -i "$out" --no-process-root -o "$TMPD/noproc.folded"
is "$(folded_total "$TMPD/noproc.folded")" "$(folded_total "$out")" \
   "--no-process-root keeps every sample"
is "$(awk '{ split($1, f, ";"); if (f[2] ~ /^forkwork-/) n++ } END { print n + 0 }' "$TMPD/noproc.folded")" 0 \
   "...and drops the process level"

# pprof carries the process (labels pid, process_name) and reads it back
run_sproftop -i "$out" -o "$TMPD/fw.pb.gz"
is "$RC" 0 "converted to pprof"
run_sproftop -i "$TMPD/fw.pb.gz" -o "$TMPD/frompb.folded"
is "$(sort "$TMPD/frompb.folded" | md5sum)" "$(sort "$out" | md5sum)" \
   "...and back to the same folded stacks, processes and threads"

check_family "$out" "" "$m" "$w1" "$w2"
for p in "$m" "$w1" "$w2"; do
    assert_not_stopped "$p" "PID $p running and untraced afterwards"
done

# -p repeated and with a duplicate: the same three processes
run_sproftop -p "$m" -p "$w1,$w2,$m" -d 1 -F 200 -o "$TMPD/rep.folded"
is "$RC" 0 "-p given twice, with a duplicate, exits 0"
is "$(folded_roots "$TMPD/rep.folded" | wc -l)" 3 "...and profiles three processes"

# --children on the master, attached before it forks: the workers come
# in with their own process roots and functions
# it forks once sproftop has attached (go file), however long that takes
start_target forkwork 0 "@$TMPD/go-children" || bail_out "cannot start forkwork"
m2=$TARGET_PID
out2=$TMPD/children.folded
cpu_mark "$m2"
_children_ran() {
    local c1 c2
    [ -e "$TMPD/go-children" ] ||
        { sproftop_attached "$SAMPLE_PID" "$m2" && touch "$TMPD/go-children"; }
    read -r _ c1 c2 <"$TARGET_OUT" 2>/dev/null && [ -n "$c2" ] &&
        cpu_ran 300 "$m2" "$c1" "$c2"
}
sample_while 60 _children_ran --children -p "$m2" -F 500 -o "$out2"
is "$RC" 0 "--children -p MASTER exits 0"
[ "$RC" = 0 ] || diag_file "$ERR"
read -r _ c1 c2 <"$TARGET_OUT"
note "workers forked after the attach: $c1 $c2"
check "the master forked its workers during the run" test -n "$c2"
check_family "$out2" "--children: " "$m2" "$c1" "$c2"
for p in "$m2" "$c1" "$c2"; do
    assert_not_stopped "$p" "PID $p running and untraced after --children"
done

# --children on a launched script that runs two programs one after the
# other: both appear, each named after its program, with its own work
script=$TMPD/two.sh
printf '#!/bin/sh\n%s 1\n%s 1\n' "$TARGETS/split" "$TARGETS/recurse" >"$script"
chmod +x "$script"
out3=$TMPD/script.folded
run_sproftop --children -F 500 -d 20 -o "$out3" -- "$script"
is "$RC" 0 "--children -- SCRIPT exits with the script's status 0"
[ "$RC" = 0 ] || diag_file "$ERR"
roots3=$(folded_roots "$out3" | tr '\n' ' ')
like "$roots3" 'split-[0-9]+' "the first program is a process root, named split"
like "$roots3" 'recurse-[0-9]+' "the second program is a process root, named recurse"
sr=$(folded_roots "$out3" | grep '^split-' | head -n 1)
rr=$(folded_roots "$out3" | grep '^recurse-' | head -n 1)
read -r yes _ < <(folded_under_root "$out3" "$sr" work_unit)
cmp_ok "$yes" '>' 5 "split's work_unit is sampled under $sr ($yes samples)"
read -r yes _ < <(folded_under_root "$out3" "$rr" recurse)
cmp_ok "$yes" '>' 5 "recurse's recursion is sampled under $rr ($yes samples)"

# A child that is gone before its FORK record is read (it ran for less
# than a drain) does not keep the session alive, and each process that
# exits gives back the modules only it used: at the end the symbol store
# holds none.
printf '#!/bin/sh\n/bin/true\n%s 1\n' "$TARGETS/split" >"$script"
run_sproftop --children --stats -F 500 -d 60 -o "$TMPD/short.folded" -- "$script"
is "$RC" 0 "--children -- SCRIPT with a short child ends with the script"
secs=$(sed -n 's/^sproftop stats: PID [0-9]*, \([0-9.]*\) s,.*/\1/p' "$ERR")
ok "$(awk -v s="${secs:-99}" 'BEGIN { exit !(s < 50) }'; echo $?)" \
    "...well before -d 60 ($secs s)"
like "$(grep '^symbol store:' "$ERR")" \
    '^symbol store: 0 modules, 0 references by processes, [1-9][0-9]* loaded, [1-9][0-9]* freed' \
    "every exited process gave its modules back"

run_sproftop --children --sampler ptrace -p "$m" -d 1
is "$RC" 2 "--children with --sampler ptrace is refused"

run_sproftop -p "$m,x" -d 1
is "$RC" 2 "-p with a bad list is a usage error"
like "$ERRS" 'invalid PID list' "...that says so"

run_sproftop --sampler ptrace -p "$m,$w1" -d 1
is "$RC" 2 "--sampler ptrace with several PIDs is refused"
like "$ERRS" 'perf_event sampler' "...saying they need the perf sampler"

# a PID that is gone: refused, naming it
spawn true
gone=$SPAWN_PID
wait_exit "$gone" 5
run_sproftop -p "$m,$gone" -d 1 -o "$TMPD/gone.folded"
is "$RC" 1 "-p with a PID that is gone fails"
like "$ERRS" "PID $gone" "...naming that PID"
assert_one_line_error "...in one line"
assert_not_stopped "$m" "the master running and untraced after the refusal"

done_testing
