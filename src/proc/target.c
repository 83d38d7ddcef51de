/* target.c - /proc facts and attach-error messages; see target.h. */
#include "target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sorted.h"

#define PF_KTHREAD 0x00200000u

static ssize_t read_file(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, len - 1);
    int e = errno;
    close(fd);
    errno = e;
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return n;
}

/* Value of a "Key:\tvalue" line of /proc/PID/status, or -1. */
static long status_field(pid_t pid, const char *key)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    if (read_file(path, buf, sizeof buf) < 0)
        return -1;
    size_t kl = strlen(key);
    for (char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (strncmp(l, key, kl) == 0 && l[kl] == ':')
            return strtol(l + kl + 1, NULL, 10);
    return -1;
}

static void comm_of(pid_t pid, char *buf, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
    if (read_file(path, buf, len) < 0)
        snprintf(buf, len, "?");
    buf[strcspn(buf, "\n")] = '\0';
}

/* Parse the fields after "(comm)" in a stat line: returns pointer to the
 * state letter. */
static const char *stat_after_comm(const char *buf)
{
    const char *p = strrchr(buf, ')');
    return p && p[1] == ' ' ? p + 2 : NULL;
}

/* When pid has a tracer: "already traced by PID N (name)" in err, and
 * true. */
static bool explain_tracer(pid_t pid, char *err, size_t errlen)
{
    long tracer = status_field(pid, "TracerPid");
    if (tracer <= 0)
        return false;
    char name[64];
    comm_of((pid_t)tracer, name, sizeof name);
    snprintf(err, errlen, "PID %d is already traced by PID %ld (%s); detach that tracer first",
             (int)pid, tracer, name);
    return true;
}

int target_check(pid_t pid, char *err, size_t errlen)
{
    char path[64], buf[1024];
    if (pid <= 0) {
        snprintf(err, errlen, "invalid PID %d", (int)pid);
        return -1;
    }
    if (pid == getpid()) {
        snprintf(err, errlen, "PID %d is sproftop itself; profile another process", (int)pid);
        return -1;
    }
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (read_file(path, buf, sizeof buf) < 0) {
        if (errno == ENOENT || errno == ESRCH)
            snprintf(err, errlen, "no process with PID %d (check the PID with ps)", (int)pid);
        else
            snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    const char *s = stat_after_comm(buf);
    if (!s) {
        snprintf(err, errlen, "cannot parse %s", path);
        return -1;
    }
    /* field 9 is flags: state(3) ppid pgrp session tty tpgid flags */
    unsigned long flags = 0;
    char state = s[0];
    if (sscanf(s, "%*c %*d %*d %*d %*d %*d %lu", &flags) == 1 &&
        (flags & PF_KTHREAD)) {
        snprintf(err, errlen, "PID %d is a kernel thread; only user processes can be profiled", (int)pid);
        return -1;
    }
    if (state == 'Z' || state == 'X') {
        /* A zombie leader can still have live threads (pthread_exit from
         * main); only a process with no live thread is refused. */
        long threads = status_field(pid, "Threads");
        if (threads <= 1) {
            snprintf(err, errlen, "PID %d is a zombie (exited, not yet reaped by its parent)", (int)pid);
            return -1;
        }
    }
    return 0;
}

int target_precheck(pid_t pid, char *err, size_t errlen)
{
    if (target_check(pid, err, errlen) < 0)
        return -1;
    return explain_tracer(pid, err, errlen) ? -1 : 0;
}

void target_explain_seize(pid_t pid, int e, char *err, size_t errlen)
{
    if (e == ESRCH) {
        snprintf(err, errlen, "PID %d exited before it could be attached", (int)pid);
        return;
    }
    if (e != EPERM) {
        snprintf(err, errlen, "cannot attach to PID %d: %s", (int)pid, strerror(e));
        return;
    }
    if (explain_tracer(pid, err, errlen))
        return;
    char buf[64];
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    long yama = -1;
    if (read_file("/proc/sys/kernel/yama/ptrace_scope", buf, sizeof buf) > 0)
        yama = strtol(buf, NULL, 10);
    long uid = -1;
    {
        char sbuf[4096];
        if (read_file(path, sbuf, sizeof sbuf) > 0) {
            char *u = strstr(sbuf, "\nUid:");
            if (u)
                uid = strtol(u + 5, NULL, 10);
        }
    }
    if (geteuid() != 0 && uid >= 0 && (uid_t)uid != geteuid())
        snprintf(err, errlen, "permission denied attaching to PID %d: it belongs to uid %ld; run as root or grant CAP_SYS_PTRACE",
                 (int)pid, uid);
    else if (yama > 0 && geteuid() != 0)
        snprintf(err, errlen, "permission denied attaching to PID %d: kernel.yama.ptrace_scope=%ld; run as root, grant CAP_SYS_PTRACE, or set it to 0",
                 (int)pid, yama);
    else
        snprintf(err, errlen, "permission denied attaching to PID %d: need CAP_SYS_PTRACE (in a container: --cap-add SYS_PTRACE)",
                 (int)pid);
}

/* Re-read an open stat file into buf: its field 3 (the state), or NULL
 * when the thread is gone. */
static const char *stat_reread(int stat_fd, char *buf, size_t len)
{
    ssize_t n = pread(stat_fd, buf, len - 1, 0);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    return stat_after_comm(buf);
}

/* Field `to` of a stat line, from p at field `from`; NULL past its end. */
static const char *stat_skip(const char *p, int from, int to)
{
    for (int f = from; f < to && p; f++) {
        p = strchr(p, ' ');
        if (p)
            p++;
    }
    return p;
}

char target_stat_state(int stat_fd, int *cpu)
{
    char buf[1024];
    const char *s = stat_reread(stat_fd, buf, sizeof buf);
    if (!s)
        return 0;
    if (cpu) {
        const char *p = stat_skip(s, 3, 39);  /* processor */
        *cpu = p ? atoi(p) : -1;
    }
    return s[0];
}

bool target_is_kthread(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    const char *p = stat_skip(stat_reread(fd, buf, sizeof buf), 3, 9);
    close(fd);
    /* field 9, flags: PF_KTHREAD (include/linux/sched.h) */
    return p && strtoul(p, NULL, 10) & 0x00200000ul;
}

int target_stat_vsize(int stat_fd, uint64_t *vsize)
{
    char buf[1024];
    const char *p = stat_skip(stat_reread(stat_fd, buf, sizeof buf), 3, 23);
    if (!p)
        return -1;
    char *end;
    *vsize = strtoull(p, &end, 10);
    return end == p ? -1 : 0;
}

int target_stat_times(int stat_fd, char *state, uint64_t *cpu_ns)
{
    char buf[1024];
    const char *s = stat_reread(stat_fd, buf, sizeof buf);
    const char *p = stat_skip(s, 3, 14);  /* utime, then stime */
    unsigned long long ut, st;
    if (!p || sscanf(p, "%llu %llu", &ut, &st) != 2)
        return -1;
    long hz = sysconf(_SC_CLK_TCK);
    *state = s[0];
    *cpu_ns = (uint64_t)(ut + st) * (1000000000ull / (uint64_t)(hz > 0 ? hz : 100));
    return 0;
}

int target_runtime(int sched_fd, uint64_t *ns)
{
    char buf[128];
    ssize_t n = pread(sched_fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    char *end;
    *ns = strtoull(buf, &end, 10);
    return end == buf ? -1 : 0;
}

int target_tasks(pid_t pid, int (*fn)(void *ctx, pid_t tid), void *ctx)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d) {
        if (errno == ENOENT)
            errno = ESRCH;
        return -1;
    }
    int rc = 0;
    struct dirent *de;
    while (!rc && (de = readdir(d))) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        rc = fn(ctx, (pid_t)atoi(de->d_name));
    }
    int e = errno;
    closedir(d);
    errno = e;
    return rc;
}

void target_thread_name(pid_t pid, pid_t tid, char *buf, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/comm", (int)pid, (int)tid);
    if (read_file(path, buf, len) < 0)
        buf[0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
}

void target_cmdline(pid_t pid, char *buf, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    ssize_t n = read_file(path, buf, len);
    if (n <= 0) {
        comm_of(pid, buf, len);
        return;
    }
    for (ssize_t i = 0; i < n; i++)
        if (buf[i] == '\0')
            buf[i] = ' ';
    while (n > 0 && buf[n - 1] == ' ')
        buf[--n] = '\0';
}

pid_t target_ns_pid(pid_t pid)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    if (read_file(path, buf, sizeof buf) < 0)
        return pid;
    char *p = strstr(buf, "\nNSpid:");
    if (!p)
        return pid;
    p += 7;
    p[strcspn(p, "\n")] = '\0';
    pid_t r = pid;
    for (char *end;; p = end) {
        long v = strtol(p, &end, 10);
        if (end == p)
            break;
        r = (pid_t)v;
    }
    return r;
}

uint64_t target_unblocked_pending(pid_t pid, pid_t tid)
{
    char path[80], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/task/%d/status", (int)pid, (int)tid);
    if (read_file(path, buf, sizeof buf) < 0)
        return 0;
    uint64_t pnd = 0, shd = 0, blk = 0;
    char *p;
    if ((p = strstr(buf, "\nSigPnd:")))
        pnd = strtoull(p + 8, NULL, 16);
    if ((p = strstr(buf, "\nShdPnd:")))
        shd = strtoull(p + 8, NULL, 16);
    if ((p = strstr(buf, "\nSigBlk:")))
        blk = strtoull(p + 8, NULL, 16);
    return (pnd | shd) & ~blk;
}

int target_syscall_sp_pc(int syscall_fd, uint64_t *sp, uint64_t *pc)
{
    char buf[256];
    ssize_t n = pread(syscall_fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    if (strncmp(buf, "running", 7) == 0)
        return -1;
    /* "nr a1 a2 a3 a4 a5 a6 sp pc" or "-1 sp pc": the last two fields */
    char *last = strrchr(buf, ' ');
    if (!last)
        return -1;
    *last = '\0';
    char *prev = strrchr(buf, ' ');
    if (!prev)
        return -1;
    *pc = strtoull(last + 1, NULL, 16);
    *sp = strtoull(prev + 1, NULL, 16);
    return 0;
}

int target_spawn(struct target_spawn *sp, char *const *argv, bool quiet,
                 int out_fd, char *err, size_t errlen)
{
    int go[2], ep[2];
    if (pipe2(go, O_CLOEXEC) < 0) {
        snprintf(err, errlen, "cannot launch: %s", strerror(errno));
        return -1;
    }
    if (pipe2(ep, O_CLOEXEC) < 0) {
        snprintf(err, errlen, "cannot launch: %s", strerror(errno));
        close(go[0]);
        close(go[1]);
        return -1;
    }
    pid_t child = fork();
    if (child < 0) {
        snprintf(err, errlen, "cannot launch %s: %s", argv[0], strerror(errno));
        close(go[0]), close(go[1]), close(ep[0]), close(ep[1]);
        return -1;
    }
    if (child == 0) {
        /* wait for the go, then exec with a clean signal mask
         * (pthread_sigmask: the call for a threaded program; the
         * sigprocmask that unwind.c defines is libunwind's alone) */
        sigset_t none;
        sigemptyset(&none);
        pthread_sigmask(SIG_SETMASK, &none, NULL);
        close(go[1]);
        close(ep[0]);
        char c;
        while (read(go[0], &c, 1) < 0 && errno == EINTR)
            ;
        if (quiet) {
            int fd = open("/dev/null", O_RDWR);
            if (fd >= 0) {
                dup2(fd, 0), dup2(fd, 1), dup2(fd, 2);
                if (fd > 2)
                    close(fd);
            }
        }
        if (out_fd >= 0)
            dup2(out_fd, 1), dup2(out_fd, 2);
        execvp(argv[0], argv);
        int e = errno;
        if (write(ep[1], &e, sizeof e) < 0)
            _exit(127);
        _exit(127);
    }
    close(go[0]);
    close(ep[1]);
    sp->pid = child;
    sp->go_fd = go[1];
    sp->err_fd = ep[0];
    return 0;
}

int target_spawn_go(struct target_spawn *sp, const char *cmd, char *err,
                    size_t errlen)
{
    if (write(sp->go_fd, "g", 1) < 0) {
        /* the child is gone; its exit shows up later */
    }
    close(sp->go_fd);
    sp->go_fd = -1;
    /* exec succeeded when the error pipe closes with nothing in it */
    int e = 0;
    ssize_t n;
    while ((n = read(sp->err_fd, &e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(sp->err_fd);
    sp->err_fd = -1;
    if (n == (ssize_t)sizeof e) {
        snprintf(err, errlen, "cannot run %s: %s", cmd, strerror(e));
        /* __WALL: the child may be traced */
        while (waitpid(sp->pid, NULL, __WALL) < 0 && errno == EINTR)
            ;
        return -1;
    }
    return 0;
}

void target_spawn_abort(struct target_spawn *sp)
{
    kill(sp->pid, SIGKILL);
    /* __WALL: the child may be traced */
    while (waitpid(sp->pid, NULL, __WALL) < 0 && errno == EINTR)
        ;
    if (sp->go_fd >= 0)
        close(sp->go_fd);
    if (sp->err_fd >= 0)
        close(sp->err_fd);
    sp->go_fd = sp->err_fd = -1;
}

static int pid_cmp(const void *a, const void *b)
{
    pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

    return (x > y) - (x < y);
}

/* A process whose comm matches re, not a kernel thread (PF_KTHREAD: it
 * has no user memory, so nothing to sample) nor a zombie. */
static bool name_matches(pid_t pid, const regex_t *re)
{
    char comm[64], st[64];

    target_thread_name(pid, pid, comm, sizeof comm);
    if (!comm[0] || regexec(re, comm, 0, NULL, 0) != 0)
        return false;
    snprintf(st, sizeof st, "/proc/%d/stat", (int)pid);
    int fd = open(st, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    char buf[1024];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    unsigned long flags = 0;
    char state = 0;
    /* ") S ppid pgrp session tty tpgid flags" */
    if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %lu", &state,
                     &flags) != 2)
        return false;
    return state != 'Z' && state != 'X' && !(flags & 0x00200000ul);
}

int target_find_by_name(const char *name, pid_t *pids, size_t max,
                        char *err, size_t errlen)
{
    regex_t re;
    int rc = regcomp(&re, name, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char why[128];
        regerror(rc, &re, why, sizeof why);
        snprintf(err, errlen, "bad process name pattern '%s': %s", name, why);
        return -1;
    }
    DIR *d = opendir("/proc");
    if (!d) {
        snprintf(err, errlen, "cannot read /proc: %s", strerror(errno));
        regfree(&re);
        return -1;
    }
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0 || pid == (long)getpid() ||
            !name_matches((pid_t)pid, &re))
            continue;
        if (n < max)
            pids[n] = (pid_t)pid;
        n++;
    }
    closedir(d);
    regfree(&re);
    sorted_sort(pids, n < max ? n : max, sizeof *pids, pid_cmp);
    return (int)n;
}
