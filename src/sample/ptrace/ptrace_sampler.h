/* ptrace_sampler.h - the ptrace backend of the sampling interface.
 *
 * The sampler runs on its own thread, and that thread makes every ptrace
 * call: it seizes the target (PTRACE_SEIZE, never SIGSTOP), and at each
 * tick interrupts the due threads that are running, copies registers and
 * the top of the stack, resumes each thread at once, then unwinds the
 * copies and appends raw stacks (pcs) to the ingest buffer.
 *
 * The target is sacred:
 *   - default (on-CPU) mode never interrupts a thread that is blocked in
 *     the kernel, and a syscall that still returns EINTR because of our
 *     interrupt (a race of a few microseconds) is restarted;
 *   - signals that arrive during a stop are re-injected; group-stop
 *     (kill -STOP) is respected with PTRACE_LISTEN;
 *   - every wait is bounded; a thread slow to stop never delays others;
 *   - detaching is done by the kernel when the sampler thread exits, which
 *     releases even threads that are blocked, without interrupting them.
 *
 * Reached only through sampler.h (sampler_start picks it).  Its parts are
 * listed in ptrace_int.h; --dump (dump.c) reuses them.
 */
#ifndef SPROFTOP_PTRACE_SAMPLER_H
#define SPROFTOP_PTRACE_SAMPLER_H

#include "sampler.h"

extern const struct sampler_backend ptrace_backend;

#endif
