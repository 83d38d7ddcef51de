/* sampler.h - the sampling interface: start, stop, pause, interval,
 * stats and threads, whichever backend takes the samples.
 *
 * A backend attaches to a target (or launches it), takes samples of its
 * threads' user stacks on a thread of its own, unwinds each copy
 * (unwind.h) and appends raw stacks (pcs) to the ingest buffer, each
 * record naming its process; it announces each process through
 * cfg->on_process and reports maps changes through cfg->on_maps before
 * any sample of the new generation.  Nothing above this interface
 * (collect, batch, the UI) knows which backend runs: what a backend can
 * do is data (enum sampler_cap), sampler_start chooses by it, and its
 * refusals and its own figures come from here.
 *
 * The types (config, figures, capabilities) are in backend.h, which also
 * says what a backend implements; the table of what each can do is in
 * docs/ARCHITECTURE.md, "The samplers".  The backends:
 *   - perf (src/sample/perf/): the kernel samples each thread from a
 *     cpu-clock timer and copies its user registers and the top of its
 *     stack into a ring buffer; the target never stops.  Serves several
 *     processes with one thread (a PID list, --children, -a).
 *   - ptrace (src/sample/ptrace/): PTRACE_SEIZE, interrupt each due
 *     thread, copy registers and stack, resume at once.  One process.
 * `auto` (the default) takes the first backend that can do what the
 * config asks and that the kernel permits, and says why when it falls
 * back.
 *
 * The calls below may be made from one controlling thread (the
 * collector's owner: main or UI thread) unless they say otherwise; each
 * backend does its work on its own thread and these calls take only
 * short locks.
 */
#ifndef SPROFTOP_SAMPLER_H
#define SPROFTOP_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "backend.h"

/* Fill defaults: on-CPU, 512 frames, backend auto, a launched command's
 * output where sproftop's goes, kernel frames and off-CPU reasons on;
 * the rate and the stack copy size are left to the backend sampler_start
 * picks (struct sampler_backend). */
void sampler_config_default(struct sampler_config *c);

/* Start sampling with the backend cfg->kind names, or (auto) the first
 * of the registry that can do what cfg asks (SAMPLER_CAP_MANY for
 * several pids, _CHILDREN, _ALL, _OFFCPU for idle) and that the kernel
 * permits; it attaches (or launches and attaches).  Returns once
 * attached.  On failure returns NULL, with a one-line reason in err
 * (naming the cause and the fix), and sets *code to the exit code to use
 * (1 runtime failure, 2 usage: no backend asked for can do it).
 * Controlling thread. */
struct sampler *sampler_start(const struct sampler_config *cfg, char *err,
                              size_t errlen, int *code);

/* Ask the sampler to stop and wait for its thread to end, which detaches
 * from every thread.  Stats stay readable.  Idempotent; safe once the
 * target has exited.  Controlling thread. */
void sampler_halt(struct sampler *s);

/* sampler_halt, then free everything.  NULL is a no-op. */
void sampler_stop(struct sampler *s);

/* Pause/resume sampling; the target runs free while paused.  Any thread. */
void sampler_set_paused(struct sampler *s, bool paused);

/* Change the interval (clamped to 100 us .. 1 s); effective at once.
 * Any thread. */
void sampler_set_interval(struct sampler *s, uint64_t interval_ns);

/* Current figures (a consistent copy).  Any thread. */
void sampler_get_stats(struct sampler *s, struct sampler_stats *out);

/* --stats: the lines of figures only this backend has (none is fine).
 * Any thread; takes the backend's stats lock to copy them. */
void sampler_print_stats(struct sampler *s, FILE *f);

/* Per-thread figures: calls fn for every thread ever sampled, under the
 * backend's stats lock (fn must not call back into the sampler). */
void sampler_foreach_thread(struct sampler *s,
                            void (*fn)(void *ctx,
                                       const struct sampler_thread_stats *t),
                            void *ctx);

/* The PID of the target (the launched child's once launched; the first
 * listed of several; 0 with `all`). */
pid_t sampler_pid(struct sampler *s);

/* --dump: stop every thread of cfg->pid once, copy its registers and
 * stack, let it go, and unwind the copies, with the backend cfg->kind
 * names or (auto) the first with SAMPLER_CAP_DUMP.  cfg->on_maps gets
 * the maps the stacks are unwound with, then fn (ctx: cfg->ctx) every
 * thread, in thread-id order, the ones that did not stop last.  0, or
 * -1 with a one-line reason in err and the exit code in *code.  The
 * calling thread makes the backend's calls itself. */
int sampler_dump(const struct sampler_config *cfg,
                 void (*fn)(void *ctx, const struct sampler_dump_thread *t),
                 char *err, size_t errlen, int *code);

/* Parse a --sampler value: "auto", or a backend's name.  The enum
 * sampler_kind, or -1. */
int sampler_kind_parse(const char *name);
/* The values sampler_kind_parse takes, for messages. */
#define SAMPLER_NAMES "auto, perf or ptrace"

/* For --version: which backend `auto` would pick for a process of this
 * user, and why (one line, with the fix when it is not the first).
 * Probes the backends on the calling process.  Any thread. */
void sampler_describe_auto(bool idle, char *buf, size_t len);

/* For --version: whether the backend `auto` would pick for a process of
 * this user gives kernel frames: 0 with the phrase that says where they
 * come from ("perf_event's kernel call chains") in buf, or -1 with why
 * not and the fix, in one line ("kernel frames off: ...").  Probes the
 * backends on the calling process.  Any thread. */
int sampler_describe_kernel(char *buf, size_t len);

/* What --help says of the backends, from their table (one phrase, no
 * newline): */
enum sampler_about {
    SAMPLER_ABOUT_RATE,   /* each one's default rate */
    SAMPLER_ABOUT_STACK,  /* each one's stack copy (and its bound) */
    SAMPLER_ABOUT_CHILDREN, /* which can follow forked processes */
    SAMPLER_ABOUT_ALL,    /* what sampling every process needs */
    SAMPLER_ABOUT_KERNEL, /* which can read kernel frames */
};
/* The phrase for `what` in buf (len bytes); returns buf. */
const char *sampler_about(enum sampler_about what, char *buf, size_t len);

#endif
