/* sym_dwarf.c - frames from DWARF; see sym_dwarf.h. */
#include "sym_dwarf.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "idtab.h"
#include "sorted.h"
#include "strarena.h"
#include "sym_names.h"
#include "symbols.h"
#include "util.h"
#include "vec.h"

#define SYM_MAX_FRAMES 32  /* inline depth kept per address */

/* One address range of a function of a CU. */
struct fn_range {
    Dwarf_Addr lo;   /* module-relative, like the DWARF */
    Dwarf_Addr hi;   /* one past the end */
    Dwarf_Die die;   /* the DW_TAG_subprogram */
};

/* The functions of one CU, sorted by lo. */
struct cu_index {
    struct fn_range *r;
    size_t n, cap;
};

/* Both tables are keyed by a DIE's address in its Dwarf, hashed with
 * util_mix64: a bijection, so the hash is the key. */
struct sym_dwarf {
    struct strarena *names;  /* the symbolizer's; every name goes there */
    struct cu_index *cus;    /* CU DIE -> its function index */
    size_t ncus, capcus;
    struct idtab cu_ids;     /* -> index in cus */
    const char **qnames;     /* function DIE -> its qualified name (C++
                                without a linkage name), interned */
    size_t nqnames, capqnames;
    struct idtab qname_ids;  /* -> index in qnames */
};

static uint64_t die_hash(const void *die_addr)
{
    return util_mix64((uint64_t)(uintptr_t)die_addr);
}

struct sym_dwarf *sym_dwarf_new(struct strarena *names)
{
    struct sym_dwarf *d = calloc(1, sizeof *d);
    if (d != NULL)
        d->names = names;
    return d;
}

void sym_dwarf_clear(struct sym_dwarf *d)
{
    for (size_t i = 0; i < d->ncus; i++)
        free(d->cus[i].r);
    d->ncus = 0;
    idtab_clear(&d->cu_ids);
    d->nqnames = 0;
    idtab_clear(&d->qname_ids);
}

void sym_dwarf_free(struct sym_dwarf *d)
{
    if (d == NULL)
        return;
    sym_dwarf_clear(d);
    free(d->cus);
    idtab_free(&d->cu_ids);
    free(d->qnames);
    idtab_free(&d->qname_ids);
    free(d);
}

static const char *intern(struct sym_dwarf *d, const char *s)
{
    return sym_names_intern(d->names, s);
}

/* --- names ---------------------------------------------------------------- */

/* The DIE holding d's DW_AT_name: d, or where its DW_AT_abstract_origin
 * and DW_AT_specification lead. */
static bool named_die(Dwarf_Die *die, Dwarf_Die *out)
{
    Dwarf_Die cur = *die;
    for (int hops = 0; hops < 8; hops++) {
        if (dwarf_hasattr(&cur, DW_AT_name)) {
            *out = cur;
            return true;
        }
        Dwarf_Attribute a;
        if (dwarf_attr(&cur, DW_AT_abstract_origin, &a) == NULL &&
            dwarf_attr(&cur, DW_AT_specification, &a) == NULL)
            return false;
        if (dwarf_formref_die(&a, &cur) == NULL)
            return false;
    }
    return false;
}

static bool is_cplusplus(Dwarf_Die *cu)
{
    int lang = dwarf_srclang(cu);
    return lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
           lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14;
}

/* "ns::(anonymous namespace)::Class::" for the scopes around `named`,
 * then `name`, into buf. */
static void scoped_name(Dwarf_Die *named, const char *name, char *buf,
                        size_t size)
{
    size_t len = 0;
    Dwarf_Die *scopes = NULL;
    int n = dwarf_getscopes_die(named, &scopes);
    for (int i = n - 1; i >= 1; i--) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag != DW_TAG_namespace && tag != DW_TAG_class_type &&
            tag != DW_TAG_structure_type && tag != DW_TAG_union_type)
            continue;
        const char *part = dwarf_diename(&scopes[i]);
        if (part == NULL)
            part = tag == DW_TAG_namespace ? "(anonymous namespace)"
                                           : "(anonymous)";
        int w = snprintf(buf + len, size - len, "%s::", part);
        if (w < 0 || (size_t)w >= size - len)
            break;
        len += (size_t)w;
    }
    free(scopes);
    snprintf(buf + len, size - len, "%s", name);
}

/* The qualified name of C++ function `named` (with DW_AT_name `name`)
 * that has no linkage name: GCC emits none for internal linkage (static
 * functions, anonymous namespaces).  Finding the enclosing scopes walks
 * the CU, so results are kept per DIE. */
static const char *qualified_name(struct sym_dwarf *d, Dwarf_Die *named,
                                  const char *name)
{
    uint64_t h = die_hash(named->addr);
    uint32_t id = idtab_find(&d->qname_ids, h, NULL, NULL);
    if (id != IDTAB_NONE)
        return d->qnames[id];
    char buf[1024];
    scoped_name(named, name, buf, sizeof buf);
    const char *q = intern(d, buf);
    if (q != NULL &&
        VEC_RESERVE(d->qnames, d->capqnames, d->nqnames + 1) == 0 &&
        idtab_insert(&d->qname_ids, h, (uint32_t)d->nqnames) == 0)
        d->qnames[d->nqnames++] = q;
    return q;
}

/* Function name of a subprogram or inlined instance: the demangled linkage
 * name when there is one (C++: qualified, with parameters), else the plain
 * name (qualified by its scopes in C++).  dwarf_attr_integrate follows
 * DW_AT_abstract_origin and DW_AT_specification, which is where inlined
 * and out-of-class definitions keep their names. */
static const char *die_name(struct sym_dwarf *d, Dwarf_Die *die, Dwarf_Die *cu)
{
    Dwarf_Attribute a;
    const char *ln = NULL;
    if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) != NULL ||
        dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a) != NULL)
        ln = dwarf_formstring(&a);
    if (ln != NULL && ln[0] == '_' && ln[1] == 'Z')
        return sym_names_demangle(d->names, ln);
    Dwarf_Die named;
    const char *name = named_die(die, &named) ? dwarf_diename(&named) : NULL;
    if (name == NULL)
        return intern(d, ln);
    if (ln == NULL && is_cplusplus(cu))
        return qualified_name(d, &named, name);
    return intern(d, name);
}

/* Absolute path of the file declaring die (libdw may return it relative
 * to the compilation directory). */
static const char *die_file(struct sym_dwarf *d, Dwarf_Die *die, Dwarf_Die *cu)
{
    const char *f = dwarf_decl_file(die);
    if (f == NULL || f[0] == '/')
        return intern(d, f);
    Dwarf_Attribute a;
    const char *dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));
    if (dir == NULL || dir[0] != '/')
        return intern(d, f);
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s/%s", dir, f);
    return intern(d, buf);
}

/* Start address (module-relative) of a function or inlined instance. */
static uint64_t die_start(Dwarf_Die *die)
{
    Dwarf_Addr a;
    if (dwarf_entrypc(die, &a) == 0)
        return a;
    Dwarf_Addr base, start, end;
    if (dwarf_ranges(die, 0, &base, &start, &end) > 0)
        return start;
    return 0;
}

/* --- per-CU function index ------------------------------------------------- */

/* By start; aliases (assembly functions such as memmove and memcpy get a
 * DIE each) by decreasing DIE offset, so that the lookup, which takes the
 * last range starting at or before pc, picks the first DIE as
 * dwarf_getscopes would. */
static int fn_range_cmp(const void *a, const void *b)
{
    const struct fn_range *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    Dwarf_Off ox = dwarf_dieoffset((Dwarf_Die *)&x->die);
    Dwarf_Off oy = dwarf_dieoffset((Dwarf_Die *)&y->die);
    return ox > oy ? -1 : ox < oy;
}

static void cu_index_add(struct cu_index *ci, Dwarf_Die *fn)
{
    Dwarf_Addr base, lo, hi;
    ptrdiff_t off = 0;
    while ((off = dwarf_ranges(fn, off, &base, &lo, &hi)) > 0) {
        if (hi <= lo)
            continue;
        if (VEC_RESERVE(ci->r, ci->cap, ci->n + 1) < 0)
            return;
        ci->r[ci->n++] = (struct fn_range){.lo = lo, .hi = hi, .die = *fn};
    }
}

/* Functions are children of the CU or of namespaces (C++) and modules
 * (Fortran); anything elsewhere is still found by dwarf_getscopes. */
static void cu_index_walk(struct cu_index *ci, Dwarf_Die *parent, int depth)
{
    Dwarf_Die c;
    if (depth > 32 || dwarf_child(parent, &c) != 0)
        return;
    do {
        int tag = dwarf_tag(&c);
        if (tag == DW_TAG_subprogram)
            cu_index_add(ci, &c);
        else if (tag == DW_TAG_namespace || tag == DW_TAG_module)
            cu_index_walk(ci, &c, depth + 1);
    } while (dwarf_siblingof(&c, &c) == 0);
}

/* The function index of cu, built on first use; NULL on OOM. */
static const struct cu_index *cu_index_get(struct sym_dwarf *d, Dwarf_Die *cu)
{
    uint64_t h = die_hash(cu->addr);
    uint32_t id = idtab_find(&d->cu_ids, h, NULL, NULL);
    if (id != IDTAB_NONE)
        return &d->cus[id];
    if (VEC_RESERVE(d->cus, d->capcus, d->ncus + 1) < 0 ||
        idtab_insert(&d->cu_ids, h, (uint32_t)d->ncus) < 0)
        return NULL;
    struct cu_index *ci = &d->cus[d->ncus++];
    *ci = (struct cu_index){0};
    cu_index_walk(ci, cu, 0);
    if (ci->n > 1)
        sorted_sort(ci->r, ci->n, sizeof *ci->r, fn_range_cmp);
    return ci;
}

/* The function of the index containing pc, or NULL. */
static Dwarf_Die *cu_index_find(const struct cu_index *ci, Dwarf_Addr pc)
{
    size_t i = sorted_upper_bound(ci->r, ci->n, sizeof *ci->r,
                                  offsetof(struct fn_range, lo), pc);
    if (i == 0 || pc >= ci->r[i - 1].hi)
        return NULL;
    return &ci->r[i - 1].die;
}

/* --- inline chains ------------------------------------------------------------ */

static bool is_func(Dwarf_Die *die)
{
    int tag = dwarf_tag(die);
    return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
}

/* The child of `parent` that is an inlined instance or a block containing
 * pc, in *out; false when none. */
static bool child_at(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *out)
{
    Dwarf_Die c;
    if (dwarf_child(parent, &c) != 0)
        return false;
    do {
        int tag = dwarf_tag(&c);
        if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block ||
             tag == DW_TAG_try_block || tag == DW_TAG_catch_block) &&
            dwarf_haspc(&c, pc) > 0) {
            *out = c;
            return true;
        }
    } while (dwarf_siblingof(&c, &c) == 0);
    return false;
}

/* Walk down from function fn to the innermost inlined instance containing
 * pc.  Fills out[] innermost first (inlined instances, then fn). */
static int chain_from_function(Dwarf_Die *fn, Dwarf_Addr pc, Dwarf_Die *out,
                               int cap)
{
    Dwarf_Die path[SYM_MAX_FRAMES];
    int n = 0;
    path[n++] = *fn;
    Dwarf_Die cur = *fn;
    while (n < cap && n < SYM_MAX_FRAMES && child_at(&cur, pc, &cur))
        if (dwarf_tag(&cur) == DW_TAG_inlined_subroutine)
            path[n++] = cur;
    for (int i = 0; i < n; i++)
        out[i] = path[n - 1 - i];
    return n;
}

/* The same through dwarf_getscopes, for functions the index does not
 * hold.  dwarf_getscopes stops at the innermost inlined instance (it then
 * goes on in the abstract tree); the instances containing it are its
 * concrete parents, from dwarf_getscopes_die. */
static int chain_from_scopes(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out,
                             int cap)
{
    Dwarf_Die *scopes = NULL;
    int ns = dwarf_getscopes(cu, pc, &scopes);
    int inner = -1;
    for (int i = 0; i < ns && inner < 0; i++)
        if (is_func(&scopes[i]))
            inner = i;
    if (inner < 0) {
        free(scopes);
        return 0;
    }
    Dwarf_Die *chain = &scopes[inner];
    Dwarf_Die *parents = NULL;
    int nc = 1;
    if (dwarf_tag(chain) == DW_TAG_inlined_subroutine) {
        int np = dwarf_getscopes_die(chain, &parents);
        if (np > 0) {
            chain = parents;
            nc = np;
        }
    }
    int n = 0;
    for (int i = 0; i < nc && n < cap; i++) {
        if (!is_func(&chain[i]))
            continue;
        out[n++] = chain[i];
        if (dwarf_tag(&chain[i]) == DW_TAG_subprogram)
            break;
    }
    free(parents);
    free(scopes);
    return n;
}

/* --- frames ------------------------------------------------------------------- */

/* The frame of one link of the chain; `line` is the line in it. */
static void chain_frame(struct sym_dwarf *d, Dwarf_Die *die, Dwarf_Die *cu,
                        Dwarf_Addr bias, const char *module, int line,
                        struct sym_frame *f)
{
    int decl = 0;
    if (dwarf_decl_line(die, &decl) != 0)
        decl = 0;
    uint64_t start = die_start(die);
    *f = (struct sym_frame){
        .name = die_name(d, die, cu),
        .module = module,
        .file = die_file(d, die, cu),
        .line = line > 0 ? (uint32_t)line : 0,
        .func_line = decl > 0 ? (uint32_t)decl : 0,
        .sym_addr = start ? start + bias : 0,
        .inlined = dwarf_tag(die) == DW_TAG_inlined_subroutine,
        .known = true,
    };
}

int sym_dwarf_frames(struct sym_dwarf *d, Dwfl_Module *mod, uint64_t addr,
                     const char *module, struct sym_frame *out, int cap)
{
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias);
    if (cu == NULL)
        return 0;
    Dwarf_Addr pc = addr - bias;
    Dwarf_Die chain[SYM_MAX_FRAMES];
    if (cap > SYM_MAX_FRAMES)
        cap = SYM_MAX_FRAMES;
    const struct cu_index *ci = cu_index_get(d, cu);
    Dwarf_Die *fn = ci != NULL ? cu_index_find(ci, pc) : NULL;
    int nc = fn != NULL ? chain_from_function(fn, pc, chain, cap)
                        : chain_from_scopes(cu, pc, chain, cap);

    Dwarf_Line *src = nc > 0 ? dwarf_getsrc_die(cu, pc) : NULL;
    int line = 0;
    if (src == NULL || dwarf_lineno(src, &line) != 0)
        line = 0;
    for (int i = 0; i < nc; i++) {
        chain_frame(d, &chain[i], cu, bias, module, line, &out[i]);
        if (out[i].file == NULL && src != NULL)
            out[i].file = intern(d, dwarf_linesrc(src, NULL, NULL));
        /* The next frame out is at the line this instance was called from. */
        Dwarf_Attribute a;
        Dwarf_Word w = 0;
        if (dwarf_formudata(dwarf_attr(&chain[i], DW_AT_call_line, &a), &w) != 0)
            w = 0;
        line = (int)w;
    }
    return nc;
}

uint32_t sym_dwarf_line(struct sym_dwarf *d, Dwfl_Module *mod, uint64_t addr,
                        const char **file)
{
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias);
    Dwarf_Line *src = cu != NULL ? dwarf_getsrc_die(cu, addr - bias) : NULL;
    int line = 0;
    if (src == NULL || dwarf_lineno(src, &line) != 0 || line <= 0)
        return 0;
    *file = intern(d, dwarf_linesrc(src, NULL, NULL));
    return (uint32_t)line;
}
