/* dump.h - --dump: every thread's stack, once, like eu-stack -p or gdb's
 * "thread apply all bt".
 *
 * Unlike sampling, it stops every thread, blocked ones included (an EINTR
 * it causes is undone as when sampling), copies registers and stack,
 * detaches at once, and only then unwinds and symbolizes.  The capture is
 * a backend's (sampler_dump: one with SAMPLER_CAP_DUMP; perf_event cannot
 * stop a thread); the names and the printing are here.
 */
#ifndef SPROFTOP_DUMP_H
#define SPROFTOP_DUMP_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Print the stack of every thread of pid to out, in thread-id order, with
 * the backend `kind` names (enum sampler_kind; auto: one that can):
 *
 *     Thread TID (NAME):
 *     #0   0x00000000004011d6 name (module) /path/file.c:12 [inlined]
 *     ...
 *     #N   [truncated: CAUSE]          (when the unwind stopped early)
 *
 * and a blank line after each thread; a thread that does not stop within
 * 1 s is listed with "(did not stop within 1 s; not shown)".  Returns 0,
 * or -1 with a one-line reason in err and the exit code to use in *code
 * (2 when `kind` cannot dump).  Main thread (the backend's calls are made
 * on it). */
int dump_run(pid_t pid, int kind, FILE *out, char *err, size_t errlen,
             int *code);

#endif
