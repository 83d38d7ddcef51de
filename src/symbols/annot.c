/* annot.c - a function's machine code from its module's file; see
 * annot.h.
 *
 * Addresses: the store reports a module at its ELF addresses, so a
 * module address is an ELF address; a target address is that plus the
 * load bias of the mapping (live: from the maps, as the symbolizer
 * computes it; saved: placed by the profile's addresses).  Instructions
 * are decoded at their target addresses, so jump and call targets come
 * out in the profile's terms.
 */
#include "annot.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "annotate.h"
#include "disasm.h"
#include "maps.h"
#include "profile.h"
#include "strarena.h"
#include "sym_dwarf.h"
#include "sym_fde.h"
#include "sym_files.h"
#include "sym_names.h"
#include "sym_plt.h"
#include "sym_store.h"
#include "symbols.h"
#include "util.h"

#define PAGE 4096u            /* a load bias is a multiple of it */
#define FDE_ROWS_MAX 65536    /* CFI rows walked to find an FDE's end */
#define INLINE_DEPTH 32       /* frames asked of sym_dwarf per address */
#define BAD_RUN_MAX 8         /* undecodable bytes shown on one row */
/* Decoded at most, to reach a big function's window (at tens of MB a
 * second, a fraction of a second): a bigger one is refused. */
#define ANNOT_DECODE_MAX (16u << 20)

/* One annotation being made. */
struct work {
    struct annotation *a;
    const struct annot_request *rq;
    uint64_t anchor;          /* an address of the function (target) */
    Dwfl_Module *dm;          /* the module, at its ELF addresses */
    Elf *elf;
    uint64_t bias;            /* target address - module address */
    struct strarena names;    /* names made here (demangled, DWARF's) */
    struct sym_dwarf *dw;
    struct sym_fde *fdes;
    bool fdes_built;
    struct sym_plt *plt;      /* the stubs calls go through */
    bool plt_built;
};

/* --- what can be annotated ------------------------------------------------ */

/* Fill a's names from rq and say why there is nothing to decode, if so. */
static bool frame_ok(struct work *w)
{
    const struct frame_desc *d = &w->rq->frame;
    struct annotation *a = w->a;

    a->name = annotation_str(a, d->name ? d->name : "?");
    a->module = annotation_str(a, d->module);
    w->anchor = d->addr ? d->addr : w->rq->focus ? w->rq->focus
                : w->rq->naddrs ? w->rq->addrs[0] : 0;
    if (!a->name || (d->module && !a->module)) {
        annotation_why(a, "out of memory");
        return false;
    }
    if (d->kind != FRAME_FUNC) {
        annotation_why(a, "%s is no function of native code: no machine "
                       "code to show", a->name);
        return false;
    }
    if (d->module && d->module[0] == '[') {  /* [kernel.kallsyms], [vdso] */
        annotation_why(a, "%s is in %s, no module file: no machine code to "
                       "show", a->name, d->module);
        return false;
    }
    if (!d->module || !*d->module || strchr(d->module, '/')) {
        annotation_why(a, "%s is in no module file (JIT code, or a profile "
                       "without modules): no machine code to show",
                       a->name);
        return false;
    }
    if (!w->anchor && !(d->build_id && d->offset)) {
        annotation_why(a, "%s: the profile has no address of it: no machine "
                       "code to show", a->name);
        return false;
    }
    return true;
}

static void work_free(struct work *w)
{
    sym_fde_free(w->fdes);
    sym_plt_free(w->plt);
    sym_dwarf_free(w->dw);
    strarena_free(&w->names);
}

/* Bind w to module mod of store st (held by the caller). */
static bool work_module(struct work *w, struct sym_mod *mod)
{
    Dwarf_Addr b = 0;

    w->dm = sym_store_dwfl(mod);
    w->elf = w->dm ? dwfl_module_getelf(w->dm, &b) : NULL;
    w->dw = sym_dwarf_new(&w->names);
    if (!w->elf || !w->dw) {
        annotation_why(w->a, "%s: cannot read its ELF file", w->a->module);
        return false;
    }
    return true;
}

/* --- the function's extent ------------------------------------------------ */

/* The subprogram DIE under parent (CU, namespace, class) holding DWARF
 * address x. */
static bool find_subprogram(Dwarf_Die *parent, Dwarf_Addr x, Dwarf_Die *out,
                            int depth)
{
    Dwarf_Die c;

    if (depth > 8 || dwarf_child(parent, &c) != 0)
        return false;
    do {
        int tag = dwarf_tag(&c);
        if (tag == DW_TAG_subprogram && dwarf_haspc(&c, x) == 1) {
            *out = c;
            return true;
        }
        if ((tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
             tag == DW_TAG_structure_type) &&
            find_subprogram(&c, x, out, depth + 1))
            return true;
    } while (dwarf_siblingof(&c, &c) == 0);
    return false;
}

/* The range [*lo, *hi) of the DWARF subprogram holding module address x
 * (its part that holds x, when split). */
static bool dwarf_extent(struct work *w, uint64_t x, uint64_t *lo,
                         uint64_t *hi)
{
    Dwarf_Addr cb = 0, base, s, e;
    Dwarf_Die *cu = dwfl_module_addrdie(w->dm, x, &cb);
    Dwarf_Die fn;
    ptrdiff_t o = 0;

    if (!cu || !find_subprogram(cu, x - cb, &fn, 0))
        return false;
    while ((o = dwarf_ranges(&fn, o, &base, &s, &e)) > 0)
        if (x - cb >= s && x - cb < e) {
            *lo = s + cb;
            *hi = e + cb;
            return true;
        }
    return false;
}

/* The extent of the FDE holding module address x: its start from the
 * sorted table (sym_fde.h), its end by walking its CFI rows, since libdw
 * gives only the row an address falls in. */
static bool fde_extent(struct work *w, uint64_t x, uint64_t *lo, uint64_t *hi)
{
    Dwarf_Addr cb = 0;

    if (!w->fdes_built) {
        w->fdes = sym_fde_build(w->dm);
        w->fdes_built = true;
    }
    uint64_t s = sym_fde_start(w->fdes, w->dm, x);
    Dwarf_CFI *cfi = s ? dwfl_module_eh_cfi(w->dm, &cb) : NULL;
    uint64_t e = s;

    if (!cfi)
        return false;
    for (int i = 0; i < FDE_ROWS_MAX; i++) {
        Dwarf_Frame *fr = NULL;
        Dwarf_Addr rs, re;

        if (dwarf_cfi_addrframe(cfi, e - cb, &fr) != 0)
            break;
        int rc = dwarf_frame_info(fr, &rs, &re, NULL);
        free(fr);
        if (rc < 0 || re + cb <= e)
            break;
        e = re + cb;
        if (sym_fde_start(w->fdes, w->dm, e) != s)
            break;
    }
    if (e <= x)
        return false;
    *lo = s;
    *hi = e;
    return true;
}

/* The function holding module address x: its ELF symbol, else its DWARF
 * subprogram, else its unwind entry. */
static bool function_at(struct work *w, uint64_t x, uint64_t *lo,
                        uint64_t *hi)
{
    GElf_Off off = 0;
    GElf_Sym sym;
    const char *nm = dwfl_module_addrinfo(w->dm, x, &off, &sym, NULL, NULL,
                                          NULL);

    if (nm && sym.st_size && off < sym.st_size) {
        *lo = x - off;
        *hi = *lo + sym.st_size;
        /* the function itself, when a frame inlined into it asked */
        const char *own = (nm = sym_names_demangle(&w->names, nm))
                              ? annotation_str(w->a, nm) : NULL;
        if (own)
            w->a->name = own;
        return true;
    }
    return dwarf_extent(w, x, lo, hi) || fde_extent(w, x, lo, hi);
}

/* --- bytes and names ------------------------------------------------------ */

/* The file's bytes of module addresses [lo, *hi), *hi clipped to the end
 * of the section that holds lo; NULL with a's why set. */
static const uint8_t *code_at(struct work *w, uint64_t lo, uint64_t *hi)
{
    Elf_Scn *scn = NULL;

    while ((scn = elf_nextscn(w->elf, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
            lo < sh.sh_addr || lo - sh.sh_addr >= sh.sh_size)
            continue;
        if (sh.sh_type == SHT_NOBITS) {
            annotation_why(w->a, "%s holds no code at 0x%" PRIx64
                           " (a debug file?)", w->a->module, lo);
            return NULL;
        }
        Elf_Data *d = elf_getdata(scn, NULL);
        if (!d || !d->d_buf || d->d_size < lo - sh.sh_addr + 1)
            break;
        if (*hi > sh.sh_addr + d->d_size)
            *hi = sh.sh_addr + d->d_size;
        return (const uint8_t *)d->d_buf + (lo - sh.sh_addr);
    }
    annotation_why(w->a, "%s: no section of its file holds 0x%" PRIx64,
                   w->a->module, lo);
    return NULL;
}

/* The function a call's target (target address t) starts, or NULL. */
static const char *callee_name(struct work *w, uint64_t t)
{
    GElf_Off off = 1;
    GElf_Sym sym;
    uint64_t m = t - w->bias;
    const char *nm = dwfl_module_addrinfo(w->dm, m, &off, &sym, NULL, NULL,
                                          NULL);

    if (nm && off == 0)
        return sym_names_demangle(&w->names, nm);
    if (!w->plt_built) {
        w->plt = sym_plt_build(w->dm);
        w->plt_built = true;
    }
    uint64_t start;
    const char *p = sym_plt_name(w->plt, &w->names, m, &start);
    return p && start == m ? p : NULL;
}

/* --- decoding ------------------------------------------------------------- */

/* The part of a function [lo, hi) of module addresses too big to show
 * whole that is shown: ANNOT_WINDOW bytes around its hottest address,
 * said in a's why.  It is still decoded from its start (in step with
 * its instructions: x86 code cannot be read backwards). */
static void window(struct work *w, uint64_t x, uint64_t lo, uint64_t hi,
                   uint64_t *from, uint64_t *to)
{
    uint64_t f = w->rq->focus ? w->rq->focus - w->bias : x;

    if (f < lo || f >= hi)
        f = lo;
    *from = f - lo > ANNOT_WINDOW / 2 ? f - ANNOT_WINDOW / 2 : lo;
    if (hi - *from < ANNOT_WINDOW)
        *from = hi - ANNOT_WINDOW;
    *to = *from + ANNOT_WINDOW;
    if (!w->rq->focus && !w->rq->naddrs)
        annotation_why(w->a, "%s is %" PRIu64 " KiB, more than %u: showing "
                       "its first %u KiB", w->a->name, (hi - lo) >> 10,
                       ANNOT_MAX_BYTES >> 10, ANNOT_WINDOW >> 10);
    else
        annotation_why(w->a, "%s is %" PRIu64 " KiB, more than %u: showing "
                       "the %u KiB around its hottest address, from +0x%"
                       PRIx64, w->a->name, (hi - lo) >> 10,
                       ANNOT_MAX_BYTES >> 10, ANNOT_WINDOW >> 10, *from - lo);
}

/* Source line and innermost inlined function of module address m (its
 * file's name made absolute in path, n bytes, when it is not).  The
 * inline chain is asked again only when the line-table row changes
 * (inlined code has rows of its own). */
static void line_of(struct work *w, uint64_t m, struct annot_insn *in,
                    Dwfl_Line **row, const char **inl, char *path, size_t n)
{
    Dwfl_Line *l = dwfl_module_getsrc(w->dm, m);
    int line = 0;
    const char *dir;

    in->file = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;
    in->line = line > 0 ? (uint32_t)line : 0;
    /* a name relative to the compilation directory, as the tree's frames
     * are made absolute (sym_dwarf.h) */
    if (in->file && in->file[0] != '/' && (dir = dwfl_line_comp_dir(l)) &&
        dir[0] == '/') {
        snprintf(path, n, "%s/%s", dir, in->file);
        in->file = path;
    }
    if (l != *row || !l) {
        struct sym_frame sf[INLINE_DEPTH];
        int nf = sym_dwarf_frames(w->dw, w->dm, m, w->a->module, sf,
                                  INLINE_DEPTH);
        *inl = nf > 1 && sf[0].inlined ? sf[0].name : NULL;
        *row = l;
    }
    in->inlined = *inl;
}

/* Decode module addresses [from, to) of code into a, keeping the
 * instructions from `keep` on. */
static int decode(struct work *w, struct disasm *d, const uint8_t *code,
                  uint64_t from, uint64_t to, uint64_t keep)
{
    struct annotation *a = w->a;
    Dwfl_Line *row = NULL;
    const char *inl = NULL;
    uint64_t first_bad = 0;

    for (uint64_t m = from; m < to;) {
        struct disasm_insn di, probe;
        struct annot_insn in = { .addr = m + w->bias };
        char bad[64], path[PATH_MAX];
        size_t left = (size_t)(to - m);

        if (disasm_one(d, code + (m - from), left, m + w->bias, &di)) {
            in.len = di.len;
            in.kind = di.kind;
            in.text = di.text;
            in.target = di.target;
            if (di.kind == ANNOT_CALL && di.target)
                in.target_name = callee_name(w, di.target);
        } else {
            /* a run of bytes that decode to nothing, up to the next
             * byte that starts an instruction */
            size_t o = (size_t)snprintf(bad, sizeof(bad), "(bad)");
            in.kind = ANNOT_BAD;
            if (!a->bad && m >= keep)
                first_bad = m;
            do {
                o += (size_t)snprintf(bad + o, sizeof(bad) - o, " %02x",
                                      code[m - from + in.len]);
                in.len++;
            } while (in.len < BAD_RUN_MAX && in.len < left &&
                     !disasm_one(d, code + (m - from) + in.len,
                                 left - in.len, m + in.len + w->bias,
                                 &probe));
            in.text = bad;
            if (m >= keep)
                a->bad += in.len;
        }
        if (m >= keep) {
            line_of(w, m, &in, &row, &inl, path, sizeof(path));
            if (annotation_add(a, &in) < 0)
                return -1;
        }
        m += in.len;
    }
    if (a->bad && !a->why[0])
        annotation_why(a, "%" PRIu64 " bytes of %s from +0x%" PRIx64
                       " could not be decoded: shown as (bad)", a->bad,
                       a->name, first_bad + w->bias - a->start);
    return 0;
}

/* Decode the function holding module address x into w->a.  0, or -1 on
 * OOM. */
static int annot_code(struct work *w, uint64_t x)
{
    struct annotation *a = w->a;
    uint64_t lo, hi, from, to;
    char err[160];

    if (!function_at(w, x, &lo, &hi)) {
        annotation_why(a, "no function of %s holds 0x%" PRIx64 " (no "
                       "symbol, debug info or unwind entry covers it)",
                       a->module, x + w->bias);
        return 0;
    }
    a->start = lo + w->bias;
    a->end = hi + w->bias;
    from = lo;
    to = hi;
    if (hi - lo > ANNOT_DECODE_MAX) {
        annotation_why(a, "%s is %" PRIu64 " MiB: too big to decode (at most "
                       "%u MiB)", a->name, (hi - lo) >> 20,
                       ANNOT_DECODE_MAX >> 20);
        return 0;
    }
    if (hi - lo > ANNOT_MAX_BYTES)
        window(w, x, lo, hi, &from, &to);
    uint64_t end = to;
    const uint8_t *code = code_at(w, lo, &end);
    if (!code)
        return 0;
    if (end < to)
        to = end;
    if (from >= to)
        from = lo;
    a->from = from + w->bias;
    a->to = to + w->bias;
    struct disasm *d = disasm_new(err, sizeof(err));
    if (!d) {
        annotation_why(a, "%s", err);
        return 0;
    }
    int rc = decode(w, d, code, lo, to, from);
    disasm_free(d);
    return rc;
}

/* --- live processes ------------------------------------------------------- */

/* Whether mapped path is a file of module (a basename). */
static bool is_module(const char *path, const char *module)
{
    const char *b;
    size_t n = sym_names_base(path, &b);

    return path[0] == '/' && n == strlen(module) && !memcmp(b, module, n);
}

/* A mapped file changed on disk since it was mapped (another inode at
 * its path): 0 when it did not, 1 when its mapped copy opens through
 * map_files (noted in why), -1 when it cannot be read (why says so). */
static int changed_on_disk(struct work *w, pid_t pid, const char *root,
                           const struct map_entry *e)
{
    char path[PATH_MAX + 96];
    struct stat st;

    snprintf(path, sizeof(path), "%s%s", root, e->path);
    if (!sym_names_ends_with(e->path, " (deleted)") &&
        stat(path, &st) == 0 && (uint64_t)st.st_ino == e->inode)
        return 0;
    snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
             (int)pid, e->start, e->end);
    int fd = util_open_regular(path, NULL);
    if (fd < 0) {
        annotation_why(w->a, "%s changed on disk since process %d loaded "
                       "it, and its mapped copy cannot be opened: not "
                       "showing another build's code", w->a->module,
                       (int)pid);
        return -1;
    }
    close(fd);
    annotation_why(w->a, "%s changed on disk since process %d loaded it: "
                   "showing the copy it maps", w->a->module, (int)pid);
    return 1;
}

/* Annotate from mapping e of process pid, which has the function
 * `shift` bytes above the profile's addresses of it.  0, or -1 on OOM. */
static int from_mapping(struct work *w, pid_t pid, const struct map_entry *e,
                        uint64_t shift)
{
    char root[64];
    uint64_t bias;
    int rc = 0;

    sym_files_root(pid, root, sizeof(root));
    if (changed_on_disk(w, pid, root, e) < 0)
        return 0;
    struct sym_store *st = sym_store_new(NULL);
    struct sym_mod *mod = st ? sym_store_open(st, pid, root, e->path, e)
                             : NULL;
    if (!mod) {
        annotation_why(w->a, "%s: cannot open it as ELF", e->path);
    } else if (!sym_store_bias(mod, e->start, e->offset, &bias)) {
        annotation_why(w->a, "%s: its mapping at 0x%" PRIx64 " is no "
                       "segment of it", e->path, e->start);
    } else if (work_module(w, mod)) {
        w->bias = bias - shift;
        w->a->path = annotation_str(w->a, e->path);
        rc = annot_code(w, w->anchor - bias);
    }
    work_free(w);
    sym_store_release(st, mod);
    sym_store_free(st);
    return rc;
}

/* The executable mapping of m that holds the module's function of
 * frame d (its start at file offset d->offset), and in *shift how far
 * above d->addr it puts that start: a live profile's addresses of a
 * function are those of the first process it was sampled in, shifted
 * for the others (fold.h), so any process that maps the module will do.
 * NULL when none does. */
static const struct map_entry *by_offset(const struct maps *m,
                                         const struct frame_desc *d,
                                         uint64_t *shift)
{
    for (size_t i = 0; m && i < m->n; i++) {
        const struct map_entry *e = &m->v[i];
        if (e->x && is_module(e->path, d->module) && d->offset >= e->offset &&
            d->offset - e->offset < e->end - e->start) {
            *shift = e->start + (d->offset - e->offset) - d->addr;
            return e;
        }
    }
    return NULL;
}

struct annotation *annot_live(const struct annot_proc *procs, size_t n,
                              const struct annot_request *rq)
{
    struct work w = { .rq = rq, .a = annotation_new() };
    const struct frame_desc *d = &rq->frame;
    /* where the module's file places the function: by its offset */
    bool placed = d->build_id && d->offset && d->addr && !rq->at_start;

    if (!w.a)
        return NULL;
    if (!frame_ok(&w))
        return w.a;
    for (size_t i = 0; i < n; i++) {
        struct maps *m = maps_read(procs[i].pid);
        if (!m && procs[i].maps)  /* gone: its mappings as last seen */
            m = maps_parse(procs[i].maps, procs[i].len);
        uint64_t shift = 0;
        const struct map_entry *e = placed ? by_offset(m, d, &shift)
                                           : maps_find(m, w.anchor);
        int rc = 0;

        if (e && e->x && is_module(e->path, rq->frame.module)) {
            rc = from_mapping(&w, procs[i].pid, e, shift);
            maps_free(m);
            if (rc < 0) {
                annotation_free(w.a);
                return NULL;
            }
            return w.a;
        }
        maps_free(m);
    }
    annotation_why(w.a, "no process maps %s at 0x%" PRIx64 " any more",
                   rq->frame.module, w.anchor);
    return w.a;
}

/* --- saved profiles ------------------------------------------------------- */

/* path = dir/name when that is a regular file we can read. */
static bool try_path(char *path, size_t n, const char *dir, size_t dlen,
                     const char *name)
{
    int fd;

    if (dlen == 0 || dlen + strlen(name) + 2 > n)
        return false;
    snprintf(path, n, "%.*s/%s", (int)dlen, dir, name);
    if ((fd = util_open_regular(path, NULL)) < 0)
        return false;
    close(fd);
    return true;
}

/* Each directory of a ':'-separated list. */
static bool try_list(char *path, size_t n, const char *list, const char *name)
{
    for (const char *p = list; p && *p;) {
        size_t len = strcspn(p, ":");
        if (try_path(path, n, p, len, name))
            return true;
        p += len + (p[len] == ':');
    }
    return false;
}

/* Where module `name` is on this machine, for a profile of command
 * line cmdline: the command itself, its directory, $LD_LIBRARY_PATH,
 * the library directories, $PATH. */
static bool find_module(const char *cmdline, const char *name, char *path,
                        size_t n)
{
    static const char libdirs[] =
        "/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib64:/usr/lib64:"
        "/lib:/usr/lib:/usr/local/lib";
    char argv0[PATH_MAX];
    size_t len = cmdline ? strcspn(cmdline, " ") : 0;

    snprintf(argv0, sizeof(argv0), "%.*s", (int)len, cmdline ? cmdline : "");
    const char *slash = strrchr(argv0, '/');
    if (slash && strcmp(slash + 1, name) == 0) {
        int fd = util_open_regular(argv0, NULL);
        if (fd >= 0) {
            close(fd);
            snprintf(path, n, "%s", argv0);
            return true;
        }
    }
    return (slash && try_path(path, n, argv0,
                              slash == argv0 ? 1 : (size_t)(slash - argv0),
                              name)) ||
           try_list(path, n, getenv("LD_LIBRARY_PATH"), name) ||
           try_list(path, n, libdirs, name) ||
           try_list(path, n, getenv("PATH"), name);
}

/* The ELF address of file offset off: in the PT_LOAD that holds it. */
static bool offset_vaddr(Elf *elf, uint64_t off, uint64_t *vaddr)
{
    size_t nph;

    if (elf_getphdrnum(elf, &nph) != 0)
        return false;
    for (size_t i = 0; i < nph; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
            off >= ph.p_offset && off - ph.p_offset < ph.p_filesz) {
            *vaddr = off - ph.p_offset + ph.p_vaddr;
            return true;
        }
    }
    return false;
}

/* The function symbol whose name, demangled, is `name`: [*lo, *hi). */
static bool symbol_named(struct work *w, const char *name, uint64_t *lo,
                         uint64_t *hi)
{
    int n = dwfl_module_getsymtab(w->dm);

    for (int i = 1; i < n; i++) {
        GElf_Sym sym;
        GElf_Addr addr;
        const char *nm = dwfl_module_getsym_info(w->dm, i, &sym, &addr, NULL,
                                                 NULL, NULL);
        const char *dm;
        if (!nm || GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_size)
            continue;
        if (strcmp(nm, name) != 0 &&
            (!(dm = sym_names_demangle(&w->names, nm)) || strcmp(dm, name)))
            continue;
        *lo = addr;
        *hi = addr + sym.st_size;
        return true;
    }
    return false;
}

/* Whether every address the profile has of the function (anchor and
 * addrs) lies in [lo, hi) + bias b. */
static bool fits(const struct work *w, uint64_t lo, uint64_t hi, uint64_t b)
{
    const struct annot_request *rq = w->rq;

    if (w->anchor && (w->anchor - b < lo || w->anchor - b >= hi))
        return false;
    for (size_t i = 0; i < rq->naddrs; i++)
        if (rq->addrs[i] - b < lo || rq->addrs[i] - b >= hi)
            return false;
    return true;
}

/* The load bias of function [lo, hi) (module addresses) in the profile:
 * 0 for an executable that is not position-independent; a call's target
 * is the start; else the one page multiple that puts the profile's
 * addresses of it inside.  0, or -1 with why set. */
static int place(struct work *w, uint64_t lo, uint64_t hi)
{
    GElf_Ehdr eh;
    const char *name = w->a->name, *mod = w->a->module;

    if (!gelf_getehdr(w->elf, &eh))
        return -1;
    if (eh.e_type == ET_EXEC || w->rq->at_start || !w->anchor) {
        uint64_t b = eh.e_type == ET_EXEC || !w->anchor ? 0
                                                         : w->anchor - lo;
        if (w->anchor && !fits(w, lo, hi, b)) {
            annotation_why(w->a, "%s in %s does not hold the profile's "
                           "addresses of it: another build?", name, mod);
            return -1;
        }
        w->bias = b;
        return 0;
    }
    /* b in (a - hi, a - lo] for every address a, a multiple of PAGE */
    uint64_t bmin = w->anchor - hi + 1, bmax = w->anchor - lo;
    for (size_t i = 0; i < w->rq->naddrs; i++) {
        uint64_t a = w->rq->addrs[i];
        if (a - hi + 1 > bmin)
            bmin = a - hi + 1;
        if (a - lo < bmax)
            bmax = a - lo;
    }
    uint64_t b = (bmin + PAGE - 1) / PAGE * PAGE;
    if (b > bmax || !fits(w, lo, hi, b)) {
        annotation_why(w->a, "%s in %s does not hold the profile's "
                       "addresses of it: another build?", name, mod);
        return -1;
    }
    if (b + PAGE <= bmax) {
        annotation_why(w->a, "cannot tell where %s was loaded: the profile "
                       "did not save it, and %s is bigger than a page",
                       mod, name);
        return -1;
    }
    w->bias = b;
    return 0;
}

/* Annotate from module file path.  0, or -1 on OOM. */
static int from_file(struct work *w, const char *path)
{
    const struct frame_desc *d = &w->rq->frame;
    struct sym_store *st = sym_store_new(NULL);
    struct sym_mod *mod = st ? sym_store_open(st, 0, "", path, NULL) : NULL;
    uint64_t lo = 0, hi = 0, x;
    int rc = 0;

    w->a->path = annotation_str(w->a, path);
    if (!mod) {
        annotation_why(w->a, "%s: cannot open it as ELF", path);
    } else if (d->build_id && strcmp(sym_store_build_id(mod), d->build_id)) {
        annotation_why(w->a, "%s changed since the profile was recorded: "
                       "its build-id is %.12s..., the profile's %.12s...",
                       w->a->module, sym_store_build_id(mod), d->build_id);
    } else if (work_module(w, mod)) {
        bool by_offset = d->build_id && d->offset;
        bool at = by_offset ? offset_vaddr(w->elf, d->offset, &x)
                            : symbol_named(w, d->name, &lo, &hi);
        bool found = at && (!by_offset || function_at(w, x, &lo, &hi));
        if (!at)
            annotation_why(w->a, "%s is not in %s: another build?",
                           w->a->name, path);
        else if (!found)
            annotation_why(w->a, "no function of %s holds its offset 0x%"
                           PRIx64 " (no symbol, debug info or unwind entry "
                           "covers it)", w->a->module, d->offset);
        else if (place(w, lo, hi) == 0)
            rc = annot_code(w, w->anchor ? w->anchor - w->bias : lo);
    }
    work_free(w);
    sym_store_release(st, mod);
    sym_store_free(st);
    return rc;
}

struct annotation *annot_file(const struct profile *p,
                              const struct annot_request *rq)
{
    struct work w = { .rq = rq, .a = annotation_new() };
    char path[PATH_MAX];

    if (!w.a)
        return NULL;
    if (!frame_ok(&w))
        return w.a;
    if (!find_module(profile_meta(p)->cmdline, rq->frame.module, path,
                     sizeof(path))) {
        annotation_why(w.a, "%s is not on this machine (looked beside the "
                       "profile's command, in the library directories and "
                       "$PATH)", rq->frame.module);
        return w.a;
    }
    if (from_file(&w, path) < 0) {
        annotation_free(w.a);
        return NULL;
    }
    /* sproftop saves a function's samples at its start (pprof keeps one
     * location per function): where they fell in it is not known */
    if (w.a->n && rq->naddrs == 1 && rq->addrs[0] == w.a->start) {
        w.a->unplaced = true;
        if (!w.a->why[0])
            annotation_why(w.a, "the profile keeps %s's samples, not where in "
                           "it they fell: no share per instruction",
                           w.a->name);
    }
    return w.a;
}
