#!/usr/bin/env bash
# engine_dump.t - --dump prints every thread's stack once and detaches; its
# stacks agree with eu-stack's on a target blocked in known call chains.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets blocked
command -v eu-stack >/dev/null || skip_all "eu-stack (elfutils) not installed"

start_target blocked || bail_out "cannot start blocked"
pid=$TARGET_PID
# Both threads exist and are asleep in their blocking calls.
settled() { [ "$(thread_count "$pid")" = 2 ] && all_threads_in_state "$pid" S; }
wait_until 10 settled || diag "blocked: $(thread_count "$pid") threads, state $(target_state "$pid")"
cond_tid=$(for t in /proc/"$pid"/task/*; do [ "${t##*/}" != "$pid" ] && echo "${t##*/}"; done | head -n 1)

run_sproftop --dump -p "$pid"
is "$RC" 0 "sproftop --dump -p PID exits 0"
[ "$RC" = 0 ] || diag_file "$ERR"
assert_not_stopped "$pid" "blocked is running and untraced after --dump"
dump=$OUT

like "$OUTS" "^Thread $pid \(blocked\):" "a 'Thread $pid (blocked):' header"
like "$OUTS" "^Thread $cond_tid \(blocked-cond\):" "a 'Thread $cond_tid (blocked-cond):' header"
is "$(grep -c '^Thread ' "$dump")" 2 "one header per thread (2)"
bad=$(awk '/^Thread / { next } /^$/ { next } !/^#[0-9]+ +0x[0-9a-f]+ / { print; exit }' "$dump")
is "$bad" "" "every frame line reads '#N 0xADDR function ...'"

# dump_funcs FILE TID: the function names of thread TID, innermost first.
dump_funcs() {
    awk -v tid="$2" '
        /^Thread / { cur = ($2 == tid) ; next }
        cur && /^#[0-9]+/ { print $3 }' "$1"
}
# eu_funcs FILE TID: the same from eu-stack's output ("#N  0xADDR name").
eu_funcs() {
    awk -v tid="$2" '
        /^TID / { t = $2; sub(/:$/, "", t); cur = (t == tid); next }
        cur && /^#[0-9]+/ { n = $3; sub(/@.*/, "", n); print n }' "$1"
}
# in_order LIST A B C...: LIST (one per line) holds A, then B, then C...
in_order() {
    local list=$1
    shift
    printf '%s\n' "$list" | awk -v want="$*" '
        BEGIN { m = split(want, w, " "); j = 1 }
        j <= m && $0 == w[j] { j++ }
        END { exit !(j > m) }'
}
# common_seq A B: the names of list A that are also in list B, in A's order.
common_seq() {
    awk 'NR == FNR { inb[$0] = 1; next } ($0 in inb) { print }' \
        <(printf '%s\n' "$2") <(printf '%s\n' "$1")
}

main_funcs=$(dump_funcs "$dump" "$pid")
cond_funcs=$(dump_funcs "$dump" "$cond_tid")
check "main thread: wait_inner, wait_outer, main (innermost first)" \
    in_order "$main_funcs" wait_inner wait_outer main
check "cond thread: cond_inner, cond_outer, cond_thread (innermost first)" \
    in_order "$cond_funcs" cond_inner cond_outer cond_thread
like "$(sed -n "/^Thread $pid /,/^Thread /p" "$dump")" \
    '#[0-9]+ +0x[0-9a-f]+ wait_inner .*blocked.c:[0-9]+' "wait_inner shows its module and blocked.c:LINE"
[ -n "$main_funcs" ] || diag_file "$dump" 40

# eu-stack takes its own snapshot; the stacks have not changed since.
eu=$TMPD/eu-stack.out
timeout -k 5 30 eu-stack -p "$pid" >"$eu" 2>"$TMPD/eu-stack.err"
assert_not_stopped "$pid" "blocked is running and untraced after eu-stack"
for tid in "$pid" "$cond_tid"; do
    ours=$(dump_funcs "$dump" "$tid")
    theirs=$(eu_funcs "$eu" "$tid")
    a=$(common_seq "$ours" "$theirs")
    b=$(common_seq "$theirs" "$ours")
    is "$(echo $a)" "$(echo $b)" "thread $tid: the names both tools show come in the same order"
    # The target binary's own functions must all be among them.
    mine=$(nm --defined-only "$TARGETS/blocked" | awk '$2 ~ /^[Tt]$/ { print $3 }')
    theirs_own=$(common_seq "$theirs" "$mine")
    ours_own=$(common_seq "$ours" "$mine")
    is "$(echo $ours_own)" "$(echo $theirs_own)" "thread $tid: same target-binary frames as eu-stack ($(echo $theirs_own))"
done

done_testing
