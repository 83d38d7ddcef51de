/* sym_store.c - modules shared by every symbolizer of a session; see
 * sym_store.h.
 *
 * Each module has a Dwfl of its own, holding that one module reported
 * at its ELF addresses: dwfl_report_module over [first PT_LOAD, aligned
 * down; end of the last PT_LOAD), so libdwfl's load bias is 0 and every
 * address here is an ELF address.  libdwfl asks find_elf for the file:
 * a duplicate of the descriptor opened when the module was loaded (kept,
 * so that a restart with late debug info needs no path that may be gone)
 * or, for the [vdso], an Elf over the image copied from the target.
 *
 * An address in a module is resolved from its DWARF (sym_dwarf.h:
 * function, inline chain, lines), else its ELF symbol table (sym_elf.h),
 * else its PLT stub ("malloc@plt", sym_plt.h), else named by the file
 * offset of its function's start (sym_fde.h).
 * Debug info is found by sym_debug.h, never by libdwfl's standard search
 * (which would ask debuginfod on this thread).
 *
 * Keys live in one arena whose string ids index `mods` (NULL once a
 * module is freed; its key stays, and a new load reuses the slot).
 */
#include "sym_store.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "dbgfetch.h"
#include "idtab.h"
#include "maps.h"
#include "strarena.h"
#include "sym_debug.h"
#include "sym_dwarf.h"
#include "sym_elf.h"
#include "sym_fde.h"
#include "sym_files.h"
#include "sym_names.h"
#include "sym_plt.h"
#include "symbols.h"
#include "util.h"
#include "vec.h"

#define SYM_MAX_FRAMES 32          /* inline depth kept per address */
#define SYM_CACHE_MAX (1u << 20)   /* cached addresses before starting over */

/* One PT_LOAD segment. */
struct load_seg {
    uint64_t offset;   /* p_offset */
    uint64_t vaddr;    /* p_vaddr */
    uint64_t filesz;
    uint64_t memsz;
    uint64_t align;    /* p_align, at least 1 */
};

/* One cached address: its frames are frames[first .. first + n). */
struct cache_entry {
    uint32_t first;
    uint32_t n;
};

struct sym_mod {
    struct sym_store *st;
    uint32_t key;              /* its key's id in st->keys */
    uint32_t refs;
    char *name;                /* libdwfl's module name: the maps path of
                                  the process that loaded it */
    char *file_name;           /* the path it was opened by */
    int fd;                    /* that file; -1 for the [vdso] */
    char *image;               /* the [vdso] image: it must outlive the
                                  Elf over it */
    size_t image_len;
    struct load_seg *segs;
    size_t nsegs;
    uint64_t low, high;        /* the range reported to libdwfl */
    char build_id[SYM_BUILD_ID_HEX]; /* lowercase hex, "" if none */

    Dwfl *dwfl;
    Dwfl_Module *mod;
    struct sym_elf *syms;      /* its symbol table, sorted; NULL if none */
    bool syms_built;
    struct sym_fde *fdes;      /* its FDE starts; NULL if none */
    bool fdes_built;
    struct sym_plt *plt;       /* its PLT stubs; NULL if none */
    bool plt_built;
    bool dwarf_checked;        /* has_dwarf was found out */
    bool has_dwarf;            /* it has DWARF (its own, or found for it) */

    struct strarena names;     /* every string its frames point to */
    const char *basename;      /* in names */
    struct sym_dwarf *dwarf;   /* per-CU indexes, qualified names */
    struct cache_entry *cache; /* module address -> frames */
    size_t ncache, capcache;
    struct idtab cache_ids;    /* util_mix64(address) -> index in cache;
                                  a bijection: the hash is the key */
    struct sym_frame *frames;  /* frame lists of cached addresses */
    size_t nframes, capframes;

    uint64_t bytes;            /* its file's size: what keeping it idle
                                  costs, roughly (libdwfl maps the file
                                  and reads its tables) */
    uint64_t idle_since;       /* refs 0: when (monotonic ns) */
    struct sym_mod *idle_newer, *idle_older; /* its idle list */
    bool idle_recur;           /* on the list of binaries that came back */
};

/* Modules no process holds, newest and oldest.  Two lists: those loaded
 * once, which go past the keep time (a binary run once), and those
 * loaded again after a free (a binary that comes back, as a build's
 * tools do once a build, however far apart), which only room (the
 * kept files' bytes, shared by both lists) sends away, after every
 * module loaded once. */
struct idle_list {
    struct sym_mod *newest, *oldest;
};

struct sym_store {
    Dwfl_Callbacks callbacks;  /* every module's Dwfl points to it */
    struct sym_debug *debug;   /* where debug info is found */
    struct dbgfetch *fetch;    /* debuginfod, or NULL; not ours */
    struct strarena asked;     /* build-ids met without debug info */
    struct strarena gained;    /* build-ids given debug info late... */
    uint64_t *gained_epoch;    /* ...by id: the epoch they came in */
    size_t ngained_epoch, capgained_epoch;
    uint64_t epoch;

    struct strarena keys;      /* module keys */
    struct sym_mod **mods;     /* by key id; NULL when not loaded */
    size_t nmods, capmods;

    uint32_t *key_loads;       /* by key id: times that module was loaded */
    size_t capkey_loads;
    uint64_t keep_bytes, keep_ns; /* sym_store_set_keep */
    struct idle_list idle[2];  /* [0] loaded once, [1] came back */

    struct sym_store_stats stats;
};

static const char sym_unknown[] = "[unknown]";

/* --- libdwfl callbacks ------------------------------------------------------ */

/* Dwfl_Callbacks.find_elf: *userdata is the struct sym_mod. */
static int store_find_elf(Dwfl_Module *dmod, void **userdata, const char *name,
                          Dwarf_Addr base, char **file_name, Elf **elfp)
{
    (void)dmod;
    (void)name;
    (void)base;
    struct sym_mod *m = *userdata;
    if (m == NULL)
        return -1;
    if (m->image != NULL) {
        Elf *elf = elf_memory(m->image, m->image_len);
        if (elf != NULL && elf_kind(elf) != ELF_K_ELF) {
            elf_end(elf);
            elf = NULL;
        }
        *elfp = elf;
        return -1;
    }
    int fd = fcntl(m->fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    *file_name = strdup(m->file_name);
    return fd;
}

/* Dwfl_Callbacks.find_debuginfo: see sym_debug.h for where it looks,
 * and why not libdwfl's dwfl_standard_find_debuginfo. */
static int store_find_debuginfo(Dwfl_Module *dmod, void **userdata,
                                const char *modname, Dwarf_Addr base,
                                const char *file_name,
                                const char *debuglink_file,
                                GElf_Word debuglink_crc,
                                char **debuginfo_file_name)
{
    (void)modname;
    (void)base;
    struct sym_mod *m = *userdata;
    if (m == NULL)
        return -1;
    return sym_debug_find(m->st->debug, dmod, file_name, debuglink_file,
                          debuglink_crc, debuginfo_file_name);
}

/* --- the store ---------------------------------------------------------------- */

struct sym_store *sym_store_new(struct dbgfetch *fetch)
{
    struct sym_store *st = calloc(1, sizeof *st);
    if (st == NULL)
        return NULL;
    st->debug = sym_debug_new();
    if (st->debug == NULL) {
        free(st);
        return NULL;
    }
    st->fetch = fetch;
    elf_version(EV_CURRENT);
    st->callbacks.find_elf = store_find_elf;
    st->callbacks.find_debuginfo = store_find_debuginfo;
    st->callbacks.section_address = dwfl_offline_section_address;
    st->callbacks.debuginfo_path = sym_debug_path(st->debug);
    return st;
}

static void mod_free(struct sym_mod *m);

void sym_store_free(struct sym_store *st)
{
    if (st == NULL)
        return;
    for (size_t i = 0; i < st->nmods; i++)
        mod_free(st->mods[i]);
    free(st->mods);
    free(st->key_loads);
    strarena_free(&st->keys);
    strarena_free(&st->asked);
    strarena_free(&st->gained);
    free(st->gained_epoch);
    sym_debug_free(st->debug);
    free(st);
}

void sym_store_get_stats(const struct sym_store *st,
                         struct sym_store_stats *out)
{
    *out = st->stats;
}

/* --stats: the binaries loaded most often, at most LOADS_SHOWN of them,
 * most first: "symbol loads: cc1 2, as 1, ...". */
#define LOADS_SHOWN 12
static void print_most_loaded(const struct sym_store *st, FILE *f)
{
    uint32_t top[LOADS_SHOWN];
    size_t n = 0, cap = st->keys.nstr < st->capkey_loads ? st->keys.nstr
                                                         : st->capkey_loads;
    for (size_t i = 0; i < cap; i++) {
        if (!st->key_loads[i])
            continue;
        size_t at = n < LOADS_SHOWN ? n++ : LOADS_SHOWN;
        while (at > 0 && st->key_loads[top[at - 1]] < st->key_loads[i]) {
            if (at < LOADS_SHOWN)
                top[at] = top[at - 1];
            at--;
        }
        if (at < LOADS_SHOWN)
            top[at] = (uint32_t)i;
    }
    fprintf(f, "symbol loads:");
    for (size_t k = 0; k < n; k++) {
        const char *key = strarena_str(&st->keys, top[k]);
        const char *slash = strrchr(key, '/');
        fprintf(f, "%s %s %u", k ? "," : "", slash ? slash + 1 : key,
                st->key_loads[top[k]]);
    }
    fprintf(f, "\n");
}

void sym_store_print_stats(const struct sym_store *st, FILE *f)
{
    fprintf(f, "symbol store: %u modules, %u references by processes, "
            "%" PRIu64 " loaded, %" PRIu64 " freed\n",
            st->stats.modules, st->stats.refs, st->stats.loads,
            st->stats.freed);
    for (size_t i = 0; i < st->nmods; i++)
        if (st->mods[i] != NULL && st->mods[i]->refs > 0)
            fprintf(f, "  module %s: %u processes\n", st->mods[i]->basename,
                    st->mods[i]->refs);
    if (!st->keep_bytes)
        return;
    /* how often a binary was loaded: once is the aim */
    uint32_t most = 0, keys = 0;
    const char *most_key = "";
    for (size_t i = 0; i < st->keys.nstr && i < st->capkey_loads; i++) {
        if (!st->key_loads[i])
            continue;
        keys++;
        if (st->key_loads[i] > most) {
            most = st->key_loads[i];
            most_key = strarena_str(&st->keys, (uint32_t)i);
        }
    }
    const char *slash = strrchr(most_key, '/');
    fprintf(f, "symbol reuse: %" PRIu64 " modules taken again after their "
            "last process, %u kept now (%.1f MiB of files; at most %.0f "
            "MiB, %g s); %u binaries loaded %" PRIu64 " times, at most "
            "%u (%s)\n", st->stats.reused, st->stats.idle,
            (double)st->stats.idle_bytes / 1048576.0,
            (double)st->keep_bytes / 1048576.0, (double)st->keep_ns / 1e9,
            keys, st->stats.loads, most, slash ? slash + 1 : most_key);
    print_most_loaded(st, f);
    /* why each module kept idle went: a binary loaded again tells */
    fprintf(f, "symbol frees: %" PRIu64 " idle past their %g s, %" PRIu64
            " idle for room (past %.0f MiB of files: those loaded once "
            "first), %" PRIu64 " too big to keep\n", st->stats.freed_time,
            (double)st->keep_ns / 1e9, st->stats.freed_room,
            (double)st->keep_bytes / 1048576.0, st->stats.freed_big);
}

/* --- modules no process holds ---------------------------------------------- */


static void idle_unlink(struct sym_store *st, struct sym_mod *m)
{
    struct idle_list *l = &st->idle[m->idle_recur];

    if (m->idle_newer)
        m->idle_newer->idle_older = m->idle_older;
    else
        l->newest = m->idle_older;
    if (m->idle_older)
        m->idle_older->idle_newer = m->idle_newer;
    else
        l->oldest = m->idle_newer;
    m->idle_newer = m->idle_older = NULL;
    st->stats.idle--;
    st->stats.idle_bytes -= m->bytes;
}

/* Free module m (no reference left). */
static void mod_drop(struct sym_store *st, struct sym_mod *m)
{
    st->mods[m->key] = NULL;
    st->stats.modules--;
    st->stats.freed++;
    mod_free(m);
}

/* The idle module room sends away first, or NULL: the oldest of those
 * loaded once (a binary run once, a test's, another job's, is the
 * least likely to come back), then the oldest of those that came back. */
static struct sym_mod *idle_oldest(const struct sym_store *st)
{
    return st->idle[0].oldest ? st->idle[0].oldest : st->idle[1].oldest;
}

/* Free the modules loaded once kept too long, then, while the kept ones
 * are too big, those loaded once, then those that came back, oldest
 * first. */
static void idle_trim(struct sym_store *st, uint64_t now)
{
    struct sym_mod *m;
    while ((m = st->idle[0].oldest) && now - m->idle_since > st->keep_ns) {
        st->stats.freed_time++;
        idle_unlink(st, m);
        mod_drop(st, m);
    }
    while (st->stats.idle_bytes > st->keep_bytes && (m = idle_oldest(st))) {
        st->stats.freed_room++;
        idle_unlink(st, m);
        mod_drop(st, m);
    }
}

void sym_store_set_keep(struct sym_store *st, uint64_t bytes, uint64_t ns)
{
    st->keep_bytes = bytes;
    st->keep_ns = ns;
    idle_trim(st, clock_mono_ns());
}

void sym_store_drop_idle(struct sym_store *st)
{
    struct sym_mod *m;
    while ((m = idle_oldest(st))) {
        idle_unlink(st, m);
        mod_drop(st, m);
    }
}

/* --- one module ---------------------------------------------------------------- */

static void mod_drop_tables(struct sym_mod *m)
{
    sym_elf_free(m->syms);
    sym_fde_free(m->fdes);
    sym_plt_free(m->plt);
    m->syms = NULL;
    m->fdes = NULL;
    m->plt = NULL;
    m->syms_built = m->fdes_built = m->plt_built = false;
    m->dwarf_checked = m->has_dwarf = false;
}

static void cache_clear(struct sym_mod *m)
{
    idtab_clear(&m->cache_ids);
    m->ncache = 0;
    m->nframes = 0;
}

void sym_store_forget(struct sym_store *st)
{
    for (size_t i = 0; i < st->nmods; i++)
        if (st->mods[i] != NULL) {
            cache_clear(st->mods[i]);
            sym_dwarf_clear(st->mods[i]->dwarf);
        }
}

static void mod_free(struct sym_mod *m)
{
    if (m == NULL)
        return;
    mod_drop_tables(m);
    if (m->dwfl != NULL)
        dwfl_end(m->dwfl);  /* ends the [vdso] Elf before its image goes */
    free(m->image);
    if (m->fd >= 0)
        close(m->fd);
    free(m->name);
    free(m->file_name);
    free(m->segs);
    sym_dwarf_free(m->dwarf);
    strarena_free(&m->names);
    idtab_free(&m->cache_ids);
    free(m->cache);
    free(m->frames);
    free(m);
}

/* Report m to a new Dwfl of its own.  0, or -1. */
static int mod_report(struct sym_mod *m)
{
    m->dwfl = dwfl_begin(&m->st->callbacks);
    if (m->dwfl == NULL)
        return -1;
    dwfl_report_begin(m->dwfl);
    m->mod = dwfl_report_module(m->dwfl, m->name, m->low, m->high);
    dwfl_report_end(m->dwfl, NULL, NULL);
    if (m->mod == NULL)
        return -1;
    void **userdata = NULL;
    dwfl_module_info(m->mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
    *userdata = m;
    return 0;
}

/* The PT_LOAD segments of elf into m, and the range libdwfl is given:
 * from the first one's address aligned down, as libdwfl computes the
 * bias (which is then 0).  0, or -1 when there is none. */
static int mod_read_segs(struct sym_mod *m, Elf *elf)
{
    size_t nph, cap = 0;
    if (elf_getphdrnum(elf, &nph) != 0)
        return -1;
    for (size_t i = 0; i < nph; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(elf, (int)i, &ph) == NULL || ph.p_type != PT_LOAD)
            continue;
        if (VEC_RESERVE(m->segs, cap, m->nsegs + 1) < 0)
            return -1;
        uint64_t align = ph.p_align ? ph.p_align : 1;
        m->segs[m->nsegs++] = (struct load_seg){ph.p_offset, ph.p_vaddr,
                                                ph.p_filesz, ph.p_memsz, align};
        if (m->nsegs == 1)
            m->low = m->high = ph.p_vaddr & -align;
        if (ph.p_vaddr + ph.p_memsz > m->high)
            m->high = ph.p_vaddr + ph.p_memsz;
    }
    return m->nsegs > 0 && m->high > m->low ? 0 : -1;
}

/* The module of key `key` with a reference taken, if loaded (an idle
 * one is taken again). */
static struct sym_mod *mod_find(struct sym_store *st, const char *key)
{
    uint32_t id = strarena_lookup(&st->keys, key, strlen(key));
    if (id >= st->nmods || st->mods[id] == NULL)
        return NULL;
    struct sym_mod *m = st->mods[id];
    if (m->refs == 0) {
        idle_unlink(st, m);
        st->stats.reused++;
    }
    sym_store_hold(m);
    return m;
}

/* A new module over elf, under key, with one reference.  fd (or the
 * [vdso] image of len bytes) is taken over only when it succeeds.  NULL
 * on failure. */
static struct sym_mod *mod_load(struct sym_store *st, const char *key,
                                const char *name, const char *file_name,
                                Elf *elf, int fd, char *image, size_t len,
                                const char *build_id)
{
    struct sym_mod *m = calloc(1, sizeof *m);
    uint32_t id = strarena_intern_id(&st->keys, key, strlen(key));
    if (m == NULL || id == UINT32_MAX ||
        VEC_RESERVE(st->mods, st->capmods, (size_t)id + 1) < 0) {
        free(m);
        return NULL;
    }
    if (VEC_RESERVE_ZERO(st->key_loads, st->capkey_loads, (size_t)id + 1) < 0) {
        free(m);
        return NULL;
    }
    while (st->nmods <= id)
        st->mods[st->nmods++] = NULL;
    *m = (struct sym_mod){.st = st, .key = id, .refs = 1, .fd = -1};
    snprintf(m->build_id, sizeof m->build_id, "%s", build_id);
    m->name = strdup(name);
    m->file_name = file_name != NULL ? strdup(file_name) : NULL;
    m->basename = sym_names_basename(&m->names, name);
    m->dwarf = sym_dwarf_new(&m->names);
    if (m->name == NULL || (file_name != NULL && m->file_name == NULL) ||
        m->basename == NULL || m->dwarf == NULL || mod_read_segs(m, elf) < 0) {
        mod_free(m);
        return NULL;
    }
    m->fd = fd;
    m->image = image;
    m->image_len = len;
    struct stat sb;
    m->bytes = fd >= 0 && fstat(fd, &sb) == 0 ? (uint64_t)sb.st_size : len;
    if (mod_report(m) < 0) {
        m->fd = -1;
        m->image = NULL;
        mod_free(m);
        return NULL;
    }
    st->mods[id] = m;
    st->stats.modules++;
    st->stats.refs++;
    st->stats.loads++;
    st->key_loads[id]++;
    return m;
}

/* "BUILDID/basename", or "dev:ino:size:mtime/basename" without one. */
static void mod_key(char *key, size_t size, const char *build_id, int fd,
                    const char *name)
{
    const char *base;
    int n = (int)sym_names_base(name, &base);
    struct stat sb;
    if (build_id[0] || fd < 0 || fstat(fd, &sb) != 0)
        snprintf(key, size, "%s/%.*s", build_id, n, base);
    else
        snprintf(key, size, "%llx:%llx:%llx:%lld.%09ld/%.*s",
                 (unsigned long long)sb.st_dev, (unsigned long long)sb.st_ino,
                 (unsigned long long)sb.st_size, (long long)sb.st_mtim.tv_sec,
                 sb.st_mtim.tv_nsec, n, base);
}

/* The module of the file open on fd (found by its key, or loaded under
 * the maps path `name`, the file taken over from fd then), with a
 * reference taken; fd is closed otherwise.  NULL when it is no ELF. */
static struct sym_mod *open_fd(struct sym_store *st, int fd, const char *name,
                               const char *opened)
{
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    struct sym_mod *mod = NULL;
    if (elf != NULL && elf_kind(elf) == ELF_K_ELF) {
        char id[SYM_BUILD_ID_HEX], key[SYM_BUILD_ID_HEX + 320];
        sym_debug_elf_build_id(elf, id);
        mod_key(key, sizeof key, id, fd, name);
        mod = mod_find(st, key);
        if (mod == NULL && opened != NULL &&
            (mod = mod_load(st, key, name, opened, elf, fd, NULL, 0, id)))
            fd = -1;  /* taken over */
    }
    if (elf != NULL)
        elf_end(elf);
    if (fd >= 0)
        close(fd);
    return mod;
}

struct sym_mod *sym_store_open(struct sym_store *st, pid_t pid,
                               const char *root, const char *name,
                               const struct map_entry *m)
{
    char *opened = NULL;
    int fd = sym_files_open(pid, root, name, m, &opened);
    if (fd < 0)
        return NULL;
    struct sym_mod *mod = open_fd(st, fd, name, opened);
    free(opened);
    return mod;
}

struct sym_mod *sym_store_preload(struct sym_store *st, const char *path)
{
    struct stat sb;
    int fd = util_open_regular(path, &sb);
    if (fd < 0)
        return NULL;
    uint64_t loads = st->stats.loads;
    struct sym_mod *mod = open_fd(st, fd, path, path);
    /* a new module: what its first lookup would read, the debug file
     * found, its sections (compressed in Debian's -dbg packages)
     * inflated and its address ranges indexed */
    Dwarf_Addr bias;
    if (mod != NULL && st->stats.loads != loads && mod->mod != NULL &&
        dwfl_module_getdwarf(mod->mod, &bias) != NULL)
        dwfl_module_addrdie(mod->mod, mod->low, &bias);
    return mod;
}

struct sym_mod *sym_store_open_vdso(struct sym_store *st, pid_t pid,
                                    uint64_t start, uint64_t end)
{
    char *image = sym_files_vdso(pid, start, end);
    if (image == NULL)
        return NULL;
    size_t len = end - start;
    Elf *elf = elf_memory(image, len);
    struct sym_mod *mod = NULL;
    if (elf != NULL && elf_kind(elf) == ELF_K_ELF) {
        char id[SYM_BUILD_ID_HEX], key[SYM_BUILD_ID_HEX + 64];
        sym_debug_elf_build_id(elf, id);
        /* without a build-id, one per process and range */
        if (id[0])
            snprintf(key, sizeof key, "%s/[vdso]", id);
        else
            snprintf(key, sizeof key, "%d:%" PRIx64 "/[vdso]", (int)pid,
                     start);
        mod = mod_find(st, key);
        if (mod == NULL &&
            (mod = mod_load(st, key, "[vdso]", NULL, elf, -1, image, len, id)))
            image = NULL;  /* taken over */
    }
    if (elf != NULL)
        elf_end(elf);
    free(image);
    return mod;
}

void sym_store_hold(struct sym_mod *mod)
{
    mod->refs++;
    mod->st->stats.refs++;
}

void sym_store_release(struct sym_store *st, struct sym_mod *mod)
{
    if (mod == NULL)
        return;
    st->stats.refs--;
    if (--mod->refs > 0)
        return;
    if (mod->bytes > st->keep_bytes || st->keep_ns == 0) {
        st->stats.freed_big += st->keep_ns != 0;
        mod_drop(st, mod);
        return;
    }
    /* kept for the next process of its binary: the newest idle one of
     * its list (a binary loaded again after a free has come back: only
     * room sends it away now) */
    struct idle_list *l;
    mod->idle_recur = st->key_loads[mod->key] > 1;
    l = &st->idle[mod->idle_recur];
    mod->idle_since = clock_mono_ns();
    mod->idle_older = l->newest;
    mod->idle_newer = NULL;
    if (l->newest)
        l->newest->idle_newer = mod;
    else
        l->oldest = mod;
    l->newest = mod;
    st->stats.idle++;
    st->stats.idle_bytes += mod->bytes;
    idle_trim(st, mod->idle_since);
}

bool sym_store_bias(const struct sym_mod *mod, uint64_t start,
                    uint64_t offset, uint64_t *bias)
{
    if (mod->image != NULL) {  /* the whole image is mapped at start */
        *bias = start - mod->low;
        return true;
    }
    /* A mapping starts where the loader mapped a segment (its offset
     * aligned down), or inside one that mprotect split (RELRO). */
    const struct load_seg *found = NULL;
    for (size_t i = 0; i < mod->nsegs && found == NULL; i++)
        if ((mod->segs[i].offset & -mod->segs[i].align) == offset)
            found = &mod->segs[i];
    for (size_t i = 0; i < mod->nsegs && found == NULL; i++) {
        const struct load_seg *g = &mod->segs[i];
        if ((g->offset & -g->align) <= offset &&
            offset < g->offset + g->filesz)
            found = g;
    }
    if (found == NULL)
        return false;
    *bias = start - offset + found->offset - found->vaddr;
    return true;
}

const char *sym_store_name(const struct sym_mod *mod)
{
    return mod->basename;
}

const char *sym_store_build_id(const struct sym_mod *mod)
{
    return mod->build_id;
}

Dwfl_Module *sym_store_dwfl(const struct sym_mod *mod)
{
    return mod->mod;
}

/* --- resolving one address ---------------------------------------------------- */

/* The file offset of module address addr, which is what perf shows and
 * what objdump/addr2line take for a shared object. */
static uint64_t file_offset(const struct sym_mod *m, uint64_t addr)
{
    for (size_t i = 0; i < m->nsegs; i++) {
        const struct load_seg *g = &m->segs[i];
        if (addr >= g->vaddr && addr - g->vaddr < g->memsz)
            return addr - g->vaddr + g->offset;
    }
    return addr - m->low;
}

static void frame_unknown(struct sym_frame *f, const char *name,
                          const char *module)
{
    *f = (struct sym_frame){.name = name ? name : sym_unknown,
                            .module = module};
}

/* Whether m has DWARF.  The build-id of a module without any is noted,
 * and asked from debuginfod when a fetcher is set, once per build-id for
 * the session. */
static bool mod_has_dwarf(struct sym_mod *m)
{
    if (m->dwarf_checked)
        return m->has_dwarf;
    struct sym_store *st = m->st;
    Dwarf_Addr bias;
    m->dwarf_checked = true;
    m->has_dwarf = dwfl_module_getdwarf(m->mod, &bias) != NULL;
    const char *id = m->build_id;
    if (!m->has_dwarf && id[0] &&
        strarena_lookup(&st->asked, id, strlen(id)) == UINT32_MAX &&
        strarena_intern_id(&st->asked, id, strlen(id)) != UINT32_MAX) {
        st->stats.no_debuginfo++;
        if (st->fetch)
            dbgfetch_request(st->fetch, id);
    }
    return m->has_dwarf;
}

/* Where the function holding addr starts (sym_fde.h); 0 if unknown.
 * The module's table is read on first use. */
static uint64_t fde_start(struct sym_mod *m, uint64_t addr)
{
    if (!m->fdes_built) {
        m->fdes = sym_fde_build(m->mod);
        m->fdes_built = true;
    }
    return sym_fde_start(m->fdes, m->mod, addr);
}

/* "malloc@plt" for addr in a PLT stub (sym_plt.h), its start in *start;
 * NULL if addr is in no PLT.  The module's table is read on first use. */
static const char *plt_name(struct sym_mod *m, uint64_t addr, uint64_t *start)
{
    if (!m->plt_built) {
        m->plt = sym_plt_build(m->mod);
        m->plt_built = true;
    }
    return sym_plt_name(m->plt, &m->names, addr, start);
}

/* The demangled ELF symbol (.symtab or .dynsym) naming addr, its start in
 * *start; NULL if none.  The module's table is sorted on first use. */
static const char *elf_name(struct sym_mod *m, uint64_t addr, uint64_t *start)
{
    if (!m->syms_built) {
        m->syms = sym_elf_build(m->mod);
        m->syms_built = true;
    }
    const char *name = sym_elf_find(m->syms, m->mod, addr, start);
    return name != NULL ? sym_names_demangle(&m->names, name) : NULL;
}

/* Frames for module address addr: its DWARF, else (stripped, no debug
 * info, hand-written asm) its ELF symbol table, else its PLT stub, else
 * its offset. */
static int resolve(struct sym_mod *m, uint64_t addr, struct sym_frame *out,
                   int cap)
{
    uint64_t start = 0;
    const char *module = m->basename;
    if (m->mod == NULL) {  /* its restart failed */
        frame_unknown(&out[0], sym_names_offset(&m->names, module,
                                                file_offset(m, addr)),
                      module);
        return 1;
    }
    int n = sym_dwarf_frames(m->dwarf, m->mod, addr, module, out, cap);
    if (n > 0) {
        if (out[n - 1].name == NULL)
            out[n - 1].name = elf_name(m, addr, &start);
        for (int i = 0; i < n; i++)
            if (out[i].name == NULL)
                out[i].name = sym_unknown;
        return n;
    }
    if (m->image != NULL) {
        const char *name = elf_name(m, addr, &start);
        if (name != NULL)
            out[0] = (struct sym_frame){.name = name, .module = module,
                                        .sym_addr = start, .known = true};
        else
            frame_unknown(&out[0], module, module);
        return 1;
    }
    const char *name = elf_name(m, addr, &start);
    if (name != NULL) {
        out[0] = (struct sym_frame){.name = name, .module = module,
                                    .sym_addr = start, .known = true};
        out[0].line = sym_dwarf_line(m->dwarf, m->mod, addr, &out[0].file);
    } else if ((name = plt_name(m, addr, &start)) != NULL) {
        /* a stub's name is final: debug info names no PLT */
        out[0] = (struct sym_frame){.name = name, .module = module,
                                    .sym_addr = start, .known = true};
        return 1;
    } else {
        start = fde_start(m, addr);
        frame_unknown(&out[0], sym_names_offset(&m->names, module,
                                                file_offset(m, start ? start : addr)),
                      module);
        out[0].sym_addr = start;
    }
    /* Named without debug info: keep what names it again once the debug
     * info arrives (symbols_lookup_offset). */
    if (!mod_has_dwarf(m) && m->build_id[0]) {
        out[0].build_id = sym_names_intern(&m->names, m->build_id);
        out[0].offset = file_offset(m, start ? start : addr);
    }
    return 1;
}

int sym_store_resolve(struct sym_store *st, struct sym_mod *mod,
                      uint64_t addr, struct sym_frame *out, int max)
{
    (void)st;
    if (max < 1)
        return 0;
    struct sym_frame tmp[SYM_MAX_FRAMES];
    int n = resolve(mod, addr, tmp, SYM_MAX_FRAMES);
    if (n > max)
        n = max;
    memcpy(out, tmp, (size_t)n * sizeof *out);
    return n;
}

/* Remember addr's frames.  On OOM the address simply stays uncached. */
static void cache_insert(struct sym_mod *m, uint64_t addr,
                         const struct sym_frame *f, int n)
{
    if (m->ncache >= SYM_CACHE_MAX)
        cache_clear(m);  /* bounded memory; strings stay in the arena */
    if (VEC_RESERVE(m->cache, m->capcache, m->ncache + 1) < 0 ||
        VEC_RESERVE(m->frames, m->capframes, m->nframes + (size_t)n) < 0 ||
        idtab_insert(&m->cache_ids, util_mix64(addr), (uint32_t)m->ncache) < 0)
        return;
    m->cache[m->ncache++] = (struct cache_entry){
        .first = (uint32_t)m->nframes, .n = (uint32_t)n};
    memcpy(&m->frames[m->nframes], f, (size_t)n * sizeof *f);
    m->nframes += (size_t)n;
}

int sym_store_lookup(struct sym_store *st, struct sym_mod *mod,
                     uint64_t addr, struct sym_frame *out, int max,
                     bool *hit)
{
    (void)st;
    if (max < 1)
        return 0;
    uint32_t id = idtab_find(&mod->cache_ids, util_mix64(addr), NULL, NULL);
    *hit = id != IDTAB_NONE;
    if (*hit) {
        const struct cache_entry *c = &mod->cache[id];
        int n = (int)c->n < max ? (int)c->n : max;
        memcpy(out, &mod->frames[c->first], (size_t)n * sizeof *out);
        return n;
    }
    struct sym_frame tmp[SYM_MAX_FRAMES];
    int n = resolve(mod, addr, tmp, SYM_MAX_FRAMES);
    cache_insert(mod, addr, tmp, n);
    if (n > max)
        n = max;
    memcpy(out, tmp, (size_t)n * sizeof *out);
    return n;
}

/* --- late debug info ------------------------------------------------------------ */

/* Start m's libdwfl over: a module that looked for its debug info and
 * found none never looks again, so it is reported anew to a new Dwfl
 * (and finds what sym_debug_add has given it).  The arena stays: frames
 * handed out keep their strings. */
static void mod_restart(struct sym_mod *m)
{
    cache_clear(m);
    sym_dwarf_clear(m->dwarf);
    mod_drop_tables(m);
    dwfl_end(m->dwfl);
    m->dwfl = NULL;
    m->mod = NULL;
    if (mod_report(m) < 0 && m->dwfl != NULL) {
        dwfl_end(m->dwfl);
        m->dwfl = NULL;
    }
}

/* Note build_id as gained in epoch e.  0, or -1 on OOM. */
static int note_gained(struct sym_store *st, const char *build_id, uint64_t e)
{
    uint32_t id = strarena_intern_id(&st->gained, build_id, strlen(build_id));
    if (id == UINT32_MAX ||
        VEC_RESERVE(st->gained_epoch, st->capgained_epoch, (size_t)id + 1) < 0)
        return -1;
    while (st->ngained_epoch <= id)
        st->gained_epoch[st->ngained_epoch++] = 0;
    st->gained_epoch[id] = e;
    return 0;
}

uint64_t sym_store_update(struct sym_store *st)
{
    if (st->idle[0].oldest || st->idle[1].oldest)
        idle_trim(st, clock_mono_ns());
    if (st->fetch == NULL)
        return st->epoch;
    struct dbgfetch_result *list = dbgfetch_take(st->fetch);
    uint64_t e = st->epoch + 1;
    bool any = false;
    for (struct dbgfetch_result *r = list; r != NULL; r = r->next) {
        if (r->path == NULL ||
            sym_debug_add(st->debug, r->build_id, r->path) < 0 ||
            note_gained(st, r->build_id, e) < 0)
            continue;
        any = true;
        st->stats.late_debuginfo++;
    }
    dbgfetch_result_free(list);
    if (!any)
        return st->epoch;
    st->epoch = e;
    for (size_t i = 0; i < st->nmods; i++) {
        struct sym_mod *m = st->mods[i];
        if (m != NULL && m->dwfl != NULL && m->build_id[0] &&
            sym_store_gained(st, e - 1, e, m->build_id))
            mod_restart(m);
    }
    return e;
}

int sym_store_gained(const struct sym_store *st, uint64_t after,
                     uint64_t upto, const char *build_id)
{
    if (build_id != NULL) {
        uint32_t id = strarena_lookup(&st->gained, build_id, strlen(build_id));
        return id < st->ngained_epoch && st->gained_epoch[id] > after &&
               st->gained_epoch[id] <= upto;
    }
    int n = 0;
    for (size_t i = 0; i < st->ngained_epoch; i++)
        n += st->gained_epoch[i] > after && st->gained_epoch[i] <= upto;
    return n;
}
