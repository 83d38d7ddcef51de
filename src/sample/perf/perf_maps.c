/* perf_maps.c - each sampled process's maps, for the perf sampler; see
 * perf_int.h.
 *
 * A process's mappings come from /proc/PID/maps when it is met without
 * them (attached, or -a's first record of a process whose birth was not
 * seen), and from the records afterwards: a process forked while we
 * watch starts with its parent's maps (FORK), an exec starts from none
 * (COMM with COMM_EXEC), and each MMAP2 of executable memory maps a
 * file, the [vdso] or JIT code over them, in the order of the records.
 * So the maps a sample is unwound and named with are those of the
 * moment it was taken, even when it is read after the process exec'd
 * or exited (a short process's samples are read up to a drain after its
 * end, when /proc has nothing left of it).  /proc is read again only for
 * an address outside every mapping (code mprotect'ed executable, an
 * unmap the records do not tell), at most once a second, while the
 * process lives; and, at most once a second after an MMAP2, to drop the
 * mappings /proc no longer shows (a dlclose'd library, whose module the
 * symbol store can then free) and, to maps read from /proc, add the
 * other segments of the objects mapped (their ELF header and unwind
 * tables, which the unwinder reads): no other mapping is taken from
 * /proc, so an exec the records have not told yet cannot name an older
 * sample (maps_still_mapped).  Maps of the records alone keep code only
 * (the unwinder reads the rest of an object from its file).
 */
#include "perf_int.h"

#include "clock.h"
#include "maps.h"
#include "perf_record.h"
#include "script_lang.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

/* The interpreter p runs, once a mapping of m may be one of the
 * languages' table (script_candidate: python3, libpython, ruby,
 * libruby...).  It is looked for in the maps /proc shows: the records
 * map code only, and the reader needs the object's first pages and its
 * data (the runtime's address). */
static void script_look(struct pf_sampler *s, struct pproc *p,
                        const struct maps *m, bool from_proc)
{
    if (p->script || p->exited)
        return;
    size_t i = 0;
    while (i < m->n && !script_candidate(m->v[i].path))
        i++;
    if (i == m->n)
        return;
    struct maps *full = from_proc ? NULL : maps_read(p->pid);
    p->script = script_proc_find(p->pid, full && full->n ? full : m);
    maps_free(full);
    if (p->script)
        pf_script_found(s, p);
}

/* Hand m over as p's maps (taken): p announced first, then a new
 * generation for its unwinder and cfg.on_maps, unless nothing changed.
 * True when it changed.  from_proc: m was read from /proc (whole), not
 * built from the records. */
static bool maps_install(struct pf_sampler *s, struct pproc *p,
                         struct maps *m, bool from_proc)
{
    pf_proc_announce(s, p);
    if (p->maps && maps_same(p->maps, m) && !p->maps_forced) {
        maps_free(m);
        return false;
    }
    p->maps_forced = false;
    if (p->unw)
        unwinder_set_maps(p->unw, m);
    maps_free(p->maps);
    p->maps = m;
    p->gen = ++s->gen_seq;
    if (s->cfg.on_maps)
        s->cfg.on_maps(s->cfg.ctx, p->pid, p->gen, m->text, m->text_len);
    script_look(s, p, m, from_proc);
    return true;
}

bool pf_proc_refresh_maps(struct pf_sampler *s, struct pproc *p)
{
    struct maps *m = p->exited ? NULL : maps_read(p->pid);
    /* a zombie leader's maps are empty: read them through a live thread */
    for (size_t i = 0; !p->exited && (!m || m->n == 0) && i < s->nalive; i++) {
        const struct pthr *t = &s->thr[s->alive[i]];
        if (t->tid == p->pid || &s->procs[t->proc] != p)
            continue;
        maps_free(m);
        m = maps_read_task(p->pid, t->tid);
    }
    p->t_maps = clock_mono_ns();
    p->maps_dirty = false;
    if (!m || m->n == 0) {
        /* gone, or a zombie: what the records say, if they say */
        maps_free(m);
        m = p->next;
        p->next = NULL;
        return m ? maps_install(s, p, m, false) : false;
    }
    maps_free(p->next);
    p->next = NULL;
    p->known = true;
    return maps_install(s, p, m, true);
}

#define UNMAP_CHECK_NS 1000000000ull /* a second */

/* p's maps without what /proc no longer shows (unmap_check). */
static void maps_prune(struct pf_sampler *s, struct pproc *p)
{
    uint64_t now = clock_mono_ns();
    if (now - p->t_unmap_check < UNMAP_CHECK_NS)
        return;
    p->unmap_check = false;
    p->t_unmap_check = now;
    /* maps read from /proc hold every object's segments: keep them so;
     * maps of the records alone hold code only, and the unwinder reads
     * the rest of each object from its file: keep them so too */
    struct maps *cur = maps_read(p->pid);
    struct maps *m = cur && cur->n
                         ? maps_still_mapped(p->maps, cur,
                                             maps_has_data_segments(p->maps))
                         : NULL;
    maps_free(cur);
    if (m)
        maps_install(s, p, m, false);
}

void pf_maps_current(struct pf_sampler *s, struct pproc *p)
{
    if (p->next) {
        struct maps *m = p->next;
        p->next = NULL;
        p->maps_dirty = false;
        maps_install(s, p, m, false);
    } else if (p->maps_dirty || !p->maps) {
        pf_proc_refresh_maps(s, p);
    }
    if (p->unmap_check && p->maps && !p->exited)
        maps_prune(s, p);
}

bool pf_maps_pending(const struct pproc *p)
{
    return p->next || p->maps_dirty;
}

void pf_maps_mmap(struct pf_sampler *s, const struct perf_record_mmap2 *r,
                  const uint8_t *end)
{
    if (!(r->prot & PROT_EXEC))
        return;
    uint32_t pi = pf_proc_find(s, (pid_t)r->pid);
    if (pi == PERF_NONE)
        return;
    struct pproc *p = &s->procs[pi];
    if (!p->known) {
        p->maps_dirty = true; /* read them whole before the next unwind */
        return;
    }
    /* the path as /proc shows it: anonymous memory has none */
    char path[4096];
    size_t room = (size_t)(end - (const uint8_t *)r->filename);
    snprintf(path, sizeof path, "%.*s",
             (int)(room < sizeof path - 1 ? room : sizeof path - 1),
             r->filename);
    for (char *c = path; *c; c++)
        if (*c == '\n')
            *c = '?';
    if (strcmp(path, "//anon") == 0)
        path[0] = '\0';
    struct map_entry e = {
        .start = r->addr, .end = r->addr + r->len, .offset = r->pgoff,
        .inode = r->ino, .r = (r->prot & PROT_READ) != 0,
        .w = (r->prot & PROT_WRITE) != 0, .x = true, .path = path,
    };
    if (e.end <= e.start)
        return;
    const struct maps *cur = p->next ? p->next : p->maps;
    const struct map_entry *have = cur ? maps_find(cur, e.start) : NULL;
    if (have && have->start == e.start && have->end == e.end &&
        have->offset == e.offset && have->inode == e.inode && have->x &&
        strcmp(have->path, path) == 0)
        return; /* what we have already (an MMAP2 of a mapping we read) */
    struct maps *m = maps_with(cur, &e);
    if (!m) {
        p->maps_dirty = true;
        return;
    }
    maps_free(p->next);
    p->next = m;
    p->unmap_check = true;
}

void pf_maps_fork(struct pf_sampler *s, struct pproc *child,
                  const struct pproc *parent)
{
    (void)s;
    const struct maps *cur = parent->next ? parent->next : parent->maps;
    struct maps *m = parent->known && cur ? maps_parse(cur->text, cur->text_len)
                                          : NULL;
    if (!m)
        return; /* read from /proc at its first unwind */
    maps_free(child->next);
    child->next = m;
    child->known = true;
    child->maps_dirty = false;
}

void pf_maps_exec(struct pf_sampler *s, struct pproc *p)
{
    (void)s;
    maps_free(p->next);
    p->next = maps_parse("", 0);
    p->known = p->next != NULL;
    p->maps_dirty = !p->known;
}
