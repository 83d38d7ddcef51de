#!/usr/bin/env bash
# kernel_reasons.t - why each thread waits (issue 21, items 3 and 4), on
# the perf backend as root, against a ground truth.
#
# tests/targets/waits runs eight threads, each spending its time in one
# way and measuring it itself (the wall clock, and its task clock: the
# time the kernel had it on a CPU): spinning, fdatasync()
# after small writes to a file on a real disk, a contended mutex, a mutex
# holder's nanosleep, nanosleep, recv() on a TCP connection fed every
# 10 ms, its feeder's nanosleep, epoll_wait() with a timeout.  It reports
# each thread's share of wall-clock time off the CPU inside its blocking
# call (for the spinner: its time not on a CPU).  Under --idle, each
# reason's share of the thread's samples ([off-CPU: disk I/O] ...), with,
# for the blocking threads, their "waiting for a CPU" inside the call
# (runnable in it, which waits' clock counts as off the CPU too), must
# be within 5 points of that accounting (the disk thread: 7, see
# run_waits), on the machine as it is and with
# two CPU hogs (started and killed here by PID); with the hogs, "waiting
# for a CPU" must appear for the spinning thread (the hogs and it bound
# to one CPU, so that it must wait however many CPUs there are).  The kernel's path
# stands between the user stack and the reason; --no-kernel keeps the
# reasons without it.
# About 15 s.
. "$(dirname "$0")/lib.sh"
require_sproftop
require_targets waits

[ "$(id -u)" = 0 ] || skip_all "needs root (kernel stacks at each switch-out)"
"$SPROFTOP" --version | grep -q '^sampler with --idle: auto picks perf' ||
    skip_all "perf_event cannot sample context switches here"
"$SPROFTOP" --version | grep -q '^kernel frames on' ||
    skip_all "no kernel stacks here: $("$SPROFTOP" --version | tail -n 1)"

# A directory on a real disk for the fdatasync thread (tmpfs would make
# fdatasync a no-op): the test's own, else /var/tmp, else the build tree.
disk=""
for d in "$TMPD" /var/tmp "$TOP/$BUILD"; do
    t=$(stat -f -c %T "$d" 2>/dev/null) || continue
    case $t in
        tmpfs|ramfs|devtmpfs|proc|sysfs) continue ;;
    esac
    [ -w "$d" ] && { disk=$d; break; }
done
[ -n "$disk" ] || skip_all "no disk-backed directory (tmpfs everywhere): fdatasync would not wait"
note "fdatasync writes in $disk ($(stat -f -c %T "$disk"))"
mkdir -p "$disk/kernel_reasons.$$"
disk=$disk/kernel_reasons.$$
trap 'rm -rf "$disk"; cleanup' EXIT

SP_TIMEOUT=40

# reason_shares FOLDED: "THREAD|REASON PERCENT" for each off-CPU reason
# of each thread (by name, without its TID), of the thread's samples.
reason_shares() {
    awk '{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";")
           th = f[1]; sub(/-[0-9]+$/, "", th); tot[th] += c
           if (f[k] ~ /^\[off-CPU: /) { r = f[k]; sub(/^\[off-CPU: /, "", r)
                                         sub(/\]$/, "", r); n[th "|" r] += c } }
         END { for (x in n) { split(x, a, "|")
                              printf "%s %.1f\n", x, 100 * n[x] / tot[a[1]] } }' "$1"
}

# The reason each thread's accounting names, as sproftop labels it.
declare -A label=([cpu-wait]="waiting for a CPU" [disk]="disk I/O" [lock]=lock
                  [sleep]=sleep [network]=network [poll]=poll)
# The blocking call each reason's thread measures itself in (the user
# frame on sproftop's stacks).
declare -A call=([disk]=fdatasync [lock]=__lll_lock_wait [sleep]=clock_nanosleep
                 [network]=recv [poll]=epoll_wait)

# run_waits NAME [CPU]: waits for 4 s under sproftop --idle (its spinning
# thread bound to CPU when given); compares.
run_waits() {
    local name=$1 th reason want got d
    run_sproftop --sampler perf --idle -F 200 --stats -o "$TMPD/$name.folded" \
        -- "$TARGETS/waits" 4 "$disk" "$TMPD/$name.rep" ${2:+"$2"}
    is "$RC" 0 "$name: sproftop --idle -- waits exits 0 (waits' status)"
    [ "$RC" = 0 ] || diag_file "$ERR"
    reason_shares "$TMPD/$name.folded" >"$TMPD/$name.shares"
    while read -r th reason want _ cwant clock; do
        want=$(awk -v w="$want" 'BEGIN { printf "%.1f", 100 * w }')
        cwant=$(awk -v w="$cwant" 'BEGIN { printf "%.1f", 100 * w }')
        # waits counts a blocking call's wall time minus its time on a CPU:
        # blocked, and runnable but preempted inside the call (the disk
        # thread, at its wake-ups on a busy machine), which sproftop
        # names "waiting for a CPU" with the call on the stack: both are
        # compared with the thread's own accounting
        got=$(awk -F' ' -v k="$th|${label[$reason]}" \
            '{ s = $0; sub(/ [0-9.]+$/, "", s); if (s == k) print $NF }' "$TMPD/$name.shares")
        got=$(awk -v th="$th" -v call="${call[$reason]:-}" -v got="${got:-0}" \
            '{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s); t = s; sub(/;.*/, "", t)
               sub(/-[0-9]+$/, "", t); if (t != th) next; tot += c
               if (call != "" && s ~ ("(^|;)" call ";") &&
                   s ~ /\[off-CPU: waiting for a CPU[^;]*\]$/) inc += c }
             END { printf "%.1f", got + (tot ? 100 * inc / tot : 0) }' "$TMPD/$name.folded")
        d=$(awk -v a="$want" -v b="$got" 'BEGIN { d = a - b; printf "%.1f", d < 0 ? -d : d }')
        note "$name: $th ${label[$reason]}: waits says $want% ($clock; by its CPU clock $cwant%), sproftop $got%"
        # waits' truth is by the thread's task clock, the time the
        # kernel had it on a CPU, as sproftop's samples count it.  Its
        # CPU clock leaves out time stolen by a hypervisor and counts the
        # switch until the scheduler's own bookkeeping, not perf's: on
        # this project's KVM machine the disk thread, which blocks
        # hundreds of times a second and exits to the host at every
        # virtio notify, was 4-9 points more off the CPU by that clock
        # (two CI runs failed on it, 56% against 69% by the CPU clock,
        # with 12% of its samples in the interrupt after that notify:
        # most likely stolen time, not proven).  sproftop starts a
        # stretch off the CPU at the switch record, not at the sample
        # before it, whose stack copy the task clock counts.  The disk
        # thread is asked within 7 points (about 250 on-CPU samples in
        # bursts far shorter than an interval: their count varies by a
        # few points), every other thread within 5.
        tol=$([ "$reason" = disk ] && echo 7 || echo 5)
        cmp_ok "$d" '<=' "$tol" "$name: $th, ${label[$reason]}: $got% within $tol points of waits' own $want%" ||
            diag "  $th's reasons, % of its samples: $(grep "^$th|" "$TMPD/$name.shares" | tr '\n' ',')" \
                 "its stacks' leaves: $(awk -v th="$th" '{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s)
                     t = s; sub(/;.*/, "", t); sub(/-[0-9]+$/, "", t); if (t != th) next
                     n = split(s, f, ";"); l[f[n]] += c }
                   END { for (k in l) printf "%s %d, ", k, l[k] }' "$TMPD/$name.folded" | cut -c1-600)"
    done <"$TMPD/$name.rep"
}

# --- the machine as it is ------------------------------------------------------
run_waits idle
cmp_ok "$(folded_count_chain "$TMPD/idle.folded" recv_work __libc_recv)" '>' 0 \
    "idle: recv's stacks are recv_work's"
# the kernel's path between the user stack and the reason
between=$(awk '{ s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";")
                 if (f[k] ~ /^\[off-CPU: (disk|lock|network|poll|sleep)/) {
                     t += $NF; if (f[k - 1] ~ /_\[k\]$/) y += $NF } }
               END { printf "%d", t ? 100 * y / t : 0 }' "$TMPD/idle.folded")
cmp_ok "$between" '>=' 95 "idle: a blocked thread's reason hangs below its kernel path ($between%)"
like "$(grep '^off-CPU reasons:' "$ERR")" 'preemptions' "idle: --stats counts the preemptions"

# --- with two CPU hogs -----------------------------------------------------------
# The hogs and waits' spinning thread are bound to one CPU this test may
# use, so the spinner has to wait for it whatever the machine's CPU count
# (on a machine with more CPUs than hogs, unbound, it would not).
cpu=$(first_cpu)
[[ $cpu =~ ^[0-9]+$ ]] || bail_out "cannot tell a CPU this test may use ($cpu)"
note "the hogs and the spinner bound to CPU $cpu"
start_hogs "$cpu"
run_waits hogs "$cpu"
stop_hogs
cpu=$(awk '$1 == "w-spin|waiting" { print int($NF) }' \
    <(sed 's/ for a CPU / /' "$TMPD/hogs.shares"))
cmp_ok "${cpu:-0}" '>=' 10 "hogs: the spinning thread waits for a CPU (${cpu:-0}%)"

# --- --no-kernel: the reasons stay -----------------------------------------------
run_sproftop --sampler perf --idle --no-kernel -F 200 -o "$TMPD/nok.folded" \
    -- "$TARGETS/waits" 1.5 "$disk" "$TMPD/nok.rep"
is "$RC" 0 "--no-kernel --idle: exit 0"
is "$(grep -c '_\[k\]' "$TMPD/nok.folded")" 0 "--no-kernel --idle: no kernel frame"
under_user=$(awk '{ s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";")
                    if (f[k] == "[off-CPU: lock]" && s ~ /;lock_work;/ &&
                        f[k - 1] !~ /_\[k\]$/) n += $NF }
                  END { printf "%d", n }' "$TMPD/nok.folded")
cmp_ok "$under_user" '>' 0 "--no-kernel --idle: lock_work's lock reason right below its user leaf"

done_testing
