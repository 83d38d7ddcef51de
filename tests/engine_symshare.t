#!/usr/bin/env bash
# engine_symshare.t - symbolization shared by build-id across processes:
# -p A,B,C on three processes of one binary loads that binary (and libc)
# once for all three (--stats lists the symbol store's modules and how
# many processes use each), and every process still gets its own
# functions named, under its own process root.  A library the process
# unloads (dlswap: libA.so, then libB.so) is released and freed.  That a
# symbolizer freed releases its modules is tests/symbols.t's (symtest
# --share).
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets split dlswap libA.so libB.so

pids=()
for i in 1 2 3; do
    start_target split || bail_out "cannot start split"
    pids+=("$TARGET_PID")
done
out=$TMPD/three.folded
run_sproftop -p "$(IFS=,; echo "${pids[*]}")" -d 3 -F 500 -o "$out" --stats
is "$RC" 0 "sproftop -p A,B,C -d 3 --stats exits 0"
[ "$RC" = 0 ] || diag_file "$ERR"

is "$(grep -c '^  module split: ' "$ERR")" 1 \
   "--stats: the store holds one module for the binary"
like "$(grep '^  module split: ' "$ERR")" '^  module split: 3 processes$' \
   "...used by the three processes"
like "$(grep '^  module libc\.so\.6: ' "$ERR")" '^  module libc\.so\.6: 3 processes$' \
   "...and one libc for the three"
like "$(grep '^symbol store: ' "$ERR")" '^symbol store: ([0-9]+) modules, [0-9]+ references by processes, \1 loaded, 0 freed$' \
   "--stats: each module loaded once"

for p in "${pids[@]}"; do
    read -r yes no < <(folded_under_root "$out" "split-$p" work_unit)
    cmp_ok "$yes" '>' 0 "work_unit is named under split-$p ($yes samples)"
    read -r yes no < <(folded_under_root "$out" "split-$p" func_a)
    cmp_ok "$yes" '>' 0 "func_a is named under split-$p ($yes samples)"
    assert_not_stopped "$p" "PID $p running and untraced afterwards"
done
is "$(folded_count_substr "$out" '[split+0x')" 0 "no frame of split is left unnamed"

# dlclose: the new maps drop libA.so's module; libB.so's is loaded.
# dlswap stays in phase A until the profiler is sampling it (GOFILE),
# then swaps; sampling ends (SIGINT) once phase B has run half a second
# of CPU, while dlswap still holds libB.so, so --stats shows it (a
# process that exits gives back all its modules: tests/procs.t).  Every
# step waits for its condition, however loaded the machine is.
base=$TMPD/swap.base go=$TMPD/swap.go
start_target dlswap 0 120 "$base" "$go"
swap=$TARGET_PID
_run_seq=$((_run_seq + 1))
ERR=$TMPD/run.$_run_seq.err
spawn "$SPROFTOP" -F 1000 -d 120 -o "$TMPD/swap.folded" --stats -p "$swap" \
    </dev/null >/dev/null 2>"$ERR"
sp=$SPAWN_PID
wait_until 30 sproftop_attached "$sp" "$swap"
_cpu_ms() { awk '{ printf "%d", ($14 + $15) * 10 }' "/proc/$swap/stat" 2>/dev/null; }
a0=$(_cpu_ms)
_ran() { [ "$(( $(_cpu_ms) - a0 ))" -ge "$1" ]; }
wait_until 60 _ran 300
touch "$go"
wait_until 60 grep -q '^B ' "$base"
b0=$(_cpu_ms) a0=$b0
wait_until 60 _ran 500
kill -INT "$sp" 2>/dev/null
if wait_exit "$sp" 60; then RC=$EXIT_RC; else kill_pid "$sp"; RC=124; fi
is "$RC" 0 "-p dlswap, ended by SIGINT in phase B: exit 0"
[ "$RC" = 0 ] || diag_file "$ERR"
kill_pid "$swap"
if grep -q '^B ' "$base"; then
    cmp_ok "$(folded_count_chain "$TMPD/swap.folded" run_phase_b b_spin)" '>' 0 \
       "libB.so's b_spin is named"
    is "$(grep -c '^  module libA\.so: ' "$ERR")" 0 "--stats: libA.so's module is gone"
    like "$(grep '^  module libB\.so: ' "$ERR")" '^  module libB\.so: 1 processes$' \
       "--stats: libB.so's is there"
    like "$(grep '^symbol store: ' "$ERR")" ', [1-9][0-9]* freed$' "--stats: a module was freed"
else
    skip 4 "dlswap did not reach phase B in 60 s"
fi

done_testing
