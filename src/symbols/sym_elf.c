/* sym_elf.c - sorted ELF symbol tables; see sym_elf.h. */
#include "sym_elf.h"

#include <elfutils/libdwfl.h>
#include <stddef.h>
#include <stdlib.h>

#include "sorted.h"
#include "util.h"

/* One ELF symbol of a module. */
struct elf_sym {
    uint64_t start;    /* target address */
    uint64_t end;      /* one past the last; == start for sizeless labels */
    uint64_t max_end;  /* greatest end of this and all earlier entries */
    const char *name;  /* owned by libdwfl, lives as long as the module */
    uint32_t seq;      /* index in the symbol table */
    uint8_t rank;      /* 2 global, 1 weak, 0 local: the preferred alias */
};

struct sym_elf {
    size_t n;
    struct elf_sym v[];  /* sorted by elf_sym_cmp */
};

/* By start; within a start, worst alias first (lower rank, then larger,
 * then later in the table), since lookups walk backwards from the end. */
static int elf_sym_cmp(const void *a, const void *b)
{
    const struct elf_sym *x = a, *y = b;
    int c = util_cmp_pair(x->start, x->rank, y->start, y->rank);

    return c ? c : util_cmp_pair(y->end, y->seq, x->end, x->seq);
}

struct sym_elf *sym_elf_build(Dwfl_Module *mod)
{
    int n = dwfl_module_getsymtab(mod);
    if (n <= 1)
        return NULL;
    struct sym_elf *t = malloc(sizeof *t + (size_t)n * sizeof t->v[0]);
    if (t == NULL)
        return NULL;
    t->n = 0;
    for (int i = 1; i < n; i++) {
        GElf_Sym sym;
        GElf_Addr value;
        GElf_Word shndx;
        const char *name = dwfl_module_getsym_info(mod, i, &sym, &value,
                                                   &shndx, NULL, NULL);
        if (name == NULL || name[0] == '\0' || shndx == SHN_UNDEF)
            continue;
        int type = GELF_ST_TYPE(sym.st_info);
        if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE)
            continue;
        int bind = GELF_ST_BIND(sym.st_info);
        t->v[t->n++] = (struct elf_sym){
            .start = value,
            .end = value + sym.st_size,
            .name = name,
            .seq = (uint32_t)i,
            .rank = bind == STB_GLOBAL ? 2 : bind == STB_WEAK ? 1 : 0,
        };
    }
    sorted_sort(t->v, t->n, sizeof t->v[0], elf_sym_cmp);
    uint64_t max_end = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (t->v[i].end > max_end)
            max_end = t->v[i].end;
        t->v[i].max_end = max_end;
    }
    return t;
}

void sym_elf_free(struct sym_elf *t)
{
    free(t);
}

static const struct elf_sym *find(const struct sym_elf *t, Dwfl_Module *mod,
                                  uint64_t addr)
{
    size_t lo = sorted_upper_bound(t->v, t->n, sizeof t->v[0],
                                   offsetof(struct elf_sym, start), addr);
    if (lo == 0)
        return NULL;
    const struct elf_sym *last = &t->v[lo - 1];
    if (last->max_end > addr) {
        /* Some symbol contains addr; max_end says when to stop looking. */
        for (size_t i = lo; i > 0 && t->v[i - 1].max_end > addr; i--)
            if (addr < t->v[i - 1].end)
                return &t->v[i - 1];
        return NULL;
    }
    /* No symbol contains addr.  The closest one is a usable label if it
     * is sizeless and nothing before it extends past it (then every
     * symbol starting where it does is sizeless, the best alias last). */
    if (last->end != last->start || last->max_end != last->start)
        return NULL;
    Dwarf_Addr a = addr, b = last->start, bias;
    Elf_Scn *sa = dwfl_module_address_section(mod, &a, &bias);
    Elf_Scn *sb = dwfl_module_address_section(mod, &b, &bias);
    return sa != NULL && sa == sb ? last : NULL;
}

const char *sym_elf_find(const struct sym_elf *t, Dwfl_Module *mod,
                         uint64_t addr, uint64_t *start)
{
    const struct elf_sym *e = t != NULL ? find(t, mod, addr) : NULL;
    if (e == NULL)
        return NULL;
    *start = e->start;
    return e->name;
}
