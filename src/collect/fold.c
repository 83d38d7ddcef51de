/* fold.c - ingest records -> symbolized stacks in the profile; see fold.h. */
#include "fold.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "idtab.h"
#include "ingest.h"
#include "ksyms.h"
#include "offcpu_reason.h"
#include "profile.h"
#include "script_frames.h"
#include "stackword.h"
#include "symbols.h"
#include "util.h"
#include "vec.h"
#include "window.h"

#define MAX_INLINE 16  /* frames one address can expand to */

/* The maps text of one generation, handed from the sampler. */
struct maps_gen {
    struct maps_gen *next;
    uint64_t gen;
    size_t len;
    char text[];
};

/* The frames of one (pc, is_return): pool[off .. off + n). */
struct pc_entry {
    uint32_t off;
    uint32_t n;
    uint8_t reason;  /* a kernel function's: offcpu_reason_of its name */
    bool irq;        /* a kernel function that enters interrupt work */
    bool unnamed;    /* a kernel address outside every symbol */
};

#define REASON_DEPTH 64  /* kernel frames the reason is looked for in */

/* The frames of every (pc, is_return) seen in one maps generation, so the
 * symbolizer is asked once per address and generation. */
struct pc_cache {
    struct pc_entry *v;        /* by id */
    size_t n, cap;
    struct idtab ids;          /* util_mix64(pc << 1 | is_return) -> id; a
                                  bijection, so the hash is the key */
    struct stack_frame *pool;  /* the frames of every entry */
    size_t npool, cappool;
};

struct fold {
    pthread_mutex_t maps_lock; /* guards incoming only */
    struct maps_gen *incoming; /* handed over, not taken yet; newest first */

    pthread_mutex_t own_lock;  /* the base's prof_lock */
    pthread_mutex_t *prof_lock;/* guards prof: own_lock, or the base's */
    pthread_mutex_t rebuild_lock; /* the base's: held by the collector
                                  while it builds a folded profile from
                                  prof without prof_lock (snapshots read
                                  prof meanwhile), and by a reset, the
                                  one writer of prof on another thread;
                                  taken before prof_lock */
    struct profile *prof;      /* owned by the base; siblings share it */
    struct fold *base;         /* NULL for a base; a sibling's base */
    atomic_uint_fast64_t own_generation;
    atomic_uint_fast64_t *generation; /* the base's */
    atomic_uint_fast64_t own_nsamples;
    atomic_uint_fast64_t own_serial;
    atomic_uint_fast64_t *serial; /* the base's: prof's newest thread
                                  serial, stored under prof_lock when a
                                  thread is made, read without it
                                  (fold_set_process, on the sampler
                                  thread, never waits for a snapshot) */
    atomic_uint_fast64_t *nsamples; /* the base's: prof's sample count,
                                  stored under prof_lock at each change,
                                  read without it (fold_samples: the
                                  UI's status never waits for a
                                  snapshot's copy) */

    /* collector thread only */
    struct symbols *sym;       /* NULL once released (fold_records met
                                  the process's INGEST_EXIT) */
    struct symbols_stats sym_st; /* its figures when it was released */
    bool released;
    struct maps_gen *gens;     /* taken, still wanted; newest first */
    uint64_t cur_gen;          /* generation `pcs` is for */
    struct pc_cache pcs;
    struct stack_frame *stack; /* scratch: one stack, bottom first */
    size_t capstack;
    uint32_t *code_frame;      /* interpreter code id (INGEST_CODE) ->
                                  frame id, PROFILE_NONE when unknown */
    size_t ncode, capcode;
    uint32_t f_truncated;      /* the "[truncated]" frame */
    struct ksyms *ksyms;       /* the session's kernel symbols, or NULL */
    bool show_kernel;          /* kernel frames go into the stacks */
    uint64_t ksyms_epoch;      /* of the names in the pc cache */
    uint32_t f_reason[OFFCPU_NREASONS]; /* reason frames, NONE until used */
    char kname[40];            /* "[kernel]+0x..." being interned */
    int64_t pid;               /* the process this fold's samples come
                                  from (fold_set_process), or 0 */
    uint64_t since;            /* the profile's newest thread serial when
                                  that process began: its threads are
                                  newer (profile_process_thread) */
    char comm[64];
    struct fold_stats st;      /* under prof_lock */
};

/* Publish prof's sample count for fold_samples.  Under prof_lock. */
static void note_samples(struct fold *f)
{
    atomic_store(f->nsamples, profile_sample_count(f->prof));
}

static void reasons_clear(struct fold *f)
{
    for (int i = 0; i < OFFCPU_NREASONS; i++)
        f->f_reason[i] = PROFILE_NONE;
}

static void pc_cache_clear(struct pc_cache *c)
{
    idtab_clear(&c->ids);
    c->n = 0;
    c->npool = 0;
}

static void pc_cache_free(struct pc_cache *c)
{
    idtab_free(&c->ids);
    free(c->v);
    free(c->pool);
}

struct fold *fold_new(void)
{
    struct fold *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->prof = profile_new();
    /* Each record weighs its ns (ingest_rec.weight): the profile too. */
    if (f->prof)
        (void)profile_set_weight_unit(f->prof, 1);
    struct frame_desc trunc = {.name = "[truncated]", .kind = FRAME_SPECIAL};
    /* Samples carry CLOCK_MONOTONIC times (struct ingest_rec): per-second
     * counts of the last minute for the recent window and the timeline. */
    if (!f->prof ||
        (f->f_truncated = profile_intern_frame(f->prof, &trunc)) == PROFILE_NONE ||
        profile_time_enable(f->prof, WINDOW_LIVE_SECONDS) < 0) {
        profile_free(f->prof);
        free(f);
        return NULL;
    }
    profile_time_set_wall_offset(f->prof,
                                 (int64_t)(clock_wall_ns() - clock_mono_ns()));
    reasons_clear(f);
    pthread_mutex_init(&f->maps_lock, NULL);
    pthread_mutex_init(&f->own_lock, NULL);
    pthread_mutex_init(&f->rebuild_lock, NULL);
    f->prof_lock = &f->own_lock;
    f->generation = &f->own_generation;
    f->nsamples = &f->own_nsamples;
    f->serial = &f->own_serial;
    return f;
}

struct fold *fold_new_sibling(struct fold *base)
{
    struct fold *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->base = base;
    f->prof = base->prof;
    f->prof_lock = base->prof_lock;
    f->generation = base->generation;
    f->nsamples = base->nsamples;
    f->serial = base->serial;
    f->f_truncated = base->f_truncated;
    reasons_clear(f);
    pthread_mutex_init(&f->maps_lock, NULL);
    return f;
}

static void free_gens(struct maps_gen *g)
{
    while (g) {
        struct maps_gen *next = g->next;
        free(g);
        g = next;
    }
}

void fold_free(struct fold *f)
{
    if (!f)
        return;
    free_gens(f->incoming);
    free_gens(f->gens);
    symbols_free(f->sym);
    if (!f->base)
        profile_free(f->prof);
    pc_cache_free(&f->pcs);
    free(f->stack);
    free(f->code_frame);
    pthread_mutex_destroy(&f->maps_lock);
    if (!f->base) {
        pthread_mutex_destroy(&f->own_lock);
        pthread_mutex_destroy(&f->rebuild_lock);
    }
    free(f);
}

void fold_set_symbols(struct fold *f, struct symbols *sym)
{
    f->sym = sym;
}

void fold_set_kernel(struct fold *f, struct ksyms *k, bool show)
{
    f->ksyms = k;
    f->show_kernel = show;
    /* k is the collector's: its epoch is read at the first fold_records
     * (a fold for a new process is made on the sampler thread) */
    f->ksyms_epoch = UINT64_MAX;
}

void fold_add_maps(struct fold *f, uint64_t gen, const char *text, size_t len)
{
    struct maps_gen *g = malloc(sizeof *g + len + 1);
    if (!g)
        return;
    g->gen = gen;
    g->len = len;
    memcpy(g->text, text, len);
    g->text[len] = '\0';
    pthread_mutex_lock(&f->maps_lock);
    g->next = f->incoming;
    f->incoming = g;
    pthread_mutex_unlock(&f->maps_lock);
}

static bool name_unknown(const char *s)
{
    return !s || !s[0] || strcmp(s, "?") == 0;
}

char *fold_maps_exe(const char *text, size_t len)
{
    size_t i = 0;
    while (text && i < len) {
        size_t end = i;
        while (end < len && text[end] != '\n')
            end++;
        const char *path = memchr(text + i, '/', end - i);
        if (path) {
            size_t n = (size_t)(text + end - path);
            char *exe = malloc(n + 1);
            if (exe) {
                memcpy(exe, path, n);
                exe[n] = '\0';
            }
            return exe;
        }
        i = end + 1;
    }
    return NULL;
}

/* The command name of the executable maps text names: its file name
 * (without " (deleted)"), cut to a command's 15 bytes, into out (16
 * bytes).  False when none. */
static bool exe_name(const char *text, char *out)
{
    char *exe = fold_maps_exe(text, strlen(text));
    if (!exe)
        return false;
    const char *base = strrchr(exe, '/') + 1;
    size_t bl = strlen(base);
    static const char deleted[] = " (deleted)";
    if (bl > sizeof deleted - 1 &&
        strcmp(base + bl - (sizeof deleted - 1), deleted) == 0)
        bl -= sizeof deleted - 1;
    snprintf(out, 16, "%.*s", (int)bl, base);
    free(exe);
    return out[0] != '\0';
}

/* A process whose name never came (its FORK and COMM records lost with
 * an overflowing ring, and gone before /proc could say) is named after
 * its executable once its maps are known, with its threads of no name:
 * otherwise thousands of a build's compilers fold into one "?". */
static void name_from_exe(struct fold *f, const char *text)
{
    char name[16];
    if (!f->pid || f->pid == PROFILE_KERNEL_PID || !name_unknown(f->comm) ||
        !exe_name(text, name))
        return;
    pthread_mutex_lock(f->prof_lock);
    snprintf(f->comm, sizeof f->comm, "%s", name);
    uint32_t n = profile_thread_count(f->prof);
    for (uint32_t i = 0; i < n; i++) {
        const struct profile_thread *th = profile_thread_at(f->prof, i);
        /* (not an earlier process's of this pid) */
        if (th->pid != f->pid || th->serial <= f->since ||
            profile_thread_is_folded(th))
            continue;
        int64_t tid = th->tid;
        bool proc_unknown = name_unknown(th->process);
        if (tid == f->pid && name_unknown(th->name))
            (void)profile_process_thread(f->prof, f->pid, f->since, tid,
                                         name);
        if (proc_unknown)
            (void)profile_thread_set_process(f->prof, i, f->pid, name);
    }
    pthread_mutex_unlock(f->prof_lock);
}

/* Switch the symbolizer to generation gen (the newest text at or before
 * it) and empty the pc cache. */
static void use_gen(struct fold *f, uint64_t gen)
{
    pthread_mutex_lock(&f->maps_lock);
    struct maps_gen *taken = f->incoming;
    f->incoming = NULL;
    pthread_mutex_unlock(&f->maps_lock);
    while (taken) {
        struct maps_gen *next = taken->next;
        taken->next = f->gens;
        f->gens = taken;
        taken = next;
    }
    struct maps_gen *best = NULL;
    for (struct maps_gen *g = f->gens; g; g = g->next)
        if (g->gen <= gen && (!best || g->gen > best->gen))
            best = g;
    if (best) {
        /* older generations will not be asked for again */
        for (struct maps_gen **p = &f->gens; *p;) {
            struct maps_gen *g = *p;
            if (g->gen < best->gen) {
                *p = g->next;
                free(g);
            } else {
                p = &g->next;
            }
        }
        if (f->sym) /* -a's [kernel] process has none */
            symbols_load_maps(f->sym, best->text, best->len);
        name_from_exe(f, best->text);
    }
    pc_cache_clear(&f->pcs);
    f->cur_gen = gen;
}

/* Intern n symbolized frames of pc in the profile, appending them to the
 * cache's pool (which has room).  Returns how many were interned.
 *
 * The address they get is pc moved as far as their outermost function
 * (sf[n - 1], the one that is no inlined instance) is from the start it
 * was first interned with: the processes of one binary load it at other
 * addresses (ASLR), and so their samples of one instruction count at one
 * address, and the per-address counts grow with the code run, not with
 * the processes (a build's thousands of cc1).  annot.c places the
 * function by its file offset in the process it reads. */
static uint32_t intern_frames(struct fold *f, const struct sym_frame *sf,
                              int n, uint64_t pc, bool kernel)
{
    struct pc_cache *c = &f->pcs;
    uint32_t done = 0;
    /* a kernel function has no source to show per address: its samples
     * are not counted per address (one hash update less per frame, fewer
     * nodes in the per-second trie) */
    uint64_t at = kernel ? 0 : pc;
    pthread_mutex_lock(f->prof_lock);
    for (int i = 0; i < n; i++) {
        struct frame_desc d = {
            .name = sf[i].name,
            .module = sf[i].module,
            .file = sf[i].file,
            .addr = sf[i].sym_addr,
            .line = sf[i].func_line,
            .kind = FRAME_FUNC,
            .inlined = sf[i].inlined,
            .build_id = sf[i].build_id,
            .offset = sf[i].offset,
            .origin = kernel ? FRAME_ORIGIN_KERNEL : FRAME_ORIGIN_NATIVE,
        };
        uint32_t id = profile_intern_frame(f->prof, &d);
        if (id == PROFILE_NONE)
            break;
        const struct frame_desc *first = profile_frame(f->prof, id);
        if (!kernel && i == n - 1 && !d.inlined && d.addr && first &&
            first->addr)
            at = pc + (first->addr - d.addr);  /* mod 2^64 */
        c->pool[c->npool++] = (struct stack_frame){id, sf[i].line, pc};
        done++;
    }
    for (uint32_t k = 0; k < done; k++)
        c->pool[c->npool - 1 - k].addr = at;
    pthread_mutex_unlock(f->prof_lock);
    return done;
}

/* The frame of kernel address pc (a return address when is_ret) of a
 * sample taken at `at`: its function from the session's kallsyms as it
 * was then, or "[kernel]+0xPC" outside every symbol.  Sets *named. */
static void kernel_frame(struct fold *f, uint64_t pc, bool is_ret,
                         uint64_t at, struct sym_frame *sf, bool *named)
{
    struct ksym_hit h;
    memset(sf, 0, sizeof *sf);
    /* a return address is past its call: the call is in the caller */
    *named = f->ksyms && ksyms_lookup(f->ksyms, is_ret ? pc - 1 : pc, at,
                                      clock_mono_ns(), &h);
    sf->name = *named ? h.name
                      : ksyms_unknown_name(pc, f->kname, sizeof f->kname);
    sf->module = *named ? h.module : PROFILE_KERNEL_MODULE;
    sf->sym_addr = *named ? h.start : pc;
    sf->known = *named;
}

/* The pc cache's key of address pc: pc << 1 | is_ret, a bijection (so
 * util_mix64 of it is too: the hash is the key).  A kernel address named
 * by an older kallsyms table (index `table`, ksyms_table_at) has bits 60
 * and 61 of the key, which a canonical kernel address always has set
 * (its bits 59 and 60), set to 3 - table: no other address has that key.
 * A non-canonical address is outside every table's symbols: table 0's
 * name is every table's. */
static uint64_t pc_key(uint64_t pc, bool is_ret, unsigned table)
{
    uint64_t key = pc << 1 | (is_ret ? 1 : 0);
    const uint64_t bits = 3ull << 60;
    if (table && (pc >> 47) == (1ull << 17) - 1)
        key = (key & ~bits) | (uint64_t)(3 - table) << 60;
    return key;
}

/* Frames of one address, innermost first; NULL on OOM.  kernel: pc is a
 * kernel address of the call chain of a sample taken at `at`. */
static const struct pc_entry *lookup_pc(struct fold *f, uint64_t pc,
                                        bool is_ret, bool kernel, uint64_t at)
{
    struct pc_cache *c = &f->pcs;
    unsigned table = kernel && f->ksyms ? ksyms_table_at(f->ksyms, at) : 0;
    uint64_t h = util_mix64(pc_key(pc, is_ret, table));
    uint32_t id = idtab_find(&c->ids, h, NULL, NULL);
    if (id != IDTAB_NONE)
        return &c->v[id];
    struct sym_frame sf[MAX_INLINE];
    bool named = true;
    int n = 1;
    if (kernel)
        kernel_frame(f, pc, is_ret, at, sf, &named);
    else if (f->sym)
        n = symbols_lookup(f->sym, pc, is_ret, sf, MAX_INLINE);
    else /* the [kernel] pseudo process has no user code */
        sf[0] = (struct sym_frame){.name = "[unknown]"};
    if (n < 1 || VEC_RESERVE(c->pool, c->cappool, c->npool + (size_t)n) < 0 ||
        VEC_RESERVE(c->v, c->cap, c->n + 1) < 0 ||
        idtab_insert(&c->ids, h, (uint32_t)c->n) < 0)
        return NULL;
    struct pc_entry *e = &c->v[c->n++];
    e->off = (uint32_t)c->npool;
    e->reason = kernel ? (uint8_t)offcpu_reason_of(named ? sf[0].name : NULL)
                       : OFFCPU_NONE;
    e->irq = kernel && named && offcpu_irq_entry(sf[0].name);
    e->unnamed = !named;
    e->n = intern_frames(f, sf, n, pc, kernel);
    return e;
}

/* The reason frame of an off-CPU record (enum offcpu_reason r; func names
 * an "other"), interned once per reason; PROFILE_NONE on OOM. */
static uint32_t reason_frame(struct fold *f, enum offcpu_reason r,
                             const char *func)
{
    if (r != OFFCPU_OTHER && f->f_reason[r] != PROFILE_NONE)
        return f->f_reason[r];
    char name[KSYMS_NAME_MAX + 32];
    struct frame_desc d = {
        .name = offcpu_reason_frame(r, func, name, sizeof name),
        .kind = FRAME_REASON,
    };
    pthread_mutex_lock(f->prof_lock);
    uint32_t id = profile_intern_frame(f->prof, &d);
    pthread_mutex_unlock(f->prof_lock);
    if (r != OFFCPU_OTHER)
        f->f_reason[r] = id;
    return id;
}

/* What symbolize learns from a stack's kernel part. */
struct kinfo {
    uint8_t reason[REASON_DEPTH]; /* each kernel frame's, innermost first */
    uint32_t frame[REASON_DEPTH]; /* ...and its frame */
    size_t n;
    bool irq;                     /* an interrupt entry is on it */
    bool unnamed;                 /* an address outside every symbol */
};

/* Symbolize one raw stack, taken at `at`, into f->stack, bottom first:
 * pcs[0..n), leaf first, the first nk of them kernel addresses (left out
 * of the stack unless show_kernel; *ki gets what they say either way),
 * the rest the user stack's words: native addresses and script frames
 * (stackword.h).  Returns its depth, or -1 on OOM. */
static long symbolize(struct fold *f, const uint64_t *pcs, size_t n,
                      size_t nk, uint32_t flags, uint64_t at,
                      struct kinfo *ki)
{
    size_t depth = 0;
    ki->n = 0;
    ki->irq = ki->unnamed = false;
    for (size_t i = 0; i < n; i++) {
        bool kernel = i < nk;
        if (!kernel && stackword_is_script(pcs[i])) {
            /* a script frame: its code object was announced before */
            uint32_t code = stackword_code(pcs[i]);
            if (code >= f->ncode || f->code_frame[code] == PROFILE_NONE)
                continue;
            if (VEC_RESERVE(f->stack, f->capstack, depth + 3) < 0)
                return -1;
            f->stack[depth++] = (struct stack_frame){
                f->code_frame[code], stackword_line(pcs[i]), 0};
            continue;
        }
        const struct pc_entry *e =
            lookup_pc(f, pcs[i], kernel ? i > 0 : i > nk, kernel, at);
        if (!e || VEC_RESERVE(f->stack, f->capstack, depth + e->n + 2) < 0)
            return -1;
        if (kernel) {
            ki->irq |= e->irq;
            ki->unnamed |= e->unnamed;
            if (ki->n < REASON_DEPTH && e->n) {
                ki->reason[ki->n] = e->reason;
                ki->frame[ki->n++] = f->pcs.pool[e->off].frame;
            }
            if (!f->show_kernel)
                continue;
        }
        memcpy(f->stack + depth, f->pcs.pool + e->off, e->n * sizeof *f->stack);
        depth += e->n;
    }
    if (flags & INGEST_F_TRUNCATED) {
        if (VEC_RESERVE(f->stack, f->capstack, depth + 1) < 0)
            return -1;
        f->stack[depth++] = (struct stack_frame){f->f_truncated, 0, 0};
    }
    for (size_t i = 0; i < depth / 2; i++) {
        struct stack_frame t = f->stack[i];
        f->stack[i] = f->stack[depth - 1 - i];
        f->stack[depth - 1 - i] = t;
    }
    return (long)depth;
}

void fold_set_process(struct fold *f, int64_t pid, const char *comm)
{
    f->pid = pid;
    snprintf(f->comm, sizeof f->comm, "%s", comm ? comm : "");
    f->since = atomic_load(f->serial);
}

void fold_same_process(struct fold *f, const struct fold *before)
{
    f->since = before->since;
}

/* The thread of tid (renamed to name unless NULL), marked with the fold's
 * process when new; PROFILE_NONE on OOM.  Under prof_lock. */
static uint32_t fold_thread(struct fold *f, int64_t tid, const char *name)
{
    /* a leader the sampler met again once gone from /proc ("?") keeps
     * its process's command */
    if (name && name_unknown(name) && tid == f->pid && !name_unknown(f->comm))
        name = f->comm;
    uint32_t th = profile_process_thread(f->prof, f->pid, f->since, tid, name);
    atomic_store(f->serial, profile_thread_serial(f->prof));
    if (th == PROFILE_NONE || !f->pid)
        return th;
    if (!profile_thread_at(f->prof, th)->pid)
        profile_thread_set_process(f->prof, th, f->pid, f->comm[0] ? f->comm : NULL);
    else if (tid == f->pid && !name_unknown(name)) {
        /* the leader renamed: exec, prctl (name may be f->comm itself,
         * above: not copied onto itself) */
        if (name != f->comm)
            snprintf(f->comm, sizeof f->comm, "%s", name);
        profile_thread_set_process(f->prof, th, f->pid, f->comm);
    }
    return th;
}

/* An interpreter's code object: the frame its id stands for from now on
 * in this process's samples. */
static void add_code(struct fold *f, const struct ingest_rec *r,
                     const void *payload)
{
    struct ingest_code ic;
    if (r->len < sizeof ic)
        return;
    memcpy(&ic, payload, sizeof ic);
    if ((ic.lang != SCRIPT_PYTHON && ic.lang != SCRIPT_RUBY) ||
        ic.id > STACKWORD_MAX_CODE ||
        (size_t)ic.name_len + ic.file_len > r->len - sizeof ic)
        return;
    const char *p = (const char *)payload + sizeof ic;
    char *name = strndup(p, ic.name_len);
    char *file = strndup(p + ic.name_len, ic.file_len);
    if (!name || !file ||
        VEC_RESERVE(f->code_frame, f->capcode, (size_t)ic.id + 1) < 0) {
        free(name);
        free(file);
        return;
    }
    while (f->ncode <= ic.id)
        f->code_frame[f->ncode++] = PROFILE_NONE;
    const char *base = strrchr(file, '/');
    struct frame_desc d = {
        .name = name,
        .module = base ? base + 1 : file,
        .file = file,
        .line = ic.firstlineno > 0 ? (uint32_t)ic.firstlineno : 0,
        .kind = FRAME_FUNC,
        .origin = ic.lang == SCRIPT_RUBY ? FRAME_ORIGIN_RUBY
                                         : FRAME_ORIGIN_PYTHON,
    };
    pthread_mutex_lock(f->prof_lock);
    f->code_frame[ic.id] = profile_intern_frame(f->prof, &d);
    pthread_mutex_unlock(f->prof_lock);
    free(name);
    free(file);
}

static void add_thread_name(struct fold *f, const struct ingest_rec *r,
                            const void *payload)
{
    char name[64];
    size_t l = r->len < sizeof name - 1 ? r->len : sizeof name - 1;
    memcpy(name, payload, l);
    name[l] = '\0';
    pthread_mutex_lock(f->prof_lock);
    fold_thread(f, r->tid, name[0] ? name : "?");
    pthread_mutex_unlock(f->prof_lock);
}

/* The process is gone: what only it used goes (its symbolizer, giving
 * back the modules no other process holds, its maps and its address
 * cache).  Its samples stay in the profile; a record read after this
 * (none should come) is dropped. */
static void release(struct fold *f)
{
    if (f->released)
        return;
    f->released = true;
    if (f->sym)
        symbols_get_stats(f->sym, &f->sym_st);
    symbols_free(f->sym);
    f->sym = NULL;
    free_gens(f->gens);
    f->gens = NULL;
    pc_cache_free(&f->pcs);
    memset(&f->pcs, 0, sizeof f->pcs);
    free(f->code_frame);
    f->code_frame = NULL;
    f->ncode = f->capcode = 0;
}

_Static_assert(OFFCPU_NREASONS <= (INGEST_REASON_MASK >> INGEST_REASON_SHIFT) + 1,
               "an ingest record's reason field holds every reason");

/* The reason an off-CPU record waits for: preempted, else what its
 * kernel stack (or, without one, the sampler) says; its frame at the
 * end of f->stack (which has room). */
static bool add_reason(struct fold *f, const struct ingest_rec *r,
                       const struct kinfo *ki, long *depth)
{
    size_t which = 0;
    enum offcpu_reason why =
        ki->n ? offcpu_pick(ki->reason, ki->n, r->flags & INGEST_F_PREEMPT,
                            &which)
        : r->flags & INGEST_F_PREEMPT ? OFFCPU_CPU
        : (enum offcpu_reason)((r->flags & INGEST_REASON_MASK) >>
                               INGEST_REASON_SHIFT);
    if (why == OFFCPU_NONE || why >= OFFCPU_NREASONS)
        why = OFFCPU_UNKNOWN;
    /* a Ruby thread in its GVL's queue of waiters: the kernel sees a
     * futex (a lock); the interpreter's frames say which */
    if (r->flags & INGEST_F_GVL && why != OFFCPU_CPU)
        why = OFFCPU_GVL;
    const char *func = why == OFFCPU_OTHER && ki->n
                           ? profile_frame(f->prof, ki->frame[which])->name
                           : NULL;
    uint32_t id = reason_frame(f, why, func);
    if (id == PROFILE_NONE)
        return false;
    f->stack[(*depth)++] = (struct stack_frame){id, 0, 0};
    return true;
}

/* What became of a sample record. */
enum added { ADDED, DROPPED, LEFT_OUT /* counted where it is left out */ };

static enum added add_sample(struct fold *f, const struct ingest_rec *r,
                             const void *payload)
{
    if (f->released)
        return DROPPED;
    if (r->gen != f->cur_gen)
        use_gen(f, r->gen);
    size_t n = r->len / sizeof(uint64_t);
    struct kinfo ki;
    long depth = symbolize(f, payload, n, r->kernel < n ? r->kernel : n,
                           r->flags, r->time, &ki);
    if (depth < 0)
        return DROPPED;
    /* -a: the idle task's samples are interrupt work, or the idle loop,
     * which is no work at all (counted in idle_dropped, not dropped) */
    if (f->pid == PROFILE_KERNEL_PID && r->tid == 0 && !ki.irq) {
        pthread_mutex_lock(f->prof_lock);
        f->st.idle_dropped++;
        pthread_mutex_unlock(f->prof_lock);
        return LEFT_OUT;
    }
    if (r->flags & INGEST_F_OFFCPU && !add_reason(f, r, &ki, &depth))
        return DROPPED;
    pthread_mutex_lock(f->prof_lock);
    uint32_t th = fold_thread(f, r->tid, NULL);
    int rc = th == PROFILE_NONE ? -1
             : profile_add_weighted_at(f->prof, th, f->stack, (size_t)depth,
                                       1, r->weight ? r->weight : 1,
                                       r->time);
    if (rc == 0 && ki.unnamed)
        f->st.kernel_unnamed++;
    note_samples(f);
    pthread_mutex_unlock(f->prof_lock);
    return rc == 0 ? ADDED : DROPPED;
}

void fold_records(struct fold *f, const uint8_t *data, size_t len)
{
    size_t off = 0;
    const void *payload;
    const struct ingest_rec *r;
    bool any = false;
    /* kallsyms read again (a module loaded): name the addresses again */
    if (f->ksyms && ksyms_epoch(f->ksyms) != f->ksyms_epoch) {
        f->ksyms_epoch = ksyms_epoch(f->ksyms);
        pc_cache_clear(&f->pcs);
    }
    while ((r = ingest_next(data, len, &off, &payload))) {
        if (r->type == INGEST_THREAD)
            add_thread_name(f, r, payload);
        else if (r->type == INGEST_SAMPLE) {
            enum added a = add_sample(f, r, payload);
            any |= a == ADDED;
            if (a == DROPPED) {
                pthread_mutex_lock(f->prof_lock);
                f->st.dropped++;
                pthread_mutex_unlock(f->prof_lock);
            }
        } else if (r->type == INGEST_EXIT)
            release(f);
        else if (r->type == INGEST_CODE && !f->released)
            add_code(f, r, payload);
    }
    if (any)
        atomic_fetch_add(f->generation, 1);
}

/* Name again the frames of the modules the last symbols_update gave
 * debug info: each takes what the code at its offset is now (the
 * function, outside any inlined instance), in place or merged into a
 * frame that already has that name (profile_rename_frames).  The
 * collector is the profile's only writer, so it reads the frames without
 * the lock and takes it only to rename. */
static void rename_frames(struct fold *f)
{
    struct profile_rename *r = NULL;
    size_t n = 0, cap = 0;
    uint32_t count = profile_frame_count(f->prof);
    for (uint32_t id = 0; id < count; id++) {
        const struct frame_desc *d = profile_frame(f->prof, id);
        struct sym_frame sf[MAX_INLINE];
        int k;
        if (!d->build_id || !symbols_gained(f->sym, d->build_id) ||
            (k = symbols_lookup_offset(f->sym, d->build_id, d->offset, sf,
                                       MAX_INLINE)) < 1 ||
            VEC_RESERVE(r, cap, n + 1) < 0)
            continue;
        const struct sym_frame *o = &sf[k - 1];
        r[n++] = (struct profile_rename){id, {
            .name = o->name,
            .module = o->module,
            .file = o->file,
            .addr = o->sym_addr,
            .line = o->func_line,
            .kind = FRAME_FUNC,
            .build_id = o->build_id,
            .offset = o->offset,
        }};
    }
    if (n > 0) {
        pthread_mutex_lock(f->prof_lock);
        if (profile_rename_frames(f->prof, r, n) == 0)
            f->st.renamed += n;
        if (!f->st.samples_before)
            f->st.samples_before = profile_sample_count(f->prof);
        pthread_mutex_unlock(f->prof_lock);
        atomic_fetch_add(f->generation, 1);
    }
    free(r);
}

void fold_update_names(struct fold *f)
{
    if (!f->sym || symbols_update(f->sym) == 0)
        return;
    /* Every address is looked up again: new samples get the names, the
     * inlined frames and the lines. */
    pc_cache_clear(&f->pcs);
    rename_frames(f);
}

int fold_frames_held(const struct fold *f, uint32_t **v, size_t *n,
                     size_t *cap)
{
    size_t want = *n + f->pcs.npool + f->ncode + OFFCPU_NREASONS + 1;

    if (VEC_RESERVE(*v, *cap, want) < 0)
        return -1;
    for (size_t i = 0; i < f->pcs.npool; i++)
        (*v)[(*n)++] = f->pcs.pool[i].frame;
    for (size_t i = 0; i < f->ncode; i++)
        (*v)[(*n)++] = f->code_frame[i];
    for (int i = 0; i < OFFCPU_NREASONS; i++)
        (*v)[(*n)++] = f->f_reason[i];
    (*v)[(*n)++] = f->f_truncated;
    return 0;
}

void fold_processes(struct fold *base, const int64_t *pids, size_t n,
                    const int64_t *threads, size_t m, uint64_t budget,
                    const uint32_t *keep, size_t nkeep)
{
    if (n == 0 && m == 0)
        return;
    /* The folded profile is built from prof outside prof_lock: only this
     * thread writes prof but for a reset, which waits on rebuild_lock,
     * and snapshots only read it; so a snapshot waits for the swap, not
     * for the whole rebuild (seconds, for hours of -a). */
    pthread_mutex_lock(&base->rebuild_lock);
    struct profile *q = profile_fold_processes(base->prof, pids, n,
                                               threads, m, budget, keep,
                                               nkeep);
    pthread_mutex_lock(base->prof_lock);
    if (q)
        profile_replace(base->prof, q);
    note_samples(base);
    pthread_mutex_unlock(base->prof_lock);
    pthread_mutex_unlock(&base->rebuild_lock);
    profile_free(q);  /* the old contents */
    if (q)
        atomic_fetch_add(base->generation, 1);
}

struct profile *fold_snapshot(struct fold *f)
{
    pthread_mutex_lock(f->prof_lock);
    struct profile *p = profile_clone(f->prof);
    pthread_mutex_unlock(f->prof_lock);
    return p;
}

uint64_t fold_samples(struct fold *f)
{
    return atomic_load(f->nsamples);
}

void fold_advance(struct fold *f, uint64_t now_ns)
{
    pthread_mutex_lock(f->prof_lock);
    bool moved = profile_time_advance(f->prof, now_ns);
    pthread_mutex_unlock(f->prof_lock);
    if (moved)
        atomic_fetch_add(f->generation, 1);
}

uint64_t fold_generation(struct fold *f)
{
    return atomic_load(f->generation);
}

void fold_reset(struct fold *f)
{
    struct fold *b = f->base ? f->base : f;

    pthread_mutex_lock(&b->rebuild_lock);
    pthread_mutex_lock(f->prof_lock);
    profile_reset(f->prof);
    note_samples(f);
    pthread_mutex_unlock(f->prof_lock);
    pthread_mutex_unlock(&b->rebuild_lock);
    atomic_fetch_add(f->generation, 1);
}

void fold_set_meta(struct fold *f, const struct profile_meta *m)
{
    pthread_mutex_lock(f->prof_lock);
    profile_set_meta(f->prof, m);
    pthread_mutex_unlock(f->prof_lock);
}

void fold_get_symbols_stats(struct fold *f, struct symbols_stats *out)
{
    if (f->sym)
        symbols_get_stats(f->sym, out);
    else if (f->released)
        *out = f->sym_st;
    else
        memset(out, 0, sizeof *out);
}

void fold_get_stats(struct fold *f, struct fold_stats *out)
{
    pthread_mutex_lock(f->prof_lock);
    *out = f->st;
    pthread_mutex_unlock(f->prof_lock);
}

void fold_get_footprint(struct fold *f, struct profile_footprint *out,
                        struct profile_cut *cut)
{
    pthread_mutex_lock(f->prof_lock);
    profile_footprint(f->prof, out);
    profile_cut_get(f->prof, cut);
    cut->weight = profile_weight_count(f->prof, cut->weight);
    cut->min_total = profile_weight_count(f->prof, cut->min_total);
    pthread_mutex_unlock(f->prof_lock);
}
