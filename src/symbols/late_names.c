/* late_names.c - renaming a loaded profile's frames by build-id; see
 * late_names.h.
 *
 * Each module is opened alone, offline, from its debug file, and named
 * as the live symbolizer names code: DWARF (sym_dwarf.h), else the
 * symbol table (sym_elf.h).  A frame takes the function at its offset,
 * outside any inlined instance.
 */
#include "late_names.h"

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "dbgfetch.h"
#include "profile.h"
#include "strarena.h"
#include "sym_debug.h"
#include "sym_dwarf.h"
#include "sym_elf.h"
#include "sym_names.h"
#include "symbols.h"
#include "vec.h"

#define MAX_FRAMES 32           /* inline depth looked at */
#define POLL_NS 20000000ull     /* how often fetch answers are looked for */

struct late {
    struct profile *p;
    struct strarena ids;        /* distinct build-ids */
    char **paths;               /* by id: the debug file, or NULL */
    struct strarena names;      /* names handed to the renames */
    struct profile_rename *r;
    size_t nr, capr;
};

/* The code's debug file is the whole module here: never look further
 * (libdwfl's standard search would ask debuginfod on its own). */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
                        Dwarf_Addr base, const char *file_name,
                        const char *debuglink_file, GElf_Word debuglink_crc,
                        char **debuginfo_file_name)
{
    (void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
    (void)debuglink_file, (void)debuglink_crc, (void)debuginfo_file_name;
    return -1;
}

static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = no_debuginfo,
    .section_address = dwfl_offline_section_address,
};

/* The ELF address of file offset off in the module whose debug file is
 * elf.  A debug file keeps the program headers' addresses but not their
 * file offsets, so the linkers' layout is assumed: the segments up to the
 * code are where the first one (at offset 0) puts them, at the image's
 * base plus their offset.  The address must fall in an executable
 * segment. */
static bool offset_vaddr(Elf *elf, uint64_t off, uint64_t *vaddr)
{
    size_t n;
    bool have_base = false;
    uint64_t base = 0;
    if (elf_getphdrnum(elf, &n) != 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(elf, (int)i, &ph) == NULL || ph.p_type != PT_LOAD)
            continue;
        if (!have_base) {
            base = ph.p_vaddr - (ph.p_vaddr % (ph.p_align ? ph.p_align : 1));
            have_base = true;
        }
        uint64_t a = base + off;
        if ((ph.p_flags & PF_X) && a >= ph.p_vaddr && a - ph.p_vaddr < ph.p_memsz) {
            *vaddr = a;
            return true;
        }
    }
    return false;
}

/* The name of the function at addr in mod, and its file and first line;
 * NULL when neither DWARF nor the symbol table knows it. */
static const char *name_at(struct late *l, struct sym_dwarf *dw,
                           const struct sym_elf *syms, Dwfl_Module *mod,
                           uint64_t addr, const char *module,
                           struct frame_desc *to)
{
    struct sym_frame sf[MAX_FRAMES];
    int n = sym_dwarf_frames(dw, mod, addr, module, sf, MAX_FRAMES);
    if (n > 0 && sf[n - 1].name) {
        to->file = sf[n - 1].file;
        to->line = sf[n - 1].func_line;
        return sf[n - 1].name;
    }
    uint64_t start;
    const char *name = sym_elf_find(syms, mod, addr, &start);
    return name ? sym_names_demangle(&l->names, name) : NULL;
}

/* Renames for the frames of build-id `id`, whose debug file is path. */
static void name_module(struct late *l, const char *id, const char *path)
{
    Dwfl *dwfl = dwfl_begin(&offline_callbacks);
    if (!dwfl)
        return;
    dwfl_report_begin(dwfl);
    Dwfl_Module *mod = dwfl_report_offline(dwfl, id, path, -1);
    dwfl_report_end(dwfl, NULL, NULL);
    Dwarf_Addr bias = 0;
    Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
    struct sym_dwarf *dw = elf ? sym_dwarf_new(&l->names) : NULL;
    struct sym_elf *syms = dw ? sym_elf_build(mod) : NULL;
    uint32_t count = dw ? profile_frame_count(l->p) : 0;
    for (uint32_t f = 0; f < count; f++) {
        const struct frame_desc *d = profile_frame(l->p, f);
        uint64_t vaddr;
        if (d->kind != FRAME_FUNC || !d->build_id ||
            strcmp(d->build_id, id) != 0 ||
            !offset_vaddr(elf, d->offset, &vaddr) ||
            VEC_RESERVE(l->r, l->capr, l->nr + 1) < 0)
            continue;
        struct frame_desc to = {.module = d->module, .addr = d->addr,
                                .kind = FRAME_FUNC};
        to.name = name_at(l, dw, syms, mod, vaddr + bias, d->module, &to);
        if (to.name)
            l->r[l->nr++] = (struct profile_rename){f, to};
    }
    /* the names are interned in l->names, which outlives the module */
    sym_elf_free(syms);
    sym_dwarf_free(dw);
    dwfl_end(dwfl);
}

/* Fetch the build-ids without a local file, waiting for the answers at
 * most the fetcher's bound in all. */
static void fetch_missing(struct late *l, struct sym_debug *dbg)
{
    struct dbgfetch *f = dbgfetch_new();
    if (!f)
        return;
    struct dbgfetch_stats st;
    dbgfetch_get_stats(f, &st);
    size_t asked = 0;
    for (size_t i = 0; i < l->ids.nstr; i++)
        if (!l->paths[i]) {
            dbgfetch_request(f, strarena_str(&l->ids, (uint32_t)i));
            asked++;
        }
    uint64_t until = clock_mono_ns() + (uint64_t)st.timeout_s * 1000000000ull;
    while (asked > 0 && clock_mono_ns() < until) {
        struct dbgfetch_result *list = dbgfetch_take(f);
        for (struct dbgfetch_result *r = list; r; r = r->next, asked--)
            if (r->path)
                sym_debug_add(dbg, r->build_id, r->path);
        dbgfetch_result_free(list);
        if (!list) {
            struct timespec ts = {0, (long)POLL_NS};
            nanosleep(&ts, NULL);
        }
    }
    dbgfetch_free(f);
    for (size_t i = 0; i < l->ids.nstr; i++)
        if (!l->paths[i])
            l->paths[i] = sym_debug_path_of(dbg, strarena_str(&l->ids, (uint32_t)i));
}

int late_names_resolve(struct profile *p, struct late_names_stats *st)
{
    struct late l = {.p = p};
    struct sym_debug *dbg = NULL;
    int rc = -1;
    if (st)
        *st = (struct late_names_stats){0};
    for (uint32_t f = 0; f < profile_frame_count(p); f++) {
        const char *id = profile_frame(p, f)->build_id;
        if (id && strarena_intern_id(&l.ids, id, strlen(id)) == UINT32_MAX)
            goto out;
    }
    if (l.ids.nstr == 0) {
        rc = 0;
        goto out;
    }
    l.paths = calloc(l.ids.nstr, sizeof *l.paths);
    dbg = sym_debug_new();
    if (!l.paths || !dbg)
        goto out;
    elf_version(EV_CURRENT);
    bool missing = false;
    for (size_t i = 0; i < l.ids.nstr; i++) {
        l.paths[i] = sym_debug_path_of(dbg, strarena_str(&l.ids, (uint32_t)i));
        missing |= !l.paths[i];
    }
    if (missing)
        fetch_missing(&l, dbg);
    for (size_t i = 0; i < l.ids.nstr; i++)
        if (l.paths[i]) {
            name_module(&l, strarena_str(&l.ids, (uint32_t)i), l.paths[i]);
            if (st)
                st->found++;
        }
    rc = profile_rename_frames(p, l.r, l.nr);
    if (st) {
        st->modules = (uint32_t)l.ids.nstr;
        st->renamed = (uint32_t)l.nr;
    }
out:
    for (size_t i = 0; l.paths && i < l.ids.nstr; i++)
        free(l.paths[i]);
    free(l.paths);
    free(l.r);
    sym_debug_free(dbg);
    strarena_free(&l.ids);
    strarena_free(&l.names);
    return rc;
}
