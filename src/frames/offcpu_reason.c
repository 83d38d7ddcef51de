/* offcpu_reason.c - the kernel functions that name a wait; see
 * offcpu_reason.h.
 *
 * The table was checked against tests/targets/waits.c (one thread per
 * reason): `perf record -e context-switches -g` showed, below schedule,
 * io_schedule (fdatasync: folio_wait_writeback, bit_wait_io,
 * io_schedule_timeout <- blkdev_issue_flush), futex_do_wait (a contended
 * mutex), do_nanosleep, sk_wait_data (recv on TCP), do_epoll_wait (epoll
 * with a timeout), and irqentry_exit_to_user_mode / exit_to_user_mode_loop
 * for a preempted thread.
 */
#include "offcpu_reason.h"

#include <stdio.h>
#include <string.h>

#include "profile.h"

struct rule {
    const char *name;   /* a function, or with `prefix` a name's start */
    unsigned char reason;
    bool prefix;
};

/* In order: the first rule that matches decides. */
static const struct rule rules[] = {
    /* the scheduler and generic waits: look further down */
    { "schedule", OFFCPU_NONE, false },
    { "__schedule", OFFCPU_NONE, false },
    { "schedule_timeout", OFFCPU_NONE, false },
    { "schedule_hrtimeout", OFFCPU_NONE, true },
    { "schedule_preempt_disabled", OFFCPU_NONE, false },
    { "freezable_schedule", OFFCPU_NONE, false },
    { "wait_woken", OFFCPU_NONE, false },
    { "prepare_to_wait", OFFCPU_NONE, true },
    { "finish_wait", OFFCPU_NONE, false },
    { "__wait_event", OFFCPU_NONE, true },
    { "do_wait_for_common", OFFCPU_NONE, false },
    { "__wait_for_common", OFFCPU_NONE, false },
    { "wait_for_common", OFFCPU_NONE, false },
    { "wait_for_completion", OFFCPU_NONE, false },
    { "wait_for_completion_timeout", OFFCPU_NONE, false },
    { "wait_for_completion_killable", OFFCPU_NONE, false },
    { "wait_for_completion_interruptible", OFFCPU_NONE, true },
    { "bit_wait", OFFCPU_NONE, false },
    { "__wait_on_bit", OFFCPU_NONE, true },
    { "out_of_line_wait_on_bit", OFFCPU_NONE, true },
    { "wait_on_bit", OFFCPU_NONE, true },
    /* preempted: runnable, back to a CPU when one is free */
    { "preempt_schedule", OFFCPU_CPU, true },
    { "__cond_resched", OFFCPU_CPU, false },
    { "_cond_resched", OFFCPU_CPU, false },
    { "exit_to_user_mode_loop", OFFCPU_CPU, false },
    { "irqentry_exit_to_user_mode", OFFCPU_CPU, false },
    { "irqentry_exit", OFFCPU_CPU, false },
    { "raw_irqentry_exit_cond_resched", OFFCPU_CPU, false },
    { "do_sched_yield", OFFCPU_CPU, false },
    { "__x64_sys_sched_yield", OFFCPU_CPU, false },
    /* disk I/O: the block layer, writeback, the page cache, journals */
    { "io_schedule", OFFCPU_DISK, true },
    { "bit_wait_io", OFFCPU_DISK, true },
    { "wait_for_completion_io", OFFCPU_DISK, true },
    { "folio_wait", OFFCPU_DISK, true },
    { "__folio_lock", OFFCPU_DISK, true },
    { "wait_on_page", OFFCPU_DISK, true },
    { "__wait_on_buffer", OFFCPU_DISK, false },
    { "__sync_dirty_buffer", OFFCPU_DISK, false },
    { "submit_bio_wait", OFFCPU_DISK, false },
    { "blk_", OFFCPU_DISK, true },
    { "blkdev_", OFFCPU_DISK, true },
    { "jbd2_", OFFCPU_DISK, true },
    { "ext4_sync_file", OFFCPU_DISK, false },
    { "file_write_and_wait_range", OFFCPU_DISK, false },
    { "filemap_fdatawait", OFFCPU_DISK, true },
    { "__filemap_fdatawait", OFFCPU_DISK, true },
    { "filemap_write_and_wait", OFFCPU_DISK, true },
    { "xfs_log_force", OFFCPU_DISK, true },
    { "xfs_file_fsync", OFFCPU_DISK, false },
    { "btrfs_sync_file", OFFCPU_DISK, false },
    /* locks: futex, kernel mutexes and rwsems, file locks */
    { "futex_", OFFCPU_LOCK, true },
    { "__futex_", OFFCPU_LOCK, true },
    { "do_futex", OFFCPU_LOCK, false },
    { "__x64_sys_futex", OFFCPU_LOCK, true },
    { "rt_mutex", OFFCPU_LOCK, true },
    { "__rt_mutex", OFFCPU_LOCK, true },
    { "__mutex_lock", OFFCPU_LOCK, true },
    { "mutex_lock", OFFCPU_LOCK, true },
    { "rwsem_down_", OFFCPU_LOCK, true },
    { "down_read", OFFCPU_LOCK, true },
    { "down_write", OFFCPU_LOCK, true },
    { "__down", OFFCPU_LOCK, true },
    { "percpu_rwsem_wait", OFFCPU_LOCK, false },
    { "locks_lock_inode_wait", OFFCPU_LOCK, false },
    { "flock_lock_inode_wait", OFFCPU_LOCK, false },
    /* network and sockets */
    { "sk_wait_data", OFFCPU_NET, false },
    { "sk_stream_wait_", OFFCPU_NET, true },
    { "__skb_wait_for_more_packets", OFFCPU_NET, false },
    { "__skb_recv_", OFFCPU_NET, true },
    { "skb_recv_datagram", OFFCPU_NET, false },
    { "tcp_", OFFCPU_NET, true },
    { "udp", OFFCPU_NET, true },
    { "unix_", OFFCPU_NET, true },
    { "inet_", OFFCPU_NET, true },
    { "inet6_", OFFCPU_NET, true },
    { "sock_", OFFCPU_NET, true },
    { "__sock_", OFFCPU_NET, true },
    { "netlink_", OFFCPU_NET, true },
    { "__sys_recv", OFFCPU_NET, true },
    { "__sys_send", OFFCPU_NET, true },
    { "__sys_accept", OFFCPU_NET, true },
    { "__sys_connect", OFFCPU_NET, true },
    /* event loops */
    { "do_epoll_wait", OFFCPU_POLL, false },
    { "ep_poll", OFFCPU_POLL, false },
    { "do_sys_poll", OFFCPU_POLL, false },
    { "do_poll", OFFCPU_POLL, false },
    { "do_select", OFFCPU_POLL, false },
    { "core_sys_select", OFFCPU_POLL, false },
    { "io_cqring_wait", OFFCPU_POLL, false },
    { "__x64_sys_epoll_", OFFCPU_POLL, true },
    { "__x64_sys_poll", OFFCPU_POLL, false },
    { "__x64_sys_ppoll", OFFCPU_POLL, false },
    { "__x64_sys_select", OFFCPU_POLL, false },
    { "__x64_sys_pselect6", OFFCPU_POLL, false },
    /* sleeps and timers */
    { "do_nanosleep", OFFCPU_SLEEP, false },
    { "hrtimer_nanosleep", OFFCPU_SLEEP, false },
    { "common_nsleep", OFFCPU_SLEEP, false },
    { "__x64_sys_nanosleep", OFFCPU_SLEEP, false },
    { "__x64_sys_clock_nanosleep", OFFCPU_SLEEP, false },
    { "msleep", OFFCPU_SLEEP, true },
    { "usleep_range", OFFCPU_SLEEP, true },
    /* page faults */
    { "exc_page_fault", OFFCPU_FAULT, false },
    { "asm_exc_page_fault", OFFCPU_FAULT, false },
    { "do_user_addr_fault", OFFCPU_FAULT, false },
    { "handle_mm_fault", OFFCPU_FAULT, false },
    { "__handle_mm_fault", OFFCPU_FAULT, false },
    { "handle_userfault", OFFCPU_FAULT, false },
    { "do_fault", OFFCPU_FAULT, false },
};

/* Interrupt and softirq entries (offcpu_irq_entry). */
static const struct rule irq_rules[] = {
    { "asm_common_interrupt", 1, false },
    { "asm_sysvec_", 1, true },
    { "common_interrupt", 1, false },
    { "sysvec_", 1, true },
    { "__sysvec_", 1, true },
    { "handle_softirqs", 1, false },
    { "__do_softirq", 1, false },
    { "irq_exit_rcu", 1, false },
    { "__irq_exit_rcu", 1, false },
};

/* The length of func without a "+0x..." or ".cold"-like suffix: perf
 * prints "schedule+0x23", /proc "schedule+0x23/0x40"; a compiler's
 * "ep_poll.isra.0" is ep_poll. */
static size_t base_len(const char *func)
{
    size_t n = strcspn(func, "+ \t");
    const char *dot = memchr(func, '.', n);

    return dot && dot != func ? (size_t)(dot - func) : n;
}

static bool matches(const struct rule *r, const char *func, size_t n)
{
    size_t l = strlen(r->name);

    return r->prefix ? n >= l && strncmp(func, r->name, l) == 0
                     : n == l && strncmp(func, r->name, l) == 0;
}

/* The first rule of table[0..n) that func matches, or NULL (also for
 * NULL or ""). */
static const struct rule *first_match(const struct rule *table, size_t n,
                                      const char *func)
{
    size_t len;

    if (!func || !*func)
        return NULL;
    len = base_len(func);
    for (size_t i = 0; i < n; i++)
        if (matches(&table[i], func, len))
            return &table[i];
    return NULL;
}

enum offcpu_reason offcpu_reason_of(const char *func)
{
    const struct rule *r = first_match(rules, sizeof(rules) / sizeof(rules[0]),
                                       func);

    if (!func || !*func)
        return OFFCPU_NONE;
    return r ? (enum offcpu_reason)r->reason : OFFCPU_OTHER;
}

enum offcpu_reason offcpu_pick(const unsigned char *r, size_t n,
                               bool preempted, size_t *which)
{
    *which = 0;
    if (preempted)
        return OFFCPU_CPU;
    for (size_t i = 0; i < n; i++)
        if (r[i] != OFFCPU_NONE && r[i] < OFFCPU_NREASONS) {
            *which = i;
            return (enum offcpu_reason)r[i];
        }
    return OFFCPU_UNKNOWN;
}

enum offcpu_reason offcpu_classify(const char *const *names, size_t n,
                                   bool preempted, size_t *which)
{
    unsigned char r[64];
    size_t k = n < sizeof(r) ? n : sizeof(r);

    for (size_t i = 0; i < k; i++)
        r[i] = (unsigned char)offcpu_reason_of(names[i]);
    return offcpu_pick(r, k, preempted, which);
}

static const char *const labels[OFFCPU_NREASONS] = {
    [OFFCPU_NONE] = "none",
    [OFFCPU_CPU] = "waiting for a CPU",
    [OFFCPU_DISK] = "disk I/O",
    [OFFCPU_LOCK] = "lock",
    [OFFCPU_NET] = "network",
    [OFFCPU_POLL] = "poll",
    [OFFCPU_SLEEP] = "sleep",
    [OFFCPU_FAULT] = "page fault",
    [OFFCPU_OTHER] = "other",
    [OFFCPU_UNKNOWN] = "unknown",
    [OFFCPU_GVL] = "lock (GVL)",
};

const char *offcpu_reason_label(enum offcpu_reason r)
{
    return (unsigned)r < OFFCPU_NREASONS ? labels[r] : "unknown";
}

const char *offcpu_reason_frame(enum offcpu_reason r, const char *func,
                                char *buf, size_t n)
{
    if (r == OFFCPU_OTHER && func && *func)
        snprintf(buf, n, PROFILE_REASON_PREFIX "other: %.*s]",
                 (int)strcspn(func, "+ \t"), func);
    else
        snprintf(buf, n, PROFILE_REASON_PREFIX "%s]", offcpu_reason_label(r));
    return buf;
}

bool offcpu_irq_entry(const char *func)
{
    return first_match(irq_rules, sizeof(irq_rules) / sizeof(irq_rules[0]),
                       func) != NULL;
}
