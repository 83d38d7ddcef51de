#!/usr/bin/env bash
# kernel_refusal.t - when kernel frames cannot be had, one line says why
# and how to allow them (issue 21, item 2), in the live view's header
# (its message line), in --stats and in --version.  Each case is made
# without touching the machine's settings:
#
#   - perf_event_paranoid >= 2 for a user without privilege: sproftop
#     runs as uid 65534, which gets user-mode samples only;
#   - kptr_restrict hiding the addresses: SPROFTOP_KALLSYMS names a
#     kallsyms whose addresses are all 0 (what kptr_restrict shows), and
#     the frames read [kernel]+0x...;
#   - the ptrace backend: --sampler ptrace, and for --version the noperf
#     helper (a seccomp filter refusing perf_event_open), under which auto
#     picks ptrace.
# About 10 s.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets deep readzero noperf

[ "$(id -u)" = 0 ] || skip_all "needs root (to drop to uid 65534, and for kernel samples)"
"$SPROFTOP" --version | grep -q '^kernel frames on' ||
    skip_all "no kernel frames here to refuse: $("$SPROFTOP" --version | tail -n 1)"

SP_TIMEOUT=30
chmod 711 "$TMPD"
mkdir -m 777 "$TMPD/w"

# header RUN-AS... -- SPROFTOP-ARGS...: the live view, scripted, 130
# columns wide; its screen once sampled into $TMPD/w/hdr.  RUN-AS is a
# command prefix (setpriv ..., env ...), or nothing.
header() {
    local pre=()
    while [ "$1" != -- ]; do pre+=("$1"); shift; done
    shift
    printf ':refresh\n:dump %s/w/hdr\nq\n' "$TMPD" >"$TMPD/w/hdr.keys"
    chmod 644 "$TMPD/w/hdr.keys"
    rm -f "$TMPD/w/hdr"
    (cd "$TMPD/w" && env -i PATH="$PATH" TERM=xterm-256color LINES=24 COLUMNS=130 \
        LC_ALL=C.UTF-8 HOME="$TMPD/w" ${KALLSYMS:+SPROFTOP_KALLSYMS=$KALLSYMS} \
        timeout -k 5 30 "${pre[@]}" "$SPROFTOP" --no-confirm \
        --script "$TMPD/w/hdr.keys" "$@" </dev/null >/dev/null 2>"$TMPD/w/hdr.err")
    RC=$?
}

# --- perf_event_paranoid >= 2, unprivileged ------------------------------------------
par=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
if [ "$par" -ge 2 ] && command -v setpriv >/dev/null; then
    nobody=(setpriv --reuid 65534 --regid 65534 --clear-groups)
    why="kernel frames off: perf_event_paranoid=$par \\(user mode only\\); sysctl kernel.perf_event_paranoid=1 or run as root"
    like "$("${nobody[@]}" "$SPROFTOP" --version | tail -n 1)" "^$why\$" \
        "uid 65534: --version gives the cause and the fix"
    timeout -k 5 30 "${nobody[@]}" "$SPROFTOP" -d 1 --stats -o "$TMPD/w/nobody.folded" \
        -- "$TARGETS/readzero" 1.5 >/dev/null 2>"$TMPD/w/nobody.err"
    is "$?" 0 "uid 65534: sampling works (user mode)"
    like "$(grep '^kernel:' "$TMPD/w/nobody.err")" "^kernel: $why;" \
        "uid 65534: --stats gives the cause and the fix"
    is "$(grep -c '_\[k\]' "$TMPD/w/nobody.folded")" 0 "uid 65534: no kernel frame"
    header "${nobody[@]}" -- -- "$TARGETS/deep" 3
    is "$RC" 0 "uid 65534: the live view exits 0"
    like "$(sed -n '23p' "$TMPD/w/hdr")" "^$why" "uid 65534: the header's message line says why"
else
    skip 6 "needs perf_event_paranoid >= 2 (it is $par) and setpriv"
fi

# --- kptr_restrict: every address 0 -----------------------------------------------------
awk '{ $1 = "0000000000000000"; print }' /proc/kallsyms | head -n 5000 >"$TMPD/w/zero"
export KALLSYMS=$TMPD/w/zero
why="kernel frames unnamed: $KALLSYMS lists every address as 0; sysctl kernel.kptr_restrict=0 or run as root"
like "$(SPROFTOP_KALLSYMS=$KALLSYMS "$SPROFTOP" --version | tail -n 1)" "^$why\$" \
    "kptr_restrict: --version gives the cause and the fix"
start_target readzero || bail_out "cannot start readzero"
SPROFTOP_KALLSYMS=$KALLSYMS run_sproftop --sampler perf -p "$TARGET_PID" -d 1 --stats \
    -o "$TMPD/zero.folded"
is "$RC" 0 "kptr_restrict: exit 0"
like "$(grep '^kernel:' "$ERR")" "^kernel: $why; [0-9]+ stacks with kernel frames, [1-9][0-9]* samples with an address outside every symbol" \
    "kptr_restrict: --stats gives the cause, the fix, and the samples it leaves unnamed"
like "$(grep '^kallsyms:' "$ERR")" 'addresses hidden \(all 0\)' "kptr_restrict: --stats: the addresses are hidden"
cmp_ok "$(folded_count_substr "$TMPD/zero.folded" '[kernel]+0xffff')" '>' 0 \
    "kptr_restrict: kernel frames read [kernel]+0x..."
is "$(grep -c 'read_zero' "$TMPD/zero.folded")" 0 "kptr_restrict: no kernel name"
header -- -p "$TARGET_PID"
is "$RC" 0 "kptr_restrict: the live view exits 0"
like "$(sed -n '23p' "$TMPD/w/hdr")" "^$why" "kptr_restrict: the header's message line says why"
unset KALLSYMS

# --- the ptrace backend --------------------------------------------------------------------
why="kernel frames off: the ptrace backend sees user stacks only; use --sampler perf \\(perf_event\\) for them"
like "$("$TARGETS/noperf" "$SPROFTOP" --version | tail -n 1)" "^$why\$" \
    "ptrace (perf_event refused): --version gives the cause and the fix"
run_sproftop --sampler ptrace -p "$TARGET_PID" -d 1 --stats -o "$TMPD/pt.folded"
is "$RC" 0 "--sampler ptrace: exit 0"
like "$(grep '^kernel:' "$ERR")" "^kernel: $why;" "--sampler ptrace: --stats gives the cause and the fix"
is "$(grep -c '_\[k\]' "$TMPD/pt.folded")" 0 "--sampler ptrace: no kernel frame"
header -- --sampler ptrace -p "$TARGET_PID"
is "$RC" 0 "--sampler ptrace: the live view exits 0"
like "$(sed -n '23p' "$TMPD/w/hdr")" "^$why" "--sampler ptrace: the header's message line says why"
kill_pid "$TARGET_PID"

done_testing
