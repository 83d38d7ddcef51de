#!/usr/bin/env bash
# procs_several.t - several processes are named as several (issue 19,
# items 9 and 10), on real targets:
#   1. -p A,B in tmux: the header lists both PIDs, not the first's alone;
#      with B shown alone (7, Enter) it names B; the first screen opens
#      both processes' hot paths (both leaves on screen);
#   2. the saved files name both: pprof's comment "pids: A,B", the text
#      report's "(pids A,B)";
#   3. J on forkwork's three processes: the processes view's one row says
#      "3 processes", counts their 3 threads and shows their live %CPU,
#      TIME+ and state (not "-");
#   4. -p NAME and --pid-of NAME take every process of that name, as
#      pgrep does, and say which; a name nothing has is one line, exit 1.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets split threads forkwork
use_tmux sproftop-several
SP_TIMEOUT=40

start_target split || bail_out "cannot start split"
a=$TARGET_PID
start_target threads 1 || bail_out "cannot start threads"
b=$TARGET_PID

# --- 1. the live header and first screen ----------------------------------------
s=two
"${T[@]}" new-session -d -s "$s" -x 120 -y 40 \
    "'$SPROFTOP' -p $a,$b -r 0.3 --no-confirm 2>'$TMPD/$s.err'"
lo=$a hi=$b
[ "$a" -gt "$b" ] && lo=$b hi=$a
check "-p A,B: the header lists both PIDs ($lo,$hi)" \
    wait_until 20 screen_has "$s" "^ PIDs $lo,$hi "
screen_has "$s" "^ PIDs $lo,$hi " || diag "$(screen "$s")"
_both_open() { screen_has "$s" 'work_unit' && screen_has "$s" 'spin_worker_0'; }
check "the first screen opens both processes' hot paths (work_unit and spin_worker_0 shown)" \
    wait_until 20 _both_open
_both_open || diag "$(screen "$s")"
keys "$s" 7 / "$b" Enter Enter
check "with threads ($b) shown alone, the header names it, not split" \
    wait_until 10 screen_has "$s" "^ PID $b  threads"
screen_has "$s" "^ PID $b  threads" || diag "$(screen "$s")"
keys "$s" q
wait_until 10 eval "! \"\${T[@]}\" has-session -t '$s' 2>/dev/null"

# --- 2. the saved files ----------------------------------------------------------
run_sproftop -p "$a,$b" -d 2 -o "$TMPD/two.pb.gz"
is "$RC" 0 "-p A,B -o FILE.pb.gz exits 0"
# the string table's entry: its tag (field 6, 0x32), its length, the text
want="pids: $lo,$hi"
entry=$(printf "\\x32\\x$(printf %02x ${#want})")$want
gzip -dc "$TMPD/two.pb.gz" | grep -qaF -- "$entry"
ok $? "pprof's comment names both processes ($want)"
run_sproftop -i "$TMPD/two.pb.gz" -f text -o -
like "$(grep 'Command:' "$OUT")" "\\(pids $lo,$hi\\)" "...and the text report read from it does too"

# --- 3. J over three live processes ----------------------------------------------
start_target forkwork 300 || bail_out "cannot start forkwork"
m=$TARGET_PID
wait_until 10 eval '[ -n "$(cat "$TARGET_OUT")" ]' || bail_out "forkwork did not fork"
read -r _ w1 w2 <"$TARGET_OUT"
s=merged
"${T[@]}" new-session -d -s "$s" -x 120 -y 30 \
    "'$SPROFTOP' -p $m,$w1,$w2 -r 0.3 --no-confirm 2>'$TMPD/$s.err'"
wait_until 20 screen_has "$s" 'Samples: [1-9]' || diag "$(screen "$s")"
keys "$s" J 7
# the row: PID Share Samples Threads CPU% TIME+ State Command
_merged_row() {
    screen "$s" | awk '/forkwork \(3 processes\)/ { sub(/^[>* ]+/, ""); print; exit }'
}
_row_live() { _merged_row | grep -Eq '^[0-9]+ +[0-9.]+% +[0-9]+ +3 +[0-9.]+ +[0-9]+:[0-9.]+ +running '; }
check "J: one row for forkwork's 3 processes, their 3 threads, live %CPU, TIME+ and state" \
    wait_until 20 _row_live
_row_live || diag "$(screen "$s")"
like "$(screen "$s")" '3 processes in 1 row' "...and the view counts 3 processes in 1 row"
keys "$s" q
wait_until 10 eval "! \"\${T[@]}\" has-session -t '$s' 2>/dev/null"

# --- 4. a process name -----------------------------------------------------------
# Copies under names of this run's own (a name is at most 15 characters),
# so other processes of the machine, another test's forkwork, never match.
fw=fw$$
sp=sp$$
cp "$TARGETS/forkwork" "$TMPD/$fw"
cp "$TARGETS/split" "$TMPD/$sp"
spawn "$TMPD/$fw" 300 >"$TMPD/$fw.out" 2>/dev/null
n0=$SPAWN_PID
spawn "$TMPD/$sp" 300 >/dev/null 2>&1
s0=$SPAWN_PID
wait_until 10 test -s "$TMPD/$fw.out" || bail_out "$fw did not fork"
read -r _ n1 n2 <"$TMPD/$fw.out"
wait_until 10 _exe_is "$s0" "$TMPD/$sp" || bail_out "$sp did not start"
run_sproftop -p "^$fw\$" -d 1 -o "$TMPD/named.folded"
is "$RC" 0 "-p '^$fw\$' exits 0"
like "$ERRS" "names 3 processes; taking all: $n0 \\($fw\\) $n1 \\($fw\\) $n2 \\($fw\\)" \
    "...takes all three and says which"
for p in "$n0" "$n1" "$n2"; do
    like "$(cut -d';' -f1 "$TMPD/named.folded" | sort -u | tr '\n' ' ')" "$fw-$p" \
        "...and samples $p"
done
run_sproftop --pid-of "^$sp\$" -d 1 -o "$TMPD/split.folded"
is "$RC" 0 "--pid-of '^$sp\$' exits 0"
like "$(cut -d';' -f1 "$TMPD/split.folded" | sort -u)" "^$sp-$s0\$" "...and samples it alone"
run_sproftop -p no-such-process-name -d 1 -o "$TMPD/none.folded"
is "$RC" 1 "a name no process has: exit 1"
is "$(wc -l <"$ERR")" 1 "...with one line"
like "$ERRS" "no process is named 'no-such-process-name'" "...that says so"

for p in "$a" "$b" "$m" "$w1" "$w2" "$n0" "$n1" "$n2" "$s0"; do
    assert_not_stopped "$p" "PID $p running and untraced afterwards"
done
done_testing
