/* perf_events.c - opening events and explaining refusals; see
 * perf_events.h. */
#include "perf_events.h"

#include "perf_record.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int sys_perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
    return (int)syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

int perf_events_cpus(int *cpus, int max)
{
    int n = 0;
    char buf[512];
    FILE *f = fopen("/sys/devices/system/cpu/online", "re");
    if (f && fgets(buf, sizeof buf, f)) {
        /* "0-3,5,7-8" */
        char *p = buf, *e;
        while (n < max) {
            long a = strtol(p, &e, 10), b = a;
            if (e == p)
                break;
            p = e;
            if (*p == '-') {
                b = strtol(p + 1, &e, 10);
                p = e;
            }
            for (long c = a; c <= b && n < max; c++)
                cpus[n++] = (int)c;
            if (*p++ != ',')
                break;
        }
    }
    if (f)
        fclose(f);
    if (n == 0) {
        long k = sysconf(_SC_NPROCESSORS_ONLN);
        for (long c = 0; c < (k > 0 ? k : 1) && n < max; c++)
            cpus[n++] = (int)c;
    }
    return n;
}

/* The settings every event shares, so every record parses the same
 * (perf_record.h), and sample times are CLOCK_MONOTONIC. */
static void attr_common(struct perf_event_attr *a)
{
    memset(a, 0, sizeof *a);
    a->size = sizeof *a;
    a->type = PERF_TYPE_SOFTWARE;
    a->sample_type = PERF_RECORD_TYPE;
    a->sample_regs_user = PERF_RECORD_REGS;
    a->sample_id_all = 1;
    a->exclude_hv = 1;
    a->exclude_callchain_user = 1;
    a->exclude_callchain_kernel = 1;
    a->use_clockid = 1;
    a->clockid = CLOCK_MONOTONIC;
}

int perf_events_open_owner(int cpu, uint32_t wakeup_bytes)
{
    struct perf_event_attr a;
    attr_common(&a);
    a.config = PERF_COUNT_SW_DUMMY;
    a.exclude_kernel = 1;
    a.watermark = 1;
    a.wakeup_watermark = wakeup_bytes;
    return sys_perf_event_open(&a, 0, cpu);
}

static void attr_event(struct perf_event_attr *a, const struct perf_events_opts *o,
                       enum perf_ev_kind kind)
{
    attr_common(a);
    a->sample_stack_user = o->stack_bytes;
    a->exclude_kernel = o->kernel ? 0 : 1;
    a->exclude_callchain_kernel =
        o->kernel && (kind == PERF_EV_SWITCH ? o->switch_chain
                                             : o->kernel_frames) ? 0 : 1;
    a->inherit = 1;
    a->inherit_thread = o->children ? 0 : 1;
    if (o->enable_on_exec) {
        a->disabled = 1;
        a->enable_on_exec = 1;
    }
    if (kind == PERF_EV_CLOCK) {
        a->config = PERF_COUNT_SW_CPU_CLOCK;
        a->sample_period = o->period_ns;
        /* side-band records once per thread and CPU: on this event only;
         * the kernel emits MMAP2 records only while some event has `mmap`
         * set (nr_mmap_events), and then in the MMAP2 format */
        a->mmap = 1;
        a->mmap2 = 1;
        a->comm = 1;
        a->comm_exec = 1;
        a->task = 1;
    } else {
        a->config = PERF_COUNT_SW_CONTEXT_SWITCHES;
        a->sample_period = 1;
        a->context_switch = 1;
    }
}

/* Open a on (pid, cpu), route its records into owner_fd's ring unless
 * owner_fd < 0, and read its id: the fd, or -1 with errno. */
static int open_routed(struct perf_event_attr *a, pid_t pid, int cpu, int owner_fd,
                       uint64_t *id)
{
    int fd = sys_perf_event_open(a, pid, cpu);
    if (fd < 0)
        return -1;
    if ((owner_fd >= 0 && ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, owner_fd) < 0) ||
        ioctl(fd, PERF_EVENT_IOC_ID, id) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

int perf_events_open(const struct perf_events_opts *o, enum perf_ev_kind kind,
                     pid_t tid, int cpu, int owner_fd, uint64_t *id)
{
    struct perf_event_attr a;
    attr_event(&a, o, kind);
    return open_routed(&a, tid, cpu, owner_fd, id);
}

int perf_events_open_cpu(const struct perf_events_opts *o, enum perf_ev_kind kind,
                         int cpu, int owner_fd, uint32_t wakeup_bytes, uint64_t *id)
{
    struct perf_event_attr a;
    attr_event(&a, o, kind);
    a.inherit = 0;
    a.inherit_thread = 0;
    if (owner_fd < 0) {
        a.watermark = 1;
        a.wakeup_watermark = wakeup_bytes;
    }
    return open_routed(&a, -1, cpu, owner_fd, id);
}

static int paranoid_level(void)
{
    int v = 2; /* the kernel's default */
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
    if (f) {
        if (fscanf(f, "%d", &v) != 1)
            v = 2;
        fclose(f);
    }
    return v;
}

void perf_events_kernel_refusal(char *buf, size_t n)
{
    snprintf(buf, n, "kernel frames off: perf_event_paranoid=%d (user mode "
             "only); sysctl kernel.perf_event_paranoid=1 or run as root",
             paranoid_level());
}

int perf_events_all_allowed(char *err, size_t errlen)
{
    int paranoid = paranoid_level();
    unsigned long long caps = 0;
    char line[256];
    FILE *f = fopen("/proc/self/status", "re");
    if (f) {
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "CapEff: %llx", &caps) == 1)
                break;
        fclose(f);
    }
    bool perfmon = caps & (1ull << 38), sys_admin = caps & (1ull << 21);
    if (geteuid() == 0 || perfmon || sys_admin || paranoid <= 0)
        return 0;
    snprintf(err, errlen, "-a samples every process: it needs " PERF_ALL_NEEDS
             " (it is %d; sysctl kernel.perf_event_paranoid=0)", paranoid);
    return -1;
}

/* The refusals whose cause and fix do not depend on the call. */
static const struct {
    int e;
    const char *cause, *fix;
} fixed_refusals[] = {
    { ENOSYS, "perf_event_open is not available (ENOSYS: no perf events, or seccomp)",
      "allow perf_event_open" },
    { EMFILE, "too many threads for the open-file limit (one perf event per thread and CPU)",
      "raise ulimit -n" },
    { ENFILE, "too many threads for the open-file limit (one perf event per thread and CPU)",
      "raise ulimit -n" },
    { ENOMEM, "perf ring buffers exceed the locked-memory limit",
      "raise ulimit -l or sysctl kernel.perf_event_mlock_kb" },
};

void perf_events_explain(int e, pid_t pid, bool kernel_only, struct sampler_refusal *why)
{
    int par = paranoid_level();
    why->denied = true;
    for (size_t i = 0; i < sizeof fixed_refusals / sizeof fixed_refusals[0]; i++)
        if (fixed_refusals[i].e == e) {
            snprintf(why->cause, sizeof why->cause, "%s", fixed_refusals[i].cause);
            snprintf(why->fix, sizeof why->fix, "%s", fixed_refusals[i].fix);
            return;
        }
    switch (e) {
    case EACCES:
    case EPERM:
        if (kernel_only) {
            snprintf(why->cause, sizeof why->cause,
                     "--idle needs kernel samples, refused at perf_event_paranoid=%d", par);
            snprintf(why->fix, sizeof why->fix,
                     "sysctl kernel.perf_event_paranoid=1 or run as root");
        } else if (par >= 3) {
            snprintf(why->cause, sizeof why->cause, "perf_event_paranoid=%d", par);
            snprintf(why->fix, sizeof why->fix,
                     "sysctl kernel.perf_event_paranoid=2 or run as root");
        } else {
            snprintf(why->cause, sizeof why->cause, "perf_event_open refused (%s)%s",
                     strerror(e), pid > 0 ? " for this process" : "");
            snprintf(why->fix, sizeof why->fix,
                     "run as root or grant CAP_PERFMON (containers: --cap-add PERFMON)");
        }
        return;
    case ESRCH:
        why->denied = false;
        snprintf(why->cause, sizeof why->cause, "no process with PID %d", (int)pid);
        snprintf(why->fix, sizeof why->fix, "check the PID with ps");
        return;
    default:
        snprintf(why->cause, sizeof why->cause,
                 "the kernel refuses software perf events (%s)", strerror(e));
        snprintf(why->fix, sizeof why->fix, "use a kernel with CONFIG_PERF_EVENTS");
        return;
    }
}

/* Open (and close) one event of kind on pid; errno when it fails. */
static int try_open(pid_t pid, enum perf_ev_kind kind, bool kernel)
{
    struct perf_events_opts o = {
        .period_ns = 10000000, .stack_bytes = 8, .kernel = kernel,
    };
    struct perf_event_attr a;
    attr_event(&a, &o, kind);
    a.disabled = 1;
    a.inherit = 0;
    a.inherit_thread = 0;
    int fd = sys_perf_event_open(&a, pid, -1);
    if (fd < 0)
        return errno ? errno : EINVAL;
    close(fd);
    return 0;
}

int perf_events_probe(pid_t pid, bool idle, bool *kernel,
                      struct sampler_refusal *why)
{
    *kernel = true;
    bool kernel_only = false;
    int e = try_open(pid, PERF_EV_CLOCK, true);
    if (e == EACCES || e == EPERM) {
        /* perf_event_paranoid 2 without privilege: user mode only */
        *kernel = false;
        e = try_open(pid, PERF_EV_CLOCK, false);
        if (e == 0 && idle) {
            e = EACCES; /* context switches happen in the kernel */
            kernel_only = true;
        }
    } else if (e == 0 && idle) {
        e = try_open(pid, PERF_EV_SWITCH, true);
    }
    if (e == 0)
        return 0;
    perf_events_explain(e, pid, kernel_only, why);
    return -1;
}
