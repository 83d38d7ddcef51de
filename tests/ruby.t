#!/usr/bin/env bash
# ruby.t - Ruby methods in the live tree, read from outside the process
# from Debian 12's own /usr/bin/ruby (3.1, libruby-3.1.so, no debug
# packages), on both backends (issue 23 items 1, 2).
#
#   1. rbstacks.rb holds two threads (--idle): each thread's Ruby stack
#      stands in place of the VM's eval frames, in order, C methods named
#      as Ruby names them (Enumerable#sort_by, Kernel#sleep), the C
#      frames between (sort_by calling the block back) and below (the
#      sleep's wait) kept; the Thread.new thread has its own stack;
#      --stats names Ruby 3.1 and counts no unreadable frame (on perf:
#      each walk matched by its sample's own time stamp; the threads
#      blocked at attach read only while they hold still);
#   2. --python-only (P) keeps the Ruby frames alone;
#   3. pystack (the reader alone) gives the same names with their
#      current lines, also deep in a long method (rblong.rb);
#   4. a Ruby of a version without a layout row (Debian's libruby with
#      its ruby_version patched to "3.0.9", run through LD_LIBRARY_PATH)
#      keeps its native frames, and --stats says so in one line.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_ruby
PYSTACK=$TOOLS/pystack
SP_TIMEOUT=40

script_backends


out=$TMPD/rbstacks.out
spawn "$RB" "$TOP/tests/targets/rbstacks.rb" 60 >"$out" 2>&1
pid=$SPAWN_PID
wait_until 15 grep -q '^ready' "$out" || bail_out "rbstacks.rb did not start: $(cat "$out")"

for b in "${backends[@]}"; do
    f=$TMPD/stacks.$b.folded
    run_sproftop --sampler "$b" -p "$pid" --idle -F 200 -d 1.5 --stats -o "$f"
    is "$RC" 0 "$b: sproftop exits 0"
    like "$ERRS" "ruby: Ruby $RBVER; [1-9][0-9]* samples with Ruby frames, Ruby frames unreadable 0" \
        "$b: --stats names Ruby $RBVER, frames read, none unreadable" ||
        diag "$(grep -E '^(ruby|perf|off-CPU)' <<<"$ERRS")"
    bpf_match_check "$b"
    cmp_ok "$(chain "$f" "rb_vm_exec" "<main> (rbstacks.rb)" "méthode (rbstacks.rb:18)" "Enumerable#sort_by (<cfunc>)")" '>' 0 \
        "$b: the main thread: rb_vm_exec, then <main>, méthode, Enumerable#sort_by in place of the VM's eval frame"
    # the block sort_by calls back: C frames between it and the Ruby frames
    # (over every stack that reaches the block: the file's order is not
    # the samples')
    between=$(grep -F 'Enumerable#sort_by (<cfunc>);' "$f" | awk -F';' '
        { a = 0; for (i = 1; i <= NF; i++) if ($i == "Enumerable#sort_by (<cfunc>)") a = i
          for (i = a; i <= NF; i++) if ($i ~ /^block in méthode \(rbstacks.rb:20\)/) { print i - a - 1; break } }' |
        sort -n | tail -n 1)
    cmp_ok "${between:-0}" '>' 1 "$b: C frames ($between) stay between sort_by and the block it calls (rb_yield...)"
    cmp_ok "$(chain "$f" "block in méthode (rbstacks.rb:20)" "slow_key (rbstacks.rb:11)" "Kernel#sleep (<cfunc>)")" '>' 0 \
        "$b: the block, slow_key and the C method Kernel#sleep, in order"
    waits=$(grep -F 'Kernel#sleep (<cfunc>);' "$f" | sed 's/ [0-9]*$//; s/.*;//' | grep -cE 'poll|futex|cond')
    cmp_ok "$waits" '>' 0 "$b: native frames below Kernel#sleep are kept, down to the wait ($waits stacks)"
    cmp_ok "$(chain "$f" "block in <main> (rbstacks.rb:30)" "worker_loop (rbstacks.rb:26)" "Kernel#loop (<cfunc>)")" '>' 0 \
        "$b: the Thread.new thread has its own Ruby stack (block in <main>, worker_loop, Kernel#loop)"
    is "$(grep -c 'vm_exec_core' "$f")" 0 "$b: no eval frame left by name"
    # Ruby-only view
    g=$TMPD/only.$b.folded
    run_sproftop --sampler "$b" -p "$pid" --idle -F 200 -d 1 --python-only -o "$g"
    native=$(awk '{ s = $0; sub(/ [0-9]+$/, "", s); n = split(s, a, ";")
        for (i = 2; i <= n; i++) if (a[i] !~ / \((rbstacks\.rb|<cfunc>)(:[0-9]+)?\)$/ && a[i] !~ /^\[/) { print a[i]; exit } }' "$g")
    is "$native" "" "$b: --python-only keeps only Ruby frames under the thread"
    cmp_ok "$(chain "$g" "<main> (rbstacks.rb)" "méthode (rbstacks.rb:18)" "Enumerable#sort_by (<cfunc>)" "Array#each (<cfunc>)" "block in méthode (rbstacks.rb:20)")" '>' 0 \
        "$b: --python-only: <main>;méthode;Enumerable#sort_by;Array#each;block in méthode"
done

# the reader alone: current lines
if [ -x "$PYSTACK" ]; then
    s=$("$PYSTACK" "$pid" 2>/dev/null)
    like "$s" "^ruby $RBVER eval" "pystack: Ruby $RBVER, its eval function (vm_exec_core) found"
    like "$s" "slow_key \(.*rbstacks.rb:12\)" "pystack: slow_key at its current line (12: the sleep)"
    like "$s" "méthode \(.*rbstacks.rb:20\)" "pystack: méthode at line 20 (the sort_by)"
    # a method of over 1,500 instructions: its line from the succinct
    # index's blocks, not only its immediate part
    spawn "$RB" "$TOP/tests/targets/rblong.rb" >"$TMPD/long.out" 2>&1
    lpid=$SPAWN_PID
    wait_until 15 grep -q '^ready' "$TMPD/long.out" || diag "rblong.rb did not start"
    wait_until 10 sh -c "'$PYSTACK' $lpid 2>/dev/null | grep -q 'Kernel#sleep'"
    like "$("$PYSTACK" "$lpid" 2>/dev/null)" "long_method \(.*rblong.rb:211\)" \
        "pystack: a long method's current line (211) through the index's blocks"
    kill_pid "$lpid"
else
    skip "pystack not built: make targets" 4
fi
assert_not_stopped "$pid" "rbstacks.rb is left running, not stopped"
kill_pid "$pid"

# --- 4. a version that is not read ---------------------------------------------
lib=$(ldd "$RB" | awk '/libruby/ { print $3; exit }')
mkdir -p "$TMPD/lib"
so=$TMPD/lib/$(basename "$(ldd "$RB" | awk '/libruby/ { print $1; exit }')")
cp "$lib" "$so"
# ruby_version's file offset, through the LOAD segment that holds it
v=$((16#$(readelf -Ws --dyn-syms "$so" | awk '$8 == "ruby_version" { print $2; exit }')))
off=
while read -r _ o va _ fs _; do
    if [ "$v" -ge $((va)) ] && [ "$v" -lt $((va + fs)) ]; then
        off=$((v - va + o))
        break
    fi
done < <(readelf -lW "$so" | awk '$1 == "LOAD"')
is "$(dd if="$so" bs=1 skip="${off:-0}" count=5 2>/dev/null)" "$RBVER" "ruby_version found in the copy of libruby"
printf '3.0.9' | dd of="$so" bs=1 seek="${off:-0}" conv=notrunc 2>/dev/null
out=$TMPD/old.out
spawn env LD_LIBRARY_PATH="$TMPD/lib" "$RB" --disable-gems "$TOP/tests/targets/rbhot.rb" --cpu 30 >"$out" 2>&1
pid=$SPAWN_PID
wait_until 15 grep -q '^ready' "$out" || diag "the patched ruby did not start: $(cat "$out")"
for b in "${backends[@]}"; do
    f=$TMPD/old.$b.folded
    run_sproftop --sampler "$b" -p "$pid" -d 0.5 --stats -o "$f"
    like "$ERRS" "ruby: Ruby 3.0.9: not read \(3.1 is\); 0 samples with Ruby frames, Ruby frames unreadable 0" \
        "$b: Ruby 3.0.9: a one-line note, no Ruby frame read"
    cmp_ok "$(grep -c 'rb_vm_exec' "$f")" '>' 0 "$b: its native frames are kept (rb_vm_exec)"
done
kill_pid "$pid"
done_testing
