/* sym_plt.c - names for PLT stubs; see sym_plt.h. */
#include "sym_plt.h"

#include <elfutils/libdwfl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sorted.h"
#include "strarena.h"
#include "sym_names.h"
#include "vec.h"

#define PLT_ENTRY 16u        /* x86-64's .plt and .plt.sec entries */
#define PLT_MAX (1u << 20)   /* stubs kept of one module, at most */

/* One stub, or a section's code that no relocation names. */
struct plt_ent {
    uint64_t start;       /* ELF address */
    uint64_t end;
    const char *name;     /* the function's (in names; "@plt" follows),
                             NULL: the section's */
    const char *section;  /* ".plt" or ".plt.got" */
};

struct sym_plt {
    uint64_t bias;
    struct plt_ent *v;
    size_t n, cap;
    struct strarena names; /* the functions' names */
};

/* The section called name, its header in *sh; NULL if none. */
static Elf_Scn *section(Elf *elf, size_t shstr, const char *name,
                        GElf_Shdr *sh)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn))) {
        const char *n;
        if (gelf_getshdr(scn, sh) && (n = elf_strptr(elf, shstr, sh->sh_name))
            && strcmp(n, name) == 0)
            return scn;
    }
    return NULL;
}

/* s kept in the table's names; NULL on OOM. */
static const char *keep(struct sym_plt *t, const char *s)
{
    return strarena_intern(&t->names, s, strlen(s));
}

/* Add an entry; false when it cannot be (the table is full, or OOM). */
static bool add(struct sym_plt *t, uint64_t start, uint64_t size,
                const char *name, const char *section_name)
{
    if (t->n >= PLT_MAX || size == 0 ||
        VEC_RESERVE(t->v, t->cap, t->n + 1) < 0)
        return false;
    t->v[t->n++] = (struct plt_ent){start, start + size, name, section_name};
    return true;
}

/* A relocation section's entries and the symbols they name. */
struct relocs {
    Elf *elf;
    Elf_Data *rel, *syms;
    size_t n;
    GElf_Word strtab;
};

static int relocs_open(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
                       struct relocs *r)
{
    GElf_Shdr ss;
    Elf_Scn *sy = scn && sh->sh_type == SHT_RELA
                      ? elf_getscn(elf, sh->sh_link) : NULL;
    memset(r, 0, sizeof *r);
    r->elf = elf;
    if (!sy || !gelf_getshdr(sy, &ss) || !(r->rel = elf_getdata(scn, NULL))
        || !(r->syms = elf_getdata(sy, NULL)) || !sh->sh_entsize)
        return -1;
    r->n = r->rel->d_size / sh->sh_entsize;
    r->strtab = ss.sh_link;
    return 0;
}

/* Relocation i of r into *ra; -1 if unreadable. */
static int reloc_at(const struct relocs *r, size_t i, GElf_Rela *ra)
{
    return i < r->n && i <= INT32_MAX && gelf_getrela(r->rel, (int)i, ra)
               ? 0 : -1;
}

/* The name of ra's symbol into buf ("*ABS*+0x..." for one with none, as
 * objdump says); -1 if unreadable. */
static int reloc_name(const struct relocs *r, const GElf_Rela *ra, char *buf,
                      size_t cap)
{
    GElf_Sym s;
    const char *name;
    size_t sym = GELF_R_SYM(ra->r_info);
    if (sym == 0) {
        snprintf(buf, cap, "*ABS*+0x%" PRIx64, (uint64_t)ra->r_addend);
        return 0;
    }
    if (sym > INT32_MAX || !gelf_getsym(r->syms, (int)sym, &s) ||
        !(name = elf_strptr(r->elf, r->strtab, s.st_name)) || !*name)
        return -1;
    snprintf(buf, cap, "%s", name);
    return 0;
}

/* The GOT slot a stub's `jmp *disp32(%rip)` (ff 25) reads, 0 if none;
 * the relocation index its `push imm32` (68) gives, in *idx (-1: none). */
static uint64_t decode_stub(const uint8_t *code, size_t n, uint64_t addr,
                            int64_t *idx)
{
    *idx = -1;
    for (size_t k = 0; k + 5 <= n; k++) {
        int32_t v;
        if (code[k] == 0xff && code[k + 1] == 0x25 && k + 6 <= n) {
            memcpy(&v, code + k + 2, sizeof v);
            return addr + k + 6 + (uint64_t)(int64_t)v;
        }
        if (code[k] == 0x68 && *idx < 0) {
            memcpy(&v, code + k + 1, sizeof v);
            *idx = v;
        }
    }
    return 0;
}

/* A stub's GOT slot, by slot. */
struct got_stub {
    uint64_t slot;
    size_t ent;   /* its index in the table */
};

static int stub_cmp(const void *a, const void *b)
{
    const struct got_stub *x = a, *y = b;
    return (x->slot > y->slot) - (x->slot < y->slot);
}

/* The stubs of a section of code: entries of `step` bytes from `skip`
 * (.plt's header is not one), each with the GOT slot it jumps through
 * (into *st) or, failing that (IBT's lazy halves), the relocation index
 * it pushes, named at once. */
static void add_stubs(struct sym_plt *t, Elf_Scn *scn, const GElf_Shdr *sh,
                      size_t step, size_t skip, const struct relocs *rplt,
                      const char *sec, struct got_stub **st, size_t *ns,
                      size_t *cap)
{
    Elf_Data *d = elf_getdata(scn, NULL);
    char buf[512];
    if (!d || !d->d_buf || sh->sh_type != SHT_PROGBITS)
        return;
    for (size_t off = skip; off + step <= d->d_size && off + step <= sh->sh_size;
         off += step) {
        int64_t idx;
        GElf_Rela ra;
        uint64_t slot = decode_stub((const uint8_t *)d->d_buf + off, step,
                                    sh->sh_addr + off, &idx);
        const char *name = NULL;
        if (!slot && idx >= 0 && reloc_at(rplt, (size_t)idx, &ra) == 0 &&
            reloc_name(rplt, &ra, buf, sizeof buf) == 0)
            name = keep(t, buf);
        size_t ent = t->n;
        if (add(t, sh->sh_addr + off, step, name, sec) && slot &&
            VEC_RESERVE(*st, *cap, *ns + 1) == 0)
            (*st)[(*ns)++] = (struct got_stub){slot, ent};
    }
}

/* Name each stub in st by the relocation of r at its slot. */
static void name_by_slot(struct sym_plt *t, const struct relocs *r,
                         const struct got_stub *st, size_t ns)
{
    char buf[512];
    for (size_t i = 0; ns && i < r->n; i++) {
        GElf_Rela ra;
        if (reloc_at(r, i, &ra) < 0)
            continue;
        size_t k = sorted_upper_bound(st, ns, sizeof *st,
                                      offsetof(struct got_stub, slot),
                                      ra.r_offset);
        /* only a relocation at a stub's slot is named (.rela.dyn can
         * hold 100,000) */
        if (k == 0 || st[k - 1].slot != ra.r_offset ||
            reloc_name(r, &ra, buf, sizeof buf) < 0)
            continue;
        for (; k > 0 && st[k - 1].slot == ra.r_offset; k--) {
            struct plt_ent *e = &t->v[st[k - 1].ent];
            if (!e->name)
                e->name = keep(t, buf);
        }
    }
}

static int ent_cmp(const void *a, const void *b)
{
    const struct plt_ent *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

/* 8 or 16 bytes a stub, as the section says; else dflt. */
static size_t entry_size(const GElf_Shdr *sh, size_t dflt)
{
    return sh->sh_entsize == 8 || sh->sh_entsize == 16 ? sh->sh_entsize
                                                       : dflt;
}

struct sym_plt *sym_plt_build(Dwfl_Module *mod)
{
    Dwarf_Addr bias = 0;
    Elf *elf = dwfl_module_getelf(mod, &bias);
    size_t shstr;
    GElf_Shdr plt, sec, got, rp, rd;
    if (!elf || elf_getshdrstrndx(elf, &shstr) != 0)
        return NULL;
    Elf_Scn *s_plt = section(elf, shstr, ".plt", &plt);
    Elf_Scn *s_sec = section(elf, shstr, ".plt.sec", &sec);
    Elf_Scn *s_got = section(elf, shstr, ".plt.got", &got);
    if (!s_plt && !s_got)
        return NULL;
    struct sym_plt *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->bias = bias;
    static const char n_plt[] = ".plt", n_got[] = ".plt.got";
    struct relocs rplt, rdyn;
    if (relocs_open(elf, section(elf, shstr, ".rela.plt", &rp), &rp,
                    &rplt) < 0)
        rplt.n = 0;
    if (relocs_open(elf, section(elf, shstr, ".rela.dyn", &rd), &rd,
                    &rdyn) < 0)
        rdyn.n = 0;
    struct got_stub *st = NULL;
    size_t ns = 0, cap = 0;
    if (s_plt && plt.sh_type == SHT_PROGBITS && plt.sh_size >= PLT_ENTRY) {
        add(t, plt.sh_addr, PLT_ENTRY, NULL, n_plt); /* the header */
        add_stubs(t, s_plt, &plt, PLT_ENTRY, PLT_ENTRY, &rplt, n_plt, &st,
                  &ns, &cap);
    }
    if (s_sec)
        add_stubs(t, s_sec, &sec, entry_size(&sec, PLT_ENTRY), 0, &rplt,
                  n_plt, &st, &ns, &cap);
    if (s_got)
        add_stubs(t, s_got, &got, entry_size(&got, 8), 0, &rplt, n_got, &st,
                  &ns, &cap);
    sorted_sort(st, ns, sizeof *st, stub_cmp);
    name_by_slot(t, &rplt, st, ns);
    name_by_slot(t, &rdyn, st, ns);
    free(st);
    if (t->n == 0) {
        sym_plt_free(t);
        return NULL;
    }
    sorted_sort(t->v, t->n, sizeof t->v[0], ent_cmp);
    return t;
}

void sym_plt_free(struct sym_plt *t)
{
    if (!t)
        return;
    strarena_free(&t->names);
    free(t->v);
    free(t);
}

const char *sym_plt_name(const struct sym_plt *t, struct strarena *names,
                         uint64_t addr, uint64_t *start)
{
    if (!t || addr < t->bias)
        return NULL;
    uint64_t a = addr - t->bias;
    size_t i = sorted_upper_bound(t->v, t->n, sizeof t->v[0],
                                  offsetof(struct plt_ent, start), a);
    if (i == 0 || a >= t->v[i - 1].end)
        return NULL;
    const struct plt_ent *e = &t->v[i - 1];
    *start = e->start + t->bias;
    if (!e->name)
        return sym_names_intern(names, e->section);
    const char *d = sym_names_demangle(names, e->name);
    char buf[1024];
    if (!d)
        return NULL;
    snprintf(buf, sizeof buf, "%s@plt", d);
    return sym_names_intern(names, buf);
}
