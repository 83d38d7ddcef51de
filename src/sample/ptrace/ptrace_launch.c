/* ptrace_launch.c - getting hold of the target: attach to a running
 * process, or launch the command; see ptrace_int.h.
 *
 * Launch (target_spawn, shared with the perf backend): the child waits on
 * a pipe until it is seized, then execs; a second pipe (close-on-exec)
 * brings back exec's errno, or closes empty when exec succeeded.  Every
 * descriptor is closed on every path, and a child that cannot be seized
 * is killed and reaped.
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

static int launch(struct pt_sampler *s, char *err, size_t errlen)
{
    struct target_spawn sp;
    if (target_spawn(&sp, s->cfg.argv, s->cfg.quiet_child, s->cfg.child_out,
                     err, errlen) < 0)
        return -1;
    s->pid = sp.pid;
    s->launch_pending = true;
    if (ptrace(PTRACE_SEIZE, sp.pid, 0, (void *)(long)PTRACE_O_TRACEEXEC) < 0) {
        snprintf(err, errlen, "cannot trace the launched command: %s", strerror(errno));
        target_spawn_abort(&sp);
        return -1;
    }
    if (!pt_threads_add(s, sp.pid)) {
        snprintf(err, errlen, "cannot launch %s: out of memory", s->cfg.argv[0]);
        target_spawn_abort(&sp);
        return -1;
    }
    return target_spawn_go(&sp, s->cfg.argv[0], err, errlen);
}

/* Seize the target, or launch it.  0, or -1 with a one-line reason and
 * the exit code to use.  Owner thread. */
int pt_attach(struct pt_sampler *s, char *err, size_t errlen, int *code)
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
