/* dump.c - --dump; see dump.h. */
#include "dump.h"

#include <stdio.h>

#include "sampler.h"
#include "symbols.h"
#include "target.h"

#define DUMP_DEPTH 512             /* frames unwound per thread */
#define DUMP_INLINE 16             /* frames one address can expand to */

struct dump {
    struct symbols *sym;
    FILE *out;
};

static void print_frames(FILE *out, struct symbols *sym, const uint64_t *pcs,
                         int n, enum unwind_end end)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        struct sym_frame sf[DUMP_INLINE];
        int nf = symbols_lookup(sym, pcs[i], i > 0, sf, DUMP_INLINE);
        for (int j = 0; j < nf; j++) {
            fprintf(out, "#%-3d 0x%016llx %s", k++, (unsigned long long)pcs[i],
                    sf[j].name);
            if (sf[j].module)
                fprintf(out, " (%s)", sf[j].module);
            if (sf[j].file && sf[j].line)
                fprintf(out, " %s:%u", sf[j].file, sf[j].line);
            if (sf[j].inlined)
                fprintf(out, " [inlined]");
            fprintf(out, "\n");
        }
    }
    if (end != UNWIND_COMPLETE)
        fprintf(out, "#%-3d [truncated: %s]\n", k, unwind_end_name(end));
}

/* sampler_dump: the maps the stacks were unwound with */
static void on_maps(void *ctx, pid_t pid, uint64_t gen, const char *text,
                    size_t len)
{
    struct dump *d = ctx;
    (void)pid;
    (void)gen;
    symbols_load_maps(d->sym, text, len);
}

/* sampler_dump: one thread, in thread-id order */
static void on_thread(void *ctx, const struct sampler_dump_thread *t)
{
    struct dump *d = ctx;
    char name[32];
    target_thread_name(t->pid, t->tid, name, sizeof name);
    fprintf(d->out, "Thread %d (%s):\n", (int)t->tid, name);
    if (t->pcs)
        print_frames(d->out, d->sym, t->pcs, t->n, t->end);
    else
        fprintf(d->out, "    (did not stop within 1 s; not shown)\n");
    fprintf(d->out, "\n");
}

int dump_run(pid_t pid, int kind, FILE *out, char *err, size_t errlen,
             int *code)
{
    *code = 1;
    struct dump d = {.out = out};
    if (!(d.sym = symbols_new(NULL, pid, err, errlen)))
        return -1;
    struct sampler_config cfg;
    sampler_config_default(&cfg);
    cfg.kind = kind;
    cfg.pid = pid;
    cfg.max_depth = DUMP_DEPTH;
    cfg.on_maps = on_maps;
    cfg.ctx = &d;
    int rc = sampler_dump(&cfg, on_thread, err, errlen, code);
    symbols_free(d.sym);
    return rc;
}
