/* symbols.c - addresses of one target process -> frames; see symbols.h.
 *
 * What is per process lives here: the maps snapshot (maps.h), which
 * module of the session's store (sym_store.h) each file mapping and the
 * [vdso] hold, with the load bias of each mapping, the perf map of JIT
 * code (jitmap.h), and an arena for the few names made here (JIT
 * functions, "[file+0xOFF]" of a mapped file that is no ELF).  A pc
 * becomes a (module, module address) pair, and the store names that:
 * its DWARF, symbol table and name cache are shared by every process
 * mapping the same binary.
 *
 * symbols_load_maps takes a new snapshot: a mapping that was already
 * there (same range, offset, inode and path) keeps its module; the
 * others are bound on the first lookup in them, when their file is
 * opened (through /proc/PID/root or map_files: sym_files.h) and the
 * store finds the module by its key or loads it, so only code that is
 * sampled costs a file.  Then the references of the old snapshot are
 * dropped, so a library the process (and no other) unloaded is freed.
 */
#include "symbols.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clock.h"
#include "jitmap.h"
#include "maps.h"
#include "strarena.h"
#include "sym_files.h"
#include "sym_names.h"
#include "sym_store.h"
#include "target.h"
#include "vec.h"

/* What one mapping of the snapshot holds, once bound. */
struct binding {
    struct sym_mod *mod;  /* NULL: no module (not ELF, not a file) */
    uint64_t bias;        /* target address - module address */
    bool done;            /* bound (on its first lookup) */
};

struct symbols {
    pid_t pid;                 /* the target */
    char root[64];             /* "" when the target shares our root,
                                  else "/proc/PID/root" */
    struct sym_store *store;   /* the session's */
    bool own_store;            /* made by symbols_new(NULL, ...) */

    struct maps *maps;         /* the current snapshot */
    struct binding *bind;      /* by index in maps->v */
    struct sym_mod **held;     /* the distinct modules bind uses, each
                                  holding one reference */
    size_t nheld, capheld;
    uint64_t vdso_start;       /* [vdso] range; 0,0 when none */
    uint64_t vdso_end;
    struct binding vdso;

    struct strarena names;     /* names made here */
    struct jitmap *jit;        /* the target's perf map */
    uint64_t epoch_seen;       /* the store's epoch at the last update */
    uint64_t epoch_before;     /* ...and at the one before */

    struct symbols_stats stats;
};

static const char sym_unknown[] = "[unknown]";

static void set_err(char *err, size_t errlen, const char *what, pid_t pid,
                    const char *why)
{
    if (err != NULL && errlen > 0)
        snprintf(err, errlen, "%s %d: %s", what, (int)pid, why);
}

struct symbols *symbols_new(struct sym_store *store, pid_t pid, char *err,
                            size_t errlen)
{
    if (pid <= 0) {
        set_err(err, errlen, "bad pid", pid, "must be > 0");
        return NULL;
    }
    char path[96];
    struct stat st;
    snprintf(path, sizeof path, "/proc/%d", (int)pid);
    if (stat(path, &st) != 0) {
        if (errno != ENOENT) {
            set_err(err, errlen, "cannot stat process", pid,
                    strerror(errno));
            return NULL;
        }
        /* It has exited already (a short process whose records are read
         * after its end): its files are opened through our root, each
         * checked against the mapped inode (sym_files.h), and no perf
         * map is trusted, as nobody is known to own it. */
        st.st_uid = (uid_t)-1;
    }
    struct symbols *s = calloc(1, sizeof *s);
    if (s == NULL) {
        set_err(err, errlen, "symbolizer for", pid, strerror(ENOMEM));
        return NULL;
    }
    s->pid = pid;
    s->store = store;
    if (store == NULL) {
        s->store = sym_store_new(NULL);
        s->own_store = true;
    }
    sym_files_root(pid, s->root, sizeof s->root);
    snprintf(path, sizeof path, "%s/tmp/perf-%d.map", s->root,
             (int)target_ns_pid(pid));
    s->jit = jitmap_new(path, st.st_uid);
    if (s->jit == NULL || s->store == NULL) {
        set_err(err, errlen, "symbolizer for", pid, strerror(ENOMEM));
        symbols_free(s);
        return NULL;
    }
    return s;
}

/* Drop the references of the modules in held[0..n). */
static void release_all(struct sym_store *st, struct sym_mod **held, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sym_store_release(st, held[i]);
}

void symbols_free(struct symbols *s)
{
    if (s == NULL)
        return;
    if (s->store != NULL) {
        release_all(s->store, s->held, s->nheld);
        sym_store_release(s->store, s->vdso.mod);
        if (s->own_store)
            sym_store_free(s->store);
    }
    free(s->held);
    free(s->bind);
    jitmap_free(s->jit);
    strarena_free(&s->names);
    maps_free(s->maps);
    free(s);
}

/* --- binding a snapshot ----------------------------------------------------- */

static bool same_mapping(const struct map_entry *a, const struct map_entry *b)
{
    return a->start == b->start && a->end == b->end &&
           a->offset == b->offset && a->inode == b->inode &&
           strcmp(a->path, b->path) == 0;
}

static bool same_file(const struct map_entry *a, const struct map_entry *b)
{
    return a->inode == b->inode && strcmp(a->path, b->path) == 0;
}

/* Add mod to the held list, with a reference, unless it is there.
 * False when it is not held (OOM). */
static bool hold_once(struct symbols *s, struct sym_mod *mod)
{
    for (size_t i = 0; i < s->nheld; i++)
        if (s->held[i] == mod)
            return true;
    if (VEC_RESERVE(s->held, s->capheld, s->nheld + 1) < 0)
        return false;
    sym_store_hold(mod);
    s->held[s->nheld++] = mod;
    return true;
}

/* Bind the file mappings around mapping i, on the first lookup in them:
 * the consecutive mappings of one file are one object, which the loader
 * maps with one bias, taken from the first of them (as libdwfl did); a
 * mapping whose file is opened there (sym_store_open) and that no
 * segment explains is left without a module. */
static void bind_file(struct symbols *s, size_t i)
{
    const struct map_entry *v = s->maps->v;
    size_t first = i, end = i + 1;
    while (first > 0 && same_file(&v[first - 1], &v[i]))
        first--;
    while (end < s->maps->n && same_file(&v[end], &v[i]))
        end++;
    struct sym_mod *mod = sym_store_open(s->store, s->pid, s->root,
                                         v[first].path, &v[first]);
    uint64_t bias = 0;
    bool one_bias = mod != NULL &&
                    sym_store_bias(mod, v[first].start, v[first].offset, &bias);
    bool held = mod != NULL && hold_once(s, mod);
    for (size_t k = first; k < end; k++) {
        struct binding *b = &s->bind[k];
        if (b->done)
            continue;
        *b = (struct binding){.done = true};
        if (held && (one_bias || sym_store_bias(mod, v[k].start, v[k].offset,
                                                &b->bias))) {
            b->mod = mod;
            if (one_bias)
                b->bias = bias;
        }
    }
    sym_store_release(s->store, mod);  /* hold_once took its own */
}

static void bind_vdso(struct symbols *s)
{
    s->vdso.done = true;
    s->vdso.mod = sym_store_open_vdso(s->store, s->pid, s->vdso_start,
                                      s->vdso_end);
    if (s->vdso.mod != NULL)
        sym_store_bias(s->vdso.mod, s->vdso_start, 0, &s->vdso.bias);
}

/* Take over the bindings of the mappings that did not change since the
 * old snapshot (both are sorted); the others are bound on their first
 * lookup.  The old snapshot's references are the caller's to drop.  0,
 * or -1 when the snapshot has no file mapping nor [vdso]. */
static int bind_maps(struct symbols *s, const struct maps *old,
                     const struct binding *oldbind,
                     const struct binding *oldvdso, uint64_t old_vdso_start,
                     uint64_t old_vdso_end)
{
    s->bind = calloc(s->maps->n ? s->maps->n : 1, sizeof *s->bind);
    if (s->bind == NULL)
        return -1;
    bool files = false;
    size_t j = 0;
    for (size_t i = 0; i < s->maps->n; i++) {
        const struct map_entry *m = &s->maps->v[i];
        if (m->path[0] != '/')
            continue;
        files = true;
        while (old != NULL && j < old->n && old->v[j].start < m->start)
            j++;
        if (old != NULL && j < old->n && same_mapping(&old->v[j], m) &&
            oldbind[j].done &&
            (oldbind[j].mod == NULL || hold_once(s, oldbind[j].mod)))
            s->bind[i] = oldbind[j];
    }
    if (oldvdso->done && old_vdso_start == s->vdso_start &&
        old_vdso_end == s->vdso_end) {
        s->vdso = *oldvdso;
        if (s->vdso.mod != NULL)
            sym_store_hold(s->vdso.mod);
    }
    return files || s->vdso_end > s->vdso_start ? 0 : -1;
}

int symbols_load_maps(struct symbols *s, const char *maps, size_t len)
{
    s->stats.reloads++;
    /* The old snapshot and its references stay until the new one is
     * bound: modules in both are neither freed nor opened again. */
    struct maps *old = s->maps;
    struct binding *oldbind = s->bind;
    struct sym_mod **oldheld = s->held;
    size_t noldheld = s->nheld;
    struct binding oldvdso = s->vdso;
    uint64_t old_vdso_start = s->vdso_start, old_vdso_end = s->vdso_end;
    s->bind = NULL;
    s->held = NULL;
    s->nheld = s->capheld = 0;
    s->vdso = (struct binding){0};
    s->vdso_start = s->vdso_end = 0;
    jitmap_clear(s->jit);
    strarena_free(&s->names);
    s->maps = maps_parse(maps, len);
    int rc = -1;
    if (s->maps != NULL) {
        const struct map_entry *vdso = maps_find_path(s->maps, "[vdso]");
        if (vdso != NULL) {
            s->vdso_start = vdso->start;
            s->vdso_end = vdso->end;
        }
        rc = bind_maps(s, old, oldbind, &oldvdso, old_vdso_start,
                       old_vdso_end);
    }
    release_all(s->store, oldheld, noldheld);
    sym_store_release(s->store, oldvdso.mod);
    free(oldheld);
    free(oldbind);
    maps_free(old);
    return rc;
}

/* --- lookups ------------------------------------------------------------------ */

/* Frames of addr in mod at bias, as target addresses.  *hit: cached. */
static int lookup_module(struct symbols *s, const struct binding *b,
                         uint64_t addr, struct sym_frame *out, int max,
                         bool cached, bool *hit)
{
    int n = cached ? sym_store_lookup(s->store, b->mod, addr - b->bias, out,
                                      max, hit)
                   : sym_store_resolve(s->store, b->mod, addr - b->bias, out,
                                       max);
    for (int i = 0; i < n; i++)
        if (out[i].sym_addr)
            out[i].sym_addr += b->bias;
    return n;
}

/* Frames for addr (never fewer than 1); *hit when the store's cache
 * answered. */
static int resolve(struct symbols *s, uint64_t addr, struct sym_frame *out,
                   int max, bool *hit)
{
    *hit = false;
    const struct map_entry *m = maps_find(s->maps, addr);
    bool vdso = addr >= s->vdso_start && addr < s->vdso_end;
    /* Only file-backed mappings (and the [vdso]) belong to a module:
     * Node.js (a non-PIE executable) has its JIT code right after its
     * file's mappings. */
    if (vdso || (m != NULL && m->path[0] == '/')) {
        const struct binding *b = NULL;
        if (vdso) {
            if (!s->vdso.done)
                bind_vdso(s);
            b = &s->vdso;
        } else if (s->bind != NULL) {
            size_t i = (size_t)(m - s->maps->v);
            if (!s->bind[i].done)
                bind_file(s, i);
            b = &s->bind[i];
        }
        if (b != NULL && b->mod != NULL)
            return lookup_module(s, b, addr, out, max, true, hit);
        if (vdso)
            out[0] = (struct sym_frame){.name = "[vdso]", .module = "[vdso]"};
        else {  /* a file that is no ELF, or could not be opened */
            const char *module = sym_names_basename(&s->names, m->path);
            out[0] = (struct sym_frame){
                .name = sym_names_offset(&s->names, module,
                                         addr - m->start + m->offset),
                .module = module};
        }
        if (out[0].name == NULL)
            out[0].name = sym_unknown;
        return 1;
    }
    /* JIT code lives in anonymous executable memory, or in memory mapped
     * after this snapshot: the perf map. */
    if (m == NULL || m->x) {
        uint64_t start = 0;
        const char *name = jitmap_find(s->jit, &s->names, addr, &start);
        if (name != NULL) {
            out[0] = (struct sym_frame){.name = name, .module = "[jit]",
                                        .sym_addr = start, .known = true};
            return 1;
        }
    }
    out[0] = (struct sym_frame){.name = sym_unknown};
    return 1;
}

int symbols_lookup(struct symbols *s, uint64_t pc, bool is_return_addr,
                   struct sym_frame *out, int max)
{
    if (max < 1)
        return 0;
    s->stats.lookups++;
    /* A return address points after the call; the call is at pc-1, which
     * may be in another line, inlined instance or even function. */
    uint64_t addr = is_return_addr && pc > 0 ? pc - 1 : pc;
    uint64_t t0 = clock_mono_ns();
    bool hit;
    int n = resolve(s, addr, out, max, &hit);
    if (hit) {
        s->stats.hits++;
    } else {
        s->stats.misses++;
        s->stats.miss_ns += clock_mono_ns() - t0;
    }
    return n;
}

void symbols_get_stats(const struct symbols *s, struct symbols_stats *out)
{
    *out = s->stats;
    struct sym_store_stats ss;
    sym_store_get_stats(s->store, &ss);
    out->no_debuginfo = ss.no_debuginfo;
    out->late_debuginfo = ss.late_debuginfo;
}

int symbols_update(struct symbols *s)
{
    s->epoch_before = s->epoch_seen;
    s->epoch_seen = sym_store_update(s->store);
    if (s->epoch_seen == s->epoch_before)
        return 0;
    return sym_store_gained(s->store, s->epoch_before, s->epoch_seen, NULL);
}

bool symbols_gained(const struct symbols *s, const char *build_id)
{
    return sym_store_gained(s->store, s->epoch_before, s->epoch_seen,
                            build_id) > 0;
}

int symbols_lookup_offset(struct symbols *s, const char *build_id,
                          uint64_t offset, struct sym_frame *out, int max)
{
    if (max < 1 || s->maps == NULL || s->bind == NULL)
        return 0;
    for (size_t i = 0; i < s->maps->n; i++) {
        const struct map_entry *m = &s->maps->v[i];
        const struct binding *b = &s->bind[i];
        if (m->path[0] != '/' || offset < m->offset ||
            offset - m->offset >= m->end - m->start)
            continue;
        if (!b->done)
            bind_file(s, i);
        if (b->mod == NULL || strcmp(sym_store_build_id(b->mod), build_id) != 0)
            continue;
        bool hit;
        return lookup_module(s, b, m->start + (offset - m->offset), out, max,
                             false, &hit);
    }
    return 0;
}
