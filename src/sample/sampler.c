/* sampler.c - the sampling interface: chooses a backend by what it can
 * do, starts it and dispatches to it through its table.  See sampler.h,
 * backend.h. */
#include "sampler.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "bounds.h"

/* The registry: every backend of this build, each defined in its own
 * room and named nowhere else (a backend includes backend.h, never this
 * file's header, so no arrow runs back from it to here). */
extern const struct sampler_backend perf_backend;   /* src/sample/perf/ */
extern const struct sampler_backend ptrace_backend; /* src/sample/ptrace/ */

/* ...in the order `auto` tries them: the one that never stops the target
 * first. */
static const struct sampler_backend *const backends[] = {
    &perf_backend,
    &ptrace_backend,
};
#define NBACKENDS (sizeof backends / sizeof backends[0])

/* The words for each capability: what asks for it ("X needs"), and what
 * a backend without it cannot do.  The one place refusals are worded. */
static const struct {
    unsigned cap;
    const char *asks;
    const char *does;
} cap_words[] = {
    {SAMPLER_CAP_MANY, "several processes need", "sample more than one process"},
    {SAMPLER_CAP_CHILDREN, "--children needs",
     "follow the processes the targets fork"},
    {SAMPLER_CAP_ALL, "-a needs", "sample every process"},
    {SAMPLER_CAP_OFFCPU, "--idle needs", "sample blocked threads"},
    {SAMPLER_CAP_KERNEL, "kernel frames need", "read kernel frames"},
    {SAMPLER_CAP_SCRIPT, "script frames need", "read script frames"},
    {SAMPLER_CAP_DUMP, "--dump needs", "stop every thread once"},
    {SAMPLER_CAP_NOSTOP, "sampling without stops needs",
     "sample without stopping the target"},
};
#define NCAPWORDS (sizeof cap_words / sizeof cap_words[0])

void sampler_config_default(struct sampler_config *c)
{
    memset(c, 0, sizeof *c);
    c->kind = SAMPLER_AUTO;
    c->max_depth = 512;
    c->placement = SAMPLER_PLACE_FREE;
    c->spin_us = 50;
    c->child_out = -1;
    c->kernel_frames = true;
    c->reasons = true;
}

int sampler_kind_parse(const char *name)
{
    if (strcmp(name, "auto") == 0)
        return SAMPLER_AUTO;
    for (size_t i = 0; i < NBACKENDS; i++)
        if (strcmp(name, backends[i]->name) == 0)
            return (int)i + 1;
    return -1;
}

/* What cfg asks of a backend. */
static unsigned needs_of(const struct sampler_config *cfg)
{
    return (cfg->npids > 1 ? SAMPLER_CAP_MANY : 0u) |
           (cfg->children ? SAMPLER_CAP_CHILDREN : 0u) |
           (cfg->all ? SAMPLER_CAP_ALL : 0u) |
           (cfg->idle ? SAMPLER_CAP_OFFCPU : 0u);
}

/* The backends that may serve `need` for kind, in auto's order, into
 * out; how many. */
static size_t candidates(int kind, unsigned need,
                         const struct sampler_backend **out)
{
    size_t n = 0;
    for (size_t i = 0; i < NBACKENDS; i++)
        if ((kind == SAMPLER_AUTO || kind == (int)i + 1) &&
            (backends[i]->caps & need) == need)
            out[n++] = backends[i];
    return n;
}

/* The titles of the backends with every cap of `caps`, as "the X" or
 * "the X or the Y" (titles) or "X sampler" (names); "" when none. */
static const char *who_can(unsigned caps, bool titles, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < NBACKENDS && n < len; i++) {
        if ((backends[i]->caps & caps) != caps)
            continue;
        n += (size_t)snprintf(buf + n, len - n, "%s%s%s", n ? " or " : "",
                              titles ? "the " : "",
                              titles ? backends[i]->title : backends[i]->name);
    }
    if (n && !titles && n < len)
        snprintf(buf + n, len - n, " sampler");
    return buf;
}

/* The one refusal of a config: kind (a backend, or auto) cannot do all
 * that `need` asks.  Fills err; returns the exit code (2: usage). */
static int refuse(int kind, unsigned need, char *err, size_t errlen)
{
    const struct sampler_backend *b = kind ? backends[kind - 1] : NULL;
    char who[96];
    for (size_t i = 0; i < NCAPWORDS; i++) {
        unsigned cap = cap_words[i].cap;
        if (!(need & cap) || (b && (b->caps & cap)))
            continue;
        if (!*who_can(cap, true, who, sizeof who))
            snprintf(err, errlen, "%s a sampler that can %s: none can yet",
                     cap_words[i].asks, cap_words[i].does);
        else if (b)
            snprintf(err, errlen, "%s %s sampler: --sampler %s cannot %s",
                     cap_words[i].asks, who, b->name, cap_words[i].does);
        else
            continue; /* auto: a backend has it, but not with the rest */
        return 2;
    }
    snprintf(err, errlen, "no sampler can do all that was asked at once");
    return 2;
}

/* The config a backend gets: its own defaults where the caller set none. */
static void apply_defaults(struct sampler_config *cfg,
                           const struct sampler_config *in,
                           const struct sampler_backend *b)
{
    *cfg = *in;
    cfg->kind = SAMPLER_AUTO;
    cfg->stack_max = in->stack_max_set ? in->stack_max : b->default_stack;
    if (cfg->stack_max > b->max_stack)
        cfg->stack_max = b->max_stack;
    cfg->interval_ns = in->interval_set ? in->interval_ns
                                        : 1000000000ull / b->default_hz;
}

static void set_fallback(char *buf, size_t len,
                         const struct sampler_refusal *why,
                         const struct sampler_backend *next)
{
    snprintf(buf, len, "%s: using %s; %s for the faster sampler", why->cause,
             next->name, why->fix);
}

/* Why backend b (without SAMPLER_CAP_KERNEL) gives no kernel frames,
 * and which backend does, in one line, from the capabilities. */
static void no_kernel(const struct sampler_backend *b, char *buf, size_t len)
{
    const struct sampler_backend *k = NULL;
    for (size_t i = 0; i < NBACKENDS && !k; i++)
        if (backends[i]->caps & SAMPLER_CAP_KERNEL)
            k = backends[i];
    if (k)
        snprintf(buf, len, "kernel frames off: the %s backend sees user "
                 "stacks only; use --sampler %s (%s) for them", b->name,
                 k->name, k->title);
    else
        snprintf(buf, len, "kernel frames off: the %s backend sees user "
                 "stacks only", b->name);
}

struct sampler *sampler_start(const struct sampler_config *in, char *err,
                              size_t errlen, int *code)
{
    const struct sampler_backend *cand[NBACKENDS];
    size_t n = candidates(in->kind, needs_of(in), cand);
    char fallback[sizeof ((struct sampler *)0)->fallback] = "";
    struct sampler_config cfg;
    struct sampler *s = NULL;
    *code = 1;
    if (n == 0) {
        *code = refuse(in->kind, needs_of(in), err, errlen);
        return NULL;
    }
    for (size_t i = 0; i < n && !s; i++) {
        bool last = i + 1 == n;
        struct sampler_refusal why = {0};
        apply_defaults(&cfg, in, cand[i]);
        /* a refusal we can see coming leaves the next backend to do the
         * work; a target that cannot be profiled is an error for all */
        if (!last && cand[i]->probe && cand[i]->probe(&cfg, &why) < 0 &&
            why.denied) {
            set_fallback(fallback, sizeof fallback, &why, cand[i + 1]);
            continue;
        }
        s = cand[i]->start(&cfg, err, errlen, code, &why);
        /* never launch a command twice */
        if (!s && (last || !why.denied || in->argv))
            return NULL;
        if (!s)
            set_fallback(fallback, sizeof fallback, &why, cand[i + 1]);
    }
    snprintf(s->fallback, sizeof s->fallback, "%s", fallback);
    s->stack_bytes = (uint32_t)cfg.stack_max;
    /* a backend with SAMPLER_CAP_KERNEL says itself why the kernel
     * refused them (its start, above) */
    if (!cfg.kernel_frames)
        snprintf(s->kernel_off, sizeof s->kernel_off,
                 "kernel frames off (--no-kernel)");
    else if (!(s->ops->caps & SAMPLER_CAP_KERNEL))
        no_kernel(s->ops, s->kernel_off, sizeof s->kernel_off);
    return s;
}

int sampler_dump(const struct sampler_config *in,
                 void (*fn)(void *ctx, const struct sampler_dump_thread *t),
                 char *err, size_t errlen, int *code)
{
    const struct sampler_backend *cand[NBACKENDS];
    size_t n = candidates(in->kind, SAMPLER_CAP_DUMP, cand);
    if (n == 0) {
        *code = refuse(in->kind, SAMPLER_CAP_DUMP, err, errlen);
        return -1;
    }
    struct sampler_config cfg;
    apply_defaults(&cfg, in, cand[0]);
    return cand[0]->dump(&cfg, fn, err, errlen, code);
}

void sampler_describe_auto(bool idle, char *buf, size_t len)
{
    struct sampler_config in, cfg;
    const struct sampler_backend *cand[NBACKENDS];
    sampler_config_default(&in);
    in.idle = idle;
    size_t n = candidates(SAMPLER_AUTO, needs_of(&in), cand);
    struct sampler_refusal first = {0};
    for (size_t i = 0; i < n; i++) {
        struct sampler_refusal why = {0};
        apply_defaults(&cfg, &in, cand[i]);
        if (i + 1 < n && cand[i]->probe && cand[i]->probe(&cfg, &why) < 0) {
            if (i == 0)
                first = why;
            continue;
        }
        if (i == 0)
            snprintf(buf, len, "%s (permitted)", cand[i]->name);
        else
            snprintf(buf, len, "%s (%s; %s for the faster sampler)",
                     cand[i]->name, first.cause, first.fix);
        return;
    }
    snprintf(buf, len, "none");
}

int sampler_describe_kernel(char *buf, size_t len)
{
    struct sampler_config in, cfg;
    const struct sampler_backend *cand[NBACKENDS];
    sampler_config_default(&in);
    size_t n = candidates(SAMPLER_AUTO, needs_of(&in), cand);
    for (size_t i = 0; i < n; i++) {
        struct sampler_refusal why = {0};
        apply_defaults(&cfg, &in, cand[i]);
        if (i + 1 < n && cand[i]->probe && cand[i]->probe(&cfg, &why) < 0)
            continue; /* auto would not pick it */
        if (!(cand[i]->caps & SAMPLER_CAP_KERNEL)) {
            no_kernel(cand[i], buf, len);
            return -1;
        }
        if (cand[i]->kernel_probe && cand[i]->kernel_probe(&cfg, buf, len) < 0)
            return -1;
        snprintf(buf, len, "%s's kernel call chains", cand[i]->title);
        return 0;
    }
    snprintf(buf, len, "kernel frames off: no sampler here");
    return -1;
}

/* "16K", "256K", or the number of bytes. */
static const char *size_text(size_t b, char *buf, size_t len)
{
    if (b % 1024 == 0)
        snprintf(buf, len, "%zuK", b / 1024);
    else
        snprintf(buf, len, "%zu", b);
    return buf;
}

/* The --help phrase of backend b for `what`, appended at buf + *n. */
static void about_one(enum sampler_about what, const struct sampler_backend *b,
                      char *buf, size_t len, size_t *n)
{
    char a[24], m[24];
    const char *sep = *n ? (what == SAMPLER_ABOUT_STACK ? "; " : ", ") : "";
    if (*n >= len)
        return;
    if (what == SAMPLER_ABOUT_RATE)
        *n += (size_t)snprintf(buf + *n, len - *n, "%s%s%s %u", sep, b->name,
                               *sep ? "" : " sampler", b->default_hz);
    else if (b->max_stack < SIZE_MAX)
        *n += (size_t)snprintf(buf + *n, len - *n, "%s%s: %s, at most %s", sep,
                               b->name, size_text(b->default_stack, a, sizeof a),
                               size_text(b->max_stack, m, sizeof m));
    else
        *n += (size_t)snprintf(buf + *n, len - *n, "%s%s: %s", sep, b->name,
                               size_text(b->default_stack, a, sizeof a));
}

const char *sampler_about(enum sampler_about what, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    switch (what) {
    case SAMPLER_ABOUT_RATE:
    case SAMPLER_ABOUT_STACK:
        for (size_t i = 0; i < NBACKENDS; i++)
            about_one(what, backends[i], buf, len, &n);
        return buf;
    case SAMPLER_ABOUT_CHILDREN:
        return who_can(SAMPLER_CAP_CHILDREN, false, buf, len);
    case SAMPLER_ABOUT_KERNEL:
        return who_can(SAMPLER_CAP_KERNEL, false, buf, len);
    case SAMPLER_ABOUT_ALL:
        for (size_t i = 0; i < NBACKENDS; i++)
            if ((backends[i]->caps & SAMPLER_CAP_ALL) && backends[i]->all_needs) {
                snprintf(buf, len, "%s", backends[i]->all_needs);
                break;
            }
        return buf;
    }
    return buf;
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
    s->ops->set_interval(s, sp_interval_clamp(interval_ns));
}

void sampler_get_stats(struct sampler *s, struct sampler_stats *out)
{
    s->ops->get_stats(s, out);
    out->backend = s->ops->name;
    out->caps = s->ops->caps;
    out->stack_bytes = s->stack_bytes;
    snprintf(out->fallback, sizeof out->fallback, "%s", s->fallback);
    snprintf(out->kernel_off, sizeof out->kernel_off, "%s", s->kernel_off);
    out->kernel_stacks = s->kernel_stacks;
}

void sampler_print_stats(struct sampler *s, FILE *f)
{
    if (s->ops->print_stats)
        s->ops->print_stats(s, f);
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
    return s->pid;
}
