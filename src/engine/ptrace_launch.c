/* ptrace_launch.c - getting hold of the target: attach to a running
 * process, or launch the command; see ptrace_int.h.
 *
 * Launch: the child waits on a pipe until it is seized, then execs; a
 * second pipe (close-on-exec) brings back exec's errno, or closes empty
 * when exec succeeded.  Every descriptor is closed on every path, and a
 * child that cannot be seized is killed and reaped.
 */
#include "ptrace_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "target.h"

/* The child: wait until seized, then exec with a clean signal mask.  Only
 * async-signal-safe calls: the parent has other threads. */
__attribute__((noreturn))
static void child_exec(const struct sampler_config *cfg, int go, int ep)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    char c;
    while (read(go, &c, 1) < 0 && errno == EINTR)
        ;
    if (cfg->quiet_child) {
        int fd = open("/dev/null", O_RDWR);
        if (fd >= 0) {
            dup2(fd, 0), dup2(fd, 1), dup2(fd, 2);
            if (fd > 2)
                close(fd);
        }
    }
    if (cfg->child_out >= 0)
        dup2(cfg->child_out, 1), dup2(cfg->child_out, 2);
    execvp(cfg->argv[0], cfg->argv);
    int e = errno;
    if (write(ep, &e, sizeof e) < 0)
        _exit(127);
    _exit(127);
}

static void kill_child(pid_t child)
{
    kill(child, SIGKILL);
    while (waitpid(child, NULL, __WALL) < 0 && errno == EINTR)
        ;
}

/* Let the seized child exec; 0 when it did, -1 with err when exec
 * failed (the child is then reaped).  Closes go and ep. */
static int release_child(struct psampler *s, pid_t child, int go, int ep,
                         char *err, size_t errlen)
{
    if (write(go, "g", 1) < 0) {
        /* the child is gone; its exit shows up as an event */
    }
    close(go);
    int e = 0;
    ssize_t n;
    while ((n = read(ep, &e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(ep);
    if (n != (ssize_t)sizeof e)
        return 0;
    snprintf(err, errlen, "cannot run %s: %s", s->cfg.argv[0], strerror(e));
    int st;
    while (waitpid(child, &st, __WALL) < 0 && errno == EINTR)
        ;
    return -1;
}

static int launch(struct psampler *s, char *err, size_t errlen)
{
    int go[2], ep[2];
    if (pipe2(go, O_CLOEXEC) < 0) {
        snprintf(err, errlen, "cannot launch: %s", strerror(errno));
        return -1;
    }
    if (pipe2(ep, O_CLOEXEC) < 0) {
        snprintf(err, errlen, "cannot launch: %s", strerror(errno));
        close(go[0]), close(go[1]);
        return -1;
    }
    pid_t child = fork();
    if (child == 0)
        child_exec(&s->cfg, go[0], ep[1]);
    int fork_errno = errno;
    close(go[0]);
    close(ep[1]);
    if (child < 0) {
        snprintf(err, errlen, "cannot launch %s: %s", s->cfg.argv[0],
                 strerror(fork_errno));
        close(go[1]), close(ep[0]);
        return -1;
    }
    s->pid = child;
    s->launch_pending = true;
    if (ptrace(PTRACE_SEIZE, child, 0, (void *)(long)PTRACE_O_TRACEEXEC) < 0) {
        snprintf(err, errlen, "cannot trace the launched command: %s", strerror(errno));
        close(go[1]), close(ep[0]);
        kill_child(child);
        return -1;
    }
    if (!pt_threads_add(s, child)) {
        snprintf(err, errlen, "cannot launch %s: out of memory", s->cfg.argv[0]);
        close(go[1]), close(ep[0]);
        kill_child(child);
        return -1;
    }
    return release_child(s, child, go[1], ep[0], err, errlen);
}

/* Seize the target, or launch it.  0, or -1 with a one-line reason and
 * the exit code to use.  Owner thread. */
int pt_attach(struct psampler *s, char *err, size_t errlen, int *code)
{
    *code = 1;
    if (s->cfg.argv)
        return launch(s, err, errlen);
    if (target_precheck(s->pid, err, errlen) < 0)
        return -1;
    int first_errno = 0;
    if (pt_threads_rescan(s, true, &first_errno) <= 0) {
        target_explain_seize(s->pid, first_errno ? first_errno : ESRCH, err, errlen);
        return -1;
    }
    return 0;
}
