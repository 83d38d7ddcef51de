#!/usr/bin/env bash
# reliability_odd.t - threads that cannot be stopped or seized
# (PTRACE.md, trap 7).
#
#   1. A zombie leader: zombie_leader's main thread calls pthread_exit
#      while two workers spin.  The leader (state Z) cannot be seized, but
#      `sproftop -p` must sample the workers (zl_spin_a, zl_spin_b), exit
#      0, and leave them running; launched (`-- zombie_leader`), sproftop
#      follows the process to its end and exits with its status 0.
#   2. A vfork parent in D: vfork_parent's child sleeps 3 s before
#      _exit, and the parent waits in the kernel (state D), where a ptrace
#      interrupt cannot stop it.  `sproftop -p PARENT -d 2 --stats`, in the
#      default mode, with --idle (which does interrupt it), and --dump,
#      must each end well within timeout 10 s (< 6 s of wall time: a bound
#      on a hang, not a speed check), exit 0, and leave the parent
#      neither stopped nor traced; when the child exits the parent goes on
#      and exits 0.  Then --idle across the end of the vfork: the parent's
#      late stop (or none) must not hold it, and its code after the vfork
#      (after_vfork) is sampled.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/reliability/rel.sh"
# A trap of the ptrace backend (PTRACE.md): pinned to it.  The perf
# backend never stops the target; its own checks are in tests/perf_*.t.
export SPROFTOP_SAMPLER=ptrace
require_sproftop
require_targets zombie_leader vfork_parent

SP_TIMEOUT=10

# --- 1. zombie leader ---------------------------------------------------------
# Not start_target: it waits for /proc/PID/exe to name the program, and a
# zombie leader's exe link cannot be read.
spawn "$TARGETS/zombie_leader" 5 >"$TMPD/zl.out" 2>"$TMPD/zl.err"
pid=$SPAWN_PID
leader_is_zombie() { [ "$(target_state "$pid")" = Z ]; }
check "zombie_leader: the leader is a zombie (Z)" wait_until 10 leader_is_zombie
is "$(thread_count "$pid")" 3 "zombie_leader: two workers live on"
out=$TMPD/zl.folded
run_sproftop -p "$pid" -F 1000 -d 1.5 -o "$out" --stats
is "$RC" 0 "zombie leader, -p: sproftop exits 0"
[ "$RC" = 0 ] || diag_file "$ERR"
cmp_ok "$(folded_count_frame "$out" zl_spin_a)" '>' 0 "zombie leader, -p: worker a sampled (zl_spin_a)"
cmp_ok "$(folded_count_frame "$out" zl_spin_b)" '>' 0 "zombie leader, -p: worker b sampled (zl_spin_b)" \
    || { diag_file "$out" 5; diag_file "$ERR" 12; }
wait_until 5 threads_clean "$pid"
assert_not_stopped "$pid" "zombie leader, -p: no thread stopped or traced afterwards"
if wait_exit "$pid" 15; then
    is "$EXIT_RC" 0 "zombie leader: the process exits 0 with its last worker"
else
    ok 1 "zombie leader: the process ends within 15 s"
fi

out=$TMPD/zl-launch.folded
run_sproftop -F 1000 -o "$out" -- "$TARGETS/zombie_leader" 1.5
is "$RC" 0 "zombie leader, launched: sproftop exits with its status 0"
[ "$RC" = 0 ] || diag_file "$ERR"
cmp_ok "$(folded_count_frame "$out" zl_spin_a)" '>' 0 "zombie leader, launched: zl_spin_a sampled"
cmp_ok "$(folded_count_frame "$out" zl_spin_b)" '>' 0 "zombie leader, launched: zl_spin_b sampled" \
    || diag_file "$out" 5

# --- 2. vfork parent in D -------------------------------------------------------
# vfork_case DESC CHILD_S AFTER_S BOUND_S SPROFTOP_ARGS...: start a vfork
# parent, wait for it to be in D, run sproftop -p on it; checks the run
# ended within BOUND_S wall seconds with status 0, the parent is left
# neither stopped nor traced, and exits 0 once its child has.
vfork_case() {
    local desc=$1 child_s=$2 after_s=$3 bound=$4 t0 t1 el
    shift 4
    start_target vfork_parent "$child_s" "$after_s" || bail_out "cannot start vfork_parent"
    vpid=$TARGET_PID
    in_d() { [ "$(target_state "$vpid")" = D ]; }
    if ! wait_until 5 in_d; then
        ok 1 "$desc: the vfork parent is in D (state $(target_state "$vpid"))"
        return
    fi
    t0=$(date +%s.%N)
    run_sproftop -p "$vpid" "$@"
    t1=$(date +%s.%N)
    el=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
    is "$RC" 0 "$desc: sproftop exits 0"
    [ "$RC" = 0 ] || diag_file "$ERR"
    cmp_ok "$el" '<' "$bound" "$desc: sproftop ended in ${el} s (a hang would need timeout's 10 s)"
    if threads_clean "$vpid"; then
        ok 0 "$desc: the parent is not stopped, not traced (state $(target_state "$vpid"))"
    else
        ok 1 "$desc: the parent is not stopped, not traced"
        diag "  $UNCLEAN"
    fi
    if wait_exit "$vpid" 15; then
        is "$EXIT_RC" 0 "$desc: the parent goes on after the vfork and exits 0"
    else
        ok 1 "$desc: the parent ends within 15 s"
        diag "  state $(target_state "$vpid")"
    fi
}

vfork_case "vfork parent in D, on-CPU" 3 0.3 6 -d 2 --stats -o "$TMPD/vf1.folded"
vfork_case "vfork parent in D, --idle" 3 0.3 6 -d 2 --stats --idle -o "$TMPD/vf2.folded"
# --idle interrupts the parent in D; the stop cannot come before the vfork
# ends, so after 500 ms the sampler gives it up instead of waiting
like "$(grep 'interrupts given up' "$ERR")" 'interrupts given up: [1-9]' \
    "vfork parent in D, --idle: the unanswered interrupt is given up and counted"
vfork_case "vfork parent in D, --dump" 3 0.3 6 --dump
like "$OUTS" "Thread $vpid" "--dump names the parent's thread"

# Across the end of the vfork: the interrupt --idle sent while the parent
# was in D is answered (or given up) once it runs again.
vfork_case "--idle across the end of the vfork" 1.5 4 8 -d 3.5 -F 1000 --idle --stats \
    -o "$TMPD/vf3.folded"
cmp_ok "$(folded_count_frame "$TMPD/vf3.folded" after_vfork)" '>' 0 \
    "--idle across the end of the vfork: the parent is sampled after it (after_vfork)"

done_testing
