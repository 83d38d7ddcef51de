/* symbols.c - addresses of a target process -> frames, with elfutils libdwfl.
 *
 * Called only by the collector thread (collect.c) and --dump (dump.c)
 * through symbols.h.
 *
 * One Dwfl lives as long as the symbolizer.  symbols_load_maps re-reports
 * the modules between dwfl_report_begin and dwfl_report_end, which keeps
 * every module whose name and range did not change: after a dlopen, libc's
 * symbols and DWARF are not read again.
 *
 * Besides what libdwfl is told, the maps snapshot (maps.h) is kept:
 * libdwfl reports only file mappings, while we also need the [vdso] range
 * (reported by hand, its image read from the target's memory), which
 * addresses are in no file mapping (JIT code, named from the perf map
 * first: jitmap.h), each mapping's range and inode (to open the right
 * file: sym_files.h) and file offset (to name code without a symbol
 * "[module+0xOFFSET]", as perf does).
 *
 * An address in a module is resolved from its DWARF (sym_dwarf.h:
 * function, inline chain, lines), else its ELF symbol table (sym_elf.h),
 * else named by the offset of its function's start (sym_fde.h).  Debug
 * info is found by sym_debug.h, never by libdwfl's standard search (which
 * would ask debuginfod on this thread); a module without any is asked
 * from debuginfod (dbgfetch.h), and its frames carry its build-id so they
 * can be named again when it arrives (symbols_update starts libdwfl over
 * with the new files).  Every string handed out lives in one arena,
 * interned, until the next symbols_load_maps.  Resolved frame lists are
 * cached per address (a hit costs tens of nanoseconds).
 */
#include "symbols.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clock.h"
#include "dbgfetch.h"
#include "idtab.h"
#include "jitmap.h"
#include "maps.h"
#include "strarena.h"
#include "sym_debug.h"
#include "sym_dwarf.h"
#include "sym_elf.h"
#include "sym_fde.h"
#include "sym_files.h"
#include "sym_names.h"
#include "target.h"
#include "util.h"
#include "vec.h"

#define SYM_MAX_FRAMES 32          /* inline depth kept per address */
#define SYM_CACHE_MAX (1u << 20)   /* cached addresses before starting over */

/* What each Dwfl_Module's userdata points to. */
struct mod_info {
    struct symbols *s;     /* for find_elf */
    struct sym_elf *syms;  /* its symbol table, sorted; NULL if none */
    bool syms_built;       /* syms was built (maybe NULL) */
    struct sym_fde *fdes;  /* its FDE starts; NULL if none */
    bool fdes_built;       /* fdes was built (maybe NULL) */
    bool id_read;          /* build_id was read */
    bool dwarf_checked;    /* has_dwarf was found out */
    bool has_dwarf;        /* it has DWARF (its own, or found for it) */
    char build_id[SYM_BUILD_ID_HEX]; /* lowercase hex, "" if none */
};

/* One cached address: its frames are frames[first .. first + n). */
struct cache_entry {
    uint32_t first;
    uint32_t n;
};

struct symbols {
    pid_t pid;                 /* the target */
    char root[64];             /* "" when the target shares our root,
                                  else "/proc/PID/root" */

    Dwfl *dwfl;
    Dwfl_Callbacks callbacks;  /* libdwfl keeps a pointer to it */
    struct sym_debug *debug;   /* where debug info is found */
    struct dbgfetch *fetch;    /* debuginfod, or NULL; not ours */
    struct strarena asked;     /* build-ids of modules met without debug
                                  info (asked from fetch, if any) */
    char **gained;             /* build-ids given debug info by the last
                                  symbols_update */
    size_t ngained, capgained;

    struct strarena names;     /* every string handed out */
    struct maps *maps;         /* the snapshot libdwfl was given */
    uint64_t vdso_start;       /* [vdso] range; 0,0 when none */
    uint64_t vdso_end;
    char *vdso_image;          /* copy behind the [vdso] module's Elf: it
                                  must outlive that Elf */
    struct jitmap *jit;        /* the target's perf map */
    struct sym_dwarf *dwarf;   /* per-CU indexes, qualified names */

    struct cache_entry *cache; /* address -> frames */
    size_t ncache, capcache;
    struct idtab cache_ids;    /* util_mix64(address looked up) -> index in
                                  cache; a bijection: the hash is the key */
    struct sym_frame *frames;  /* frame lists of cached addresses */
    size_t nframes, capframes;

    struct symbols_stats stats;
};

static const char sym_unknown[] = "[unknown]";

/* --- libdwfl callbacks ------------------------------------------------------ */

/* A mapping of the file libdwfl reported as module `name` at `base`. */
static const struct map_entry *mapping_of_module(const struct symbols *s,
                                                 const char *name,
                                                 uint64_t base)
{
    const struct map_entry *m = maps_find(s->maps, base);
    if (m != NULL && strcmp(m->path, name) == 0)
        return m;
    return maps_find_path(s->maps, name);
}

/* The [vdso] has no file: hand libdwfl an Elf over a copy of its image. */
static int vdso_find_elf(struct symbols *s, Elf **elfp)
{
    char *buf = sym_files_vdso(s->pid, s->vdso_start, s->vdso_end);
    if (buf == NULL)
        return -1;
    Elf *elf = elf_memory(buf, s->vdso_end - s->vdso_start);
    if (elf == NULL || elf_kind(elf) != ELF_K_ELF) {
        if (elf != NULL)
            elf_end(elf);
        free(buf);
        return -1;
    }
    /* libdwfl asks once per module; an older image belonged to a [vdso]
     * module that dwfl_report_end has already removed (and elf_end'ed). */
    free(s->vdso_image);
    s->vdso_image = buf;
    *elfp = elf;
    return -1;
}

/* Dwfl_Callbacks.find_elf: *userdata is the module's struct mod_info (set
 * by symbols_load_maps on every module). */
static int sym_find_elf(Dwfl_Module *mod, void **userdata, const char *name,
                        Dwarf_Addr base, char **file_name, Elf **elfp)
{
    (void)mod;
    struct mod_info *mi = *userdata;
    if (mi == NULL)
        return -1;
    struct symbols *s = mi->s;
    if (strcmp(name, "[vdso]") == 0)
        return vdso_find_elf(s, elfp);
    if (name[0] != '/')
        return -1;
    return sym_files_open(s->pid, s->root, name,
                          mapping_of_module(s, name, base), file_name);
}

/* Dwfl_Callbacks.find_debuginfo: see sym_debug.h for where it looks,
 * and why not libdwfl's dwfl_standard_find_debuginfo. */
static int sym_find_debuginfo(Dwfl_Module *mod, void **userdata,
                              const char *modname, Dwarf_Addr base,
                              const char *file_name,
                              const char *debuglink_file,
                              GElf_Word debuglink_crc,
                              char **debuginfo_file_name)
{
    (void)modname;
    (void)base;
    struct mod_info *mi = *userdata;
    if (mi == NULL)
        return -1;
    return sym_debug_find(mi->s->debug, mod, file_name, debuglink_file,
                          debuglink_crc, debuginfo_file_name);
}

struct userdata_ctx {
    struct symbols *s;  /* what find_elf will get */
    int modules;        /* modules seen */
};

/* dwfl_getmodules callback: give new modules their struct mod_info. */
static int set_userdata(Dwfl_Module *mod, void **userdata, const char *name,
                        Dwarf_Addr start, void *arg)
{
    (void)mod;
    (void)name;
    (void)start;
    struct userdata_ctx *ctx = arg;
    if (*userdata == NULL) {
        struct mod_info *mi = calloc(1, sizeof *mi);
        if (mi != NULL)
            mi->s = ctx->s;
        *userdata = mi;
    }
    ctx->modules++;
    return DWARF_CB_OK;
}

/* dwfl_report_end callback: a module goes away.  libdwfl passes the
 * address of the module's userdata slot (MODCB_ARGS), not its value. */
static int free_userdata(Dwfl_Module *mod, void *userdata_slot, const char *name,
                         Dwarf_Addr start, void *arg)
{
    (void)mod;
    (void)name;
    (void)start;
    (void)arg;
    void **slot = userdata_slot;
    struct mod_info *mi = *slot;
    if (mi != NULL) {
        sym_elf_free(mi->syms);
        sym_fde_free(mi->fdes);
    }
    free(mi);
    *slot = NULL;
    return DWARF_CB_OK;
}

static int free_userdata_walk(Dwfl_Module *mod, void **userdata,
                              const char *name, Dwarf_Addr start, void *arg)
{
    return free_userdata(mod, userdata, name, start, arg);
}

/* --- resolving one address ---------------------------------------------------- */

static void frame_unknown(struct sym_frame *f, const char *name,
                          const char *module)
{
    *f = (struct sym_frame){.name = name ? name : sym_unknown,
                            .module = module};
}

/* The file offset of addr in its module (mapped at base), which is what
 * perf shows and what objdump/addr2line take for a shared object. */
static uint64_t file_offset(const struct symbols *s, uint64_t addr,
                            uint64_t base)
{
    const struct map_entry *m = maps_find(s->maps, addr);
    return m != NULL && m->path[0] == '/' ? addr - m->start + m->offset
                                          : addr - base;
}

/* "[module+0xOFFSET]", the file offset of addr. */
static void frame_offset(struct symbols *s, struct sym_frame *f,
                         const char *module, uint64_t addr, uint64_t base)
{
    uint64_t off = file_offset(s, addr, base);
    char buf[512];
    snprintf(buf, sizeof buf, "[%s+0x%" PRIx64 "]", module ? module : "?",
             off);
    frame_unknown(f, sym_names_intern(&s->names, buf), module);
}

static const char *module_name(struct symbols *s, Dwfl_Module *mod,
                               uint64_t *base)
{
    Dwarf_Addr start = 0;
    const char *name = dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL,
                                        NULL, NULL);
    *base = start;
    return name != NULL ? sym_names_basename(&s->names, name) : NULL;
}

static struct mod_info *mod_info_of(Dwfl_Module *mod)
{
    void **userdata = NULL;
    dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
    return userdata != NULL ? *userdata : NULL;
}

/* mod's build-id in hex ("" if none), read once (libdwfl knows it once
 * the module's ELF is loaded). */
static const char *mod_build_id(Dwfl_Module *mod, struct mod_info *mi)
{
    if (!mi->id_read) {
        Dwarf_Addr bias;
        (void)dwfl_module_getelf(mod, &bias);
        sym_debug_build_id(mod, mi->build_id);
        mi->id_read = true;
    }
    return mi->build_id;
}

/* Whether mod has DWARF.  The build-id of a module without any is noted,
 * and asked from debuginfod when a fetcher is set, once per build-id. */
static bool mod_has_dwarf(struct symbols *s, Dwfl_Module *mod,
                          struct mod_info *mi)
{
    if (mi->dwarf_checked)
        return mi->has_dwarf;
    Dwarf_Addr bias;
    mi->dwarf_checked = true;
    mi->has_dwarf = dwfl_module_getdwarf(mod, &bias) != NULL;
    const char *id = mod_build_id(mod, mi);
    if (!mi->has_dwarf && id[0] &&
        strarena_lookup(&s->asked, id, strlen(id)) == UINT32_MAX &&
        strarena_intern_id(&s->asked, id, strlen(id)) != UINT32_MAX) {
        s->stats.no_debuginfo++;
        if (s->fetch)
            dbgfetch_request(s->fetch, id);
    }
    return mi->has_dwarf;
}

/* Where the function holding addr starts (sym_fde.h); 0 if unknown.
 * The module's table is read on first use. */
static uint64_t fde_start(Dwfl_Module *mod, uint64_t addr)
{
    struct mod_info *mi = mod_info_of(mod);
    if (mi == NULL)
        return 0;
    if (!mi->fdes_built) {
        mi->fdes = sym_fde_build(mod);
        mi->fdes_built = true;
    }
    return sym_fde_start(mi->fdes, mod, addr);
}

/* The demangled ELF symbol (.symtab or .dynsym) naming addr, its start in
 * *start; NULL if none.  The module's table is sorted on first use. */
static const char *elf_name(struct symbols *s, Dwfl_Module *mod,
                            uint64_t addr, uint64_t *start)
{
    struct mod_info *mi = mod_info_of(mod);
    if (mi == NULL)
        return NULL;
    if (!mi->syms_built) {
        mi->syms = sym_elf_build(mod);
        mi->syms_built = true;
    }
    const char *name = sym_elf_find(mi->syms, mod, addr, start);
    return name != NULL ? sym_names_demangle(&s->names, name) : NULL;
}

/* Frames for an address inside a module libdwfl knows: its DWARF, else
 * (stripped, no debug info, hand-written asm) its ELF symbol table, else
 * its offset. */
static int resolve_in_module(struct symbols *s, Dwfl_Module *mod,
                             uint64_t addr, struct sym_frame *out, int cap)
{
    uint64_t base = 0, start = 0;
    const char *module = module_name(s, mod, &base);
    int n = sym_dwarf_frames(s->dwarf, mod, addr, module, out, cap);
    if (n > 0) {
        if (out[n - 1].name == NULL)
            out[n - 1].name = elf_name(s, mod, addr, &start);
        for (int i = 0; i < n; i++)
            if (out[i].name == NULL)
                out[i].name = sym_unknown;
        return n;
    }
    if (module != NULL && strcmp(module, "[vdso]") == 0) {
        const char *name = elf_name(s, mod, addr, &start);
        if (name != NULL)
            out[0] = (struct sym_frame){.name = name, .module = module,
                                        .sym_addr = start, .known = true};
        else
            frame_unknown(&out[0], module, module);
        return 1;
    }
    const char *name = elf_name(s, mod, addr, &start);
    if (name != NULL) {
        out[0] = (struct sym_frame){.name = name, .module = module,
                                    .sym_addr = start, .known = true};
        out[0].line = sym_dwarf_line(s->dwarf, mod, addr, &out[0].file);
    } else {
        start = fde_start(mod, addr);
        frame_offset(s, &out[0], module, start ? start : addr, base);
        out[0].sym_addr = start;
    }
    /* Named without debug info: keep what names it again once the debug
     * info arrives (symbols_lookup_offset). */
    struct mod_info *mi = mod_info_of(mod);
    if (mi != NULL && !mod_has_dwarf(s, mod, mi) && mi->build_id[0]) {
        out[0].build_id = sym_names_intern(&s->names, mi->build_id);
        out[0].offset = file_offset(s, start ? start : addr, base);
    }
    return 1;
}

/* Frames for addr (never fewer than 1).  *cacheable is false for unknown
 * code where a JIT may later write a perf map entry. */
static int resolve(struct symbols *s, uint64_t addr, struct sym_frame *out,
                   int cap, bool *cacheable)
{
    *cacheable = true;
    const struct map_entry *m = maps_find(s->maps, addr);
    bool vdso = addr >= s->vdso_start && addr < s->vdso_end;
    /* Only file-backed mappings (and the [vdso]) belong to a module.
     * libdwfl's modules also cover memory that is not the file's: Node.js
     * (a non-PIE executable) had its JIT code given to "node". */
    if (vdso || (m != NULL && m->path[0] == '/')) {
        Dwfl_Module *mod = s->dwfl ? dwfl_addrmodule(s->dwfl, addr) : NULL;
        if (mod != NULL)
            return resolve_in_module(s, mod, addr, out, cap);
        if (vdso)
            frame_unknown(&out[0], "[vdso]", "[vdso]");
        else  /* a file libdwfl did not take (or a failed report) */
            frame_offset(s, &out[0], sym_names_basename(&s->names, m->path),
                         addr, m->start);
        return 1;
    }
    /* JIT code lives in anonymous executable memory, or in memory mapped
     * after this snapshot: the perf map first. */
    if (m == NULL || m->x) {
        uint64_t start = 0;
        const char *name = jitmap_find(s->jit, &s->names, addr, &start);
        if (name != NULL) {
            out[0] = (struct sym_frame){.name = name, .module = "[jit]",
                                        .sym_addr = start, .known = true};
            return 1;
        }
        *cacheable = false;
    }
    frame_unknown(&out[0], NULL, NULL);
    return 1;
}

/* --- cache --------------------------------------------------------------------- */

static void cache_clear(struct symbols *s)
{
    idtab_clear(&s->cache_ids);
    s->ncache = 0;
    s->nframes = 0;
}

static const struct cache_entry *cache_find(const struct symbols *s,
                                            uint64_t addr)
{
    uint32_t id = idtab_find(&s->cache_ids, util_mix64(addr), NULL, NULL);
    return id != IDTAB_NONE ? &s->cache[id] : NULL;
}

/* Remember addr's frames.  On OOM the address simply stays uncached. */
static void cache_insert(struct symbols *s, uint64_t addr,
                         const struct sym_frame *f, int n)
{
    if (s->ncache >= SYM_CACHE_MAX)
        cache_clear(s);  /* bounded memory; strings stay in the arena */
    if (VEC_RESERVE(s->cache, s->capcache, s->ncache + 1) < 0 ||
        VEC_RESERVE(s->frames, s->capframes, s->nframes + (size_t)n) < 0 ||
        idtab_insert(&s->cache_ids, util_mix64(addr), (uint32_t)s->ncache) < 0)
        return;
    s->cache[s->ncache++] = (struct cache_entry){
        .first = (uint32_t)s->nframes, .n = (uint32_t)n};
    memcpy(&s->frames[s->nframes], f, (size_t)n * sizeof *f);
    s->nframes += (size_t)n;
}

/* --- API ------------------------------------------------------------------------- */

static void clear_gained(struct symbols *s)
{
    for (size_t i = 0; i < s->ngained; i++)
        free(s->gained[i]);
    s->ngained = 0;
}

static void set_err(char *err, size_t errlen, const char *what, pid_t pid,
                    const char *why)
{
    if (err != NULL && errlen > 0)
        snprintf(err, errlen, "%s %d: %s", what, (int)pid, why);
}

struct symbols *symbols_new(pid_t pid, char *err, size_t errlen)
{
    if (pid <= 0) {
        set_err(err, errlen, "bad pid", pid, "must be > 0");
        return NULL;
    }
    char path[96];
    struct stat st;
    snprintf(path, sizeof path, "/proc/%d", (int)pid);
    if (stat(path, &st) != 0) {
        set_err(err, errlen, "cannot stat process", pid, strerror(errno));
        return NULL;
    }
    struct symbols *s = calloc(1, sizeof *s);
    if (s == NULL) {
        set_err(err, errlen, "symbolizer for", pid, strerror(ENOMEM));
        return NULL;
    }
    s->pid = pid;
    sym_files_root(pid, s->root, sizeof s->root);
    snprintf(path, sizeof path, "%s/tmp/perf-%d.map", s->root,
             (int)target_ns_pid(pid));
    s->jit = jitmap_new(path, st.st_uid);
    s->dwarf = sym_dwarf_new(&s->names);
    s->debug = sym_debug_new();
    if (s->jit == NULL || s->dwarf == NULL || s->debug == NULL) {
        set_err(err, errlen, "symbolizer for", pid, strerror(ENOMEM));
        symbols_free(s);
        return NULL;
    }
    elf_version(EV_CURRENT);
    s->callbacks.find_elf = sym_find_elf;
    s->callbacks.find_debuginfo = sym_find_debuginfo;
    s->callbacks.section_address = dwfl_offline_section_address;
    s->callbacks.debuginfo_path = sym_debug_path(s->debug);
    s->dwfl = dwfl_begin(&s->callbacks);
    if (s->dwfl == NULL) {
        set_err(err, errlen, "dwfl_begin for", pid, dwfl_errmsg(-1));
        symbols_free(s);
        return NULL;
    }
    return s;
}

void symbols_free(struct symbols *s)
{
    if (s == NULL)
        return;
    if (s->dwfl != NULL) {
        dwfl_getmodules(s->dwfl, free_userdata_walk, NULL, 0);
        dwfl_end(s->dwfl);  /* ends the [vdso] Elf before its image goes */
    }
    free(s->vdso_image);
    sym_dwarf_free(s->dwarf);
    sym_debug_free(s->debug);
    strarena_free(&s->asked);
    clear_gained(s);
    free(s->gained);
    jitmap_free(s->jit);
    strarena_free(&s->names);
    maps_free(s->maps);
    idtab_free(&s->cache_ids);
    free(s->cache);
    free(s->frames);
    free(s);
}

/* Report the modules of s->maps to s->dwfl: libdwfl keeps those whose
 * name and range did not change.  0, or -1 when none could be. */
static int report_modules(struct symbols *s)
{
    if (s->dwfl == NULL || s->maps == NULL)
        return -1;
    dwfl_report_begin(s->dwfl);
    FILE *f = s->maps->text_len > 0
                  ? fmemopen(s->maps->text, s->maps->text_len, "r") : NULL;
    if (f != NULL) {
        /* Modules reported before a bad line stay; the error is ignored. */
        (void)dwfl_linux_proc_maps_report(s->dwfl, f);
        fclose(f);
    }
    if (s->vdso_end > s->vdso_start)
        dwfl_report_module(s->dwfl, "[vdso]", s->vdso_start, s->vdso_end);
    dwfl_report_end(s->dwfl, free_userdata, NULL);
    struct userdata_ctx ctx = {.s = s};
    dwfl_getmodules(s->dwfl, set_userdata, &ctx, 0);
    return ctx.modules > 0 ? 0 : -1;
}

int symbols_load_maps(struct symbols *s, const char *maps, size_t len)
{
    s->stats.reloads++;
    /* Everything that points into the arena, or into modules that may go,
     * goes first. */
    cache_clear(s);
    sym_dwarf_clear(s->dwarf);
    jitmap_clear(s->jit);
    strarena_free(&s->names);
    maps_free(s->maps);
    s->vdso_start = s->vdso_end = 0;
    s->maps = maps_parse(maps, len);
    if (s->maps == NULL)
        return -1;
    const struct map_entry *vdso = maps_find_path(s->maps, "[vdso]");
    if (vdso != NULL) {
        s->vdso_start = vdso->start;
        s->vdso_end = vdso->end;
    }
    return report_modules(s);
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
    const struct cache_entry *c = cache_find(s, addr);
    if (c != NULL) {
        s->stats.hits++;
        int n = (int)c->n < max ? (int)c->n : max;
        memcpy(out, &s->frames[c->first], (size_t)n * sizeof *out);
        return n;
    }
    s->stats.misses++;
    uint64_t t0 = clock_mono_ns();
    struct sym_frame tmp[SYM_MAX_FRAMES];
    bool cacheable;
    int n = resolve(s, addr, tmp, SYM_MAX_FRAMES, &cacheable);
    if (cacheable)
        cache_insert(s, addr, tmp, n);
    s->stats.miss_ns += clock_mono_ns() - t0;
    if (n > max)
        n = max;
    memcpy(out, tmp, (size_t)n * sizeof *out);
    return n;
}

void symbols_get_stats(const struct symbols *s, struct symbols_stats *out)
{
    *out = s->stats;
}

void symbols_set_fetcher(struct symbols *s, struct dbgfetch *f)
{
    s->fetch = f;
}

/* Start libdwfl over: a module that looked for its debug info and found
 * none never looks again, so every module is reported anew to a new
 * Dwfl (and finds what sym_debug_add has given it).  The arena stays:
 * frames handed out keep their strings. */
static void restart_dwfl(struct symbols *s)
{
    cache_clear(s);
    sym_dwarf_clear(s->dwarf);
    if (s->dwfl != NULL) {
        dwfl_getmodules(s->dwfl, free_userdata_walk, NULL, 0);
        dwfl_end(s->dwfl);
    }
    s->dwfl = dwfl_begin(&s->callbacks);
    report_modules(s);
}

int symbols_update(struct symbols *s)
{
    clear_gained(s);
    if (s->fetch == NULL)
        return 0;
    struct dbgfetch_result *list = dbgfetch_take(s->fetch);
    for (struct dbgfetch_result *r = list; r != NULL; r = r->next) {
        if (r->path == NULL ||
            VEC_RESERVE(s->gained, s->capgained, s->ngained + 1) < 0 ||
            sym_debug_add(s->debug, r->build_id, r->path) < 0 ||
            (s->gained[s->ngained] = strdup(r->build_id)) == NULL)
            continue;
        s->ngained++;
        s->stats.late_debuginfo++;
    }
    dbgfetch_result_free(list);
    if (s->ngained > 0)
        restart_dwfl(s);
    return (int)s->ngained;
}

bool symbols_gained(const struct symbols *s, const char *build_id)
{
    for (size_t i = 0; i < s->ngained; i++)
        if (strcmp(s->gained[i], build_id) == 0)
            return true;
    return false;
}

int symbols_lookup_offset(struct symbols *s, const char *build_id,
                          uint64_t offset, struct sym_frame *out, int max)
{
    if (max < 1 || s->maps == NULL || s->dwfl == NULL)
        return 0;
    for (size_t i = 0; i < s->maps->n; i++) {
        const struct map_entry *m = &s->maps->v[i];
        if (m->path[0] != '/' || offset < m->offset ||
            offset - m->offset >= m->end - m->start)
            continue;
        uint64_t addr = m->start + (offset - m->offset);
        Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, addr);
        struct mod_info *mi = mod != NULL ? mod_info_of(mod) : NULL;
        if (mi == NULL || strcmp(mod_build_id(mod, mi), build_id) != 0)
            continue;
        struct sym_frame tmp[SYM_MAX_FRAMES];
        int n = resolve_in_module(s, mod, addr, tmp, SYM_MAX_FRAMES);
        if (n > max)
            n = max;
        memcpy(out, tmp, (size_t)n * sizeof *out);
        return n;
    }
    return 0;
}
