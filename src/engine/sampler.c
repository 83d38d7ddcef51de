/* sampler.c - the sampling interface: picks a backend and dispatches to
 * it.  See sampler.h. */
#include "sampler.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "ptrace_sampler.h"

void sampler_config_default(struct sampler_config *c)
{
    memset(c, 0, sizeof *c);
    c->kind = SAMPLER_AUTO;
    c->interval_ns = 1000000000ull / 99;
    c->stack_max = 256 * 1024;
    c->max_depth = 512;
    c->placement = SAMPLER_PLACE_FREE;
    c->spin_us = 50;
    c->child_out = -1;
}

struct sampler *sampler_start(const struct sampler_config *cfg, char *err,
                              size_t errlen, int *code)
{
    return ptrace_backend.start(cfg, err, errlen, code);
}

void sampler_halt(struct sampler *s)
{
    s->ops->halt(s);
}

void sampler_stop(struct sampler *s)
{
    if (s)
        s->ops->free(s);
}

void sampler_set_paused(struct sampler *s, bool paused)
{
    s->ops->set_paused(s, paused);
}

void sampler_set_interval(struct sampler *s, uint64_t interval_ns)
{
    if (interval_ns < 100000)
        interval_ns = 100000;
    if (interval_ns > 1000000000ull)
        interval_ns = 1000000000ull;
    s->ops->set_interval(s, interval_ns);
}

void sampler_get_stats(struct sampler *s, struct sampler_stats *out)
{
    s->ops->get_stats(s, out);
    out->backend = s->ops->name;
}

void sampler_foreach_thread(struct sampler *s,
                            void (*fn)(void *ctx,
                                       const struct sampler_thread_stats *t),
                            void *ctx)
{
    s->ops->foreach_thread(s, fn, ctx);
}

pid_t sampler_pid(struct sampler *s)
{
    return s->ops->pid(s);
}

const char *sampler_name(const struct sampler *s)
{
    return s->ops->name;
}

void sampler_block_signals(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGQUIT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
}
