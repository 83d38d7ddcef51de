/* sampler.c - the sampling interface: picks a backend and dispatches to
 * it.  See sampler.h. */
#include "sampler.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "ksyms.h"
#include "perf_sampler.h"
#include "ptrace_sampler.h"

void sampler_config_default(struct sampler_config *c)
{
    memset(c, 0, sizeof *c);
    c->kind = SAMPLER_AUTO;
    c->interval_ns = 1000000000ull / SAMPLER_PTRACE_HZ;
    c->stack_max = SAMPLER_PTRACE_STACK;
    c->max_depth = 512;
    c->placement = SAMPLER_PLACE_FREE;
    c->spin_us = 50;
    c->child_out = -1;
    c->kernel_frames = true;
    c->reasons = true;
}

int sampler_kind_parse(const char *name)
{
    static const char *const names[] = {"auto", "perf", "ptrace"};
    for (int i = 0; i < 3; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

/* What a backend picks for itself when the caller did not set it. */
static void use_backend_defaults(struct sampler_config *cfg, const struct sampler_config *in,
                                 bool perf)
{
    cfg->stack_max = in->stack_max_set ? in->stack_max
        : perf ? SAMPLER_PERF_STACK : SAMPLER_PTRACE_STACK;
    cfg->interval_ns = in->interval_set ? in->interval_ns
        : 1000000000ull / (perf ? SAMPLER_PERF_HZ : SAMPLER_PTRACE_HZ);
}

static void set_fallback(char *buf, size_t len, const struct perf_refusal *why)
{
    snprintf(buf, len, "%s: using ptrace; %s for the faster sampler", why->cause, why->fix);
}

struct sampler *sampler_start(const struct sampler_config *cfg_in, char *err,
                              size_t errlen, int *code)
{
    struct sampler_config cfg = *cfg_in;
    char fallback[sizeof ((struct sampler *)0)->fallback] = "";
    struct sampler *s = NULL;
    if (cfg.kind != SAMPLER_PTRACE) {
        use_backend_defaults(&cfg, cfg_in, true);
        if (cfg.stack_max > SAMPLER_PERF_STACK_MAX)
            cfg.stack_max = SAMPLER_PERF_STACK_MAX;
        struct perf_refusal why;
        /* auto: a refusal we can see coming leaves ptrace to do the work;
         * a target that cannot be profiled is an error for both */
        if (cfg.kind == SAMPLER_AUTO && perf_sampler_probe(&cfg, &why) < 0 && why.denied) {
            set_fallback(fallback, sizeof fallback, &why);
        } else {
            s = perf_sampler_start(&cfg, err, errlen, code, &why);
            /* never launch a command twice */
            if (!s && cfg.kind == SAMPLER_AUTO && why.denied && !cfg.argv)
                set_fallback(fallback, sizeof fallback, &why);
            else
                goto out;
        }
    }
    use_backend_defaults(&cfg, cfg_in, false);
    s = ptrace_backend.start(&cfg, err, errlen, code);
    if (s)
        snprintf(s->kernel_off, sizeof s->kernel_off, "%s",
                 SAMPLER_PTRACE_NO_KERNEL);
out:
    if (s) {
        snprintf(s->fallback, sizeof s->fallback, "%s", fallback);
        s->stack_bytes = (uint32_t)cfg.stack_max;
    }
    return s;
}

void sampler_describe_auto(bool idle, char *buf, size_t len)
{
    struct sampler_config cfg;
    sampler_config_default(&cfg);
    cfg.idle = idle;
    struct perf_refusal why;
    if (perf_sampler_probe(&cfg, &why) == 0)
        snprintf(buf, len, "perf (perf_event_open permitted)");
    else
        snprintf(buf, len, "ptrace (%s; %s for the faster sampler)", why.cause, why.fix);
}

void sampler_describe_kernel(const char *kallsyms, char *buf, size_t len)
{
    struct sampler_config cfg;
    sampler_config_default(&cfg);
    struct perf_refusal why;
    char names[200];
    if (perf_sampler_probe(&cfg, &why) < 0)
        snprintf(buf, len, "%s", SAMPLER_PTRACE_NO_KERNEL);
    else if (!perf_sampler_kernel_allowed(&cfg, buf, len))
        return;
    else if (ksyms_refusal(kallsyms, names, sizeof names))
        snprintf(buf, len, "%s", names);
    else
        snprintf(buf, len, "kernel frames on (perf_event's kernel call chains, named "
                 "from %s)", kallsyms ? kallsyms : KSYMS_PROC);
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
    out->stack_bytes = s->stack_bytes;
    snprintf(out->fallback, sizeof out->fallback, "%s", s->fallback);
    snprintf(out->kernel_off, sizeof out->kernel_off, "%s", s->kernel_off);
    out->kernel_stacks = s->kernel_stacks;
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

void sampler_stats_set_exit(struct sampler_stats *st, int status)
{
    if (WIFEXITED(status)) {
        st->exit_code = WEXITSTATUS(status);
        st->exit_known = true;
    } else if (WIFSIGNALED(status)) {
        st->exit_signal = WTERMSIG(status);
        st->exit_known = true;
    }
}

void sampler_join(pthread_t thread, atomic_bool *stop, bool *joined)
{
    atomic_store(stop, true);
    if (!*joined) {
        pthread_join(thread, NULL);
        *joined = true;
    }
}
