/* relf.c - exported ELF symbols read from a process's memory; see relf.h. */
#include "relf.h"

#include <elf.h>
#include <stdbool.h>
#include <string.h>

#include "rmem.h"

#define MAX_PHDRS 64       /* program headers accepted */
#define MAX_DYN 512        /* dynamic entries read */
#define MAX_BUCKETS (1u << 20)
#define MAX_CHAIN 4096     /* symbols compared in one hash chain */
#define MAX_NAME 256       /* longest symbol name compared */

static uint32_t gnu_hash(const char *s)
{
    uint32_t h = 5381;
    for (; *s; s++)
        h = h * 33 + (uint8_t)*s;
    return h;
}

static uint32_t sysv_hash(const char *s)
{
    uint32_t h = 0;
    for (; *s; s++) {
        h = (h << 4) + (uint8_t)*s;
        uint32_t g = h & 0xf0000000u;
        if (g)
            h ^= g >> 24;
        h &= ~g;
    }
    return h;
}

/* A dynamic-section pointer as an address: ld.so relocates most of them in
 * place, but not on every system; an unrelocated one is below the bias. */
static uint64_t dyn_addr(const struct relf *e, uint64_t v)
{
    return e->bias && v < e->bias ? v + e->bias : v;
}

int relf_open(struct rmem *m, uint64_t base, struct relf *out)
{
    memset(out, 0, sizeof *out);
    Elf64_Ehdr eh;
    if (rmem_copy(m, base, &eh, sizeof eh) < 0 ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_ident[EI_DATA] != ELFDATA2LSB ||
        eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 ||
        eh.e_phnum > MAX_PHDRS || eh.e_phoff > RMEM_MAX_READ)
        return -1;
    Elf64_Phdr ph[MAX_PHDRS];
    if (rmem_copy(m, base + eh.e_phoff, ph,
                  (size_t)eh.e_phnum * sizeof *ph) < 0)
        return -1;
    const Elf64_Phdr *first = NULL, *dyn = NULL, *ehf = NULL;
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        if (ph[i].p_type == PT_GNU_EH_FRAME)
            ehf = &ph[i];
        if (ph[i].p_type == PT_LOAD &&
            (!first || ph[i].p_offset < first->p_offset))
            first = &ph[i];
        else if (ph[i].p_type == PT_DYNAMIC)
            dyn = &ph[i];
    }
    /* base maps file offset 0, which the lowest PT_LOAD holds */
    if (!first || !dyn || first->p_offset > first->p_vaddr ||
        first->p_offset != 0)
        return -1;
    out->base = base;
    out->bias = base - (first->p_vaddr - first->p_offset);
    if (ehf)
        out->eh_frame_hdr = out->bias + ehf->p_vaddr;
    size_t n = dyn->p_memsz / sizeof(Elf64_Dyn);
    if (n == 0)
        return -1;
    if (n > MAX_DYN)
        n = MAX_DYN;
    Elf64_Dyn d[MAX_DYN];
    if (rmem_copy(m, out->bias + dyn->p_vaddr, d, n * sizeof *d) < 0)
        return -1;
    for (size_t i = 0; i < n && d[i].d_tag != DT_NULL; i++) {
        switch (d[i].d_tag) {
        case DT_SYMTAB: out->symtab = dyn_addr(out, d[i].d_un.d_ptr); break;
        case DT_STRTAB: out->strtab = dyn_addr(out, d[i].d_un.d_ptr); break;
        case DT_STRSZ: out->strsz = d[i].d_un.d_val; break;
        case DT_GNU_HASH: out->gnu_hash = dyn_addr(out, d[i].d_un.d_ptr); break;
        case DT_HASH: out->hash = dyn_addr(out, d[i].d_un.d_ptr); break;
        case DT_SYMENT:
            if (d[i].d_un.d_val != sizeof(Elf64_Sym))
                return -1;
            break;
        default: break;
        }
    }
    return out->symtab && out->strtab && (out->gnu_hash || out->hash) ? 0 : -1;
}

/* Whether symbol idx is `name`, defined; its symbol in *sym. */
static bool sym_is(struct rmem *m, const struct relf *e, uint64_t idx,
                   const char *name, Elf64_Sym *sym)
{
    char buf[MAX_NAME];
    if (idx > UINT32_MAX ||
        rmem_copy(m, e->symtab + idx * sizeof *sym, sym, sizeof *sym) < 0 ||
        sym->st_shndx == SHN_UNDEF || sym->st_value == 0 ||
        (e->strsz && sym->st_name >= e->strsz) ||
        rmem_cstring(m, e->strtab + sym->st_name, buf, sizeof buf) < 0)
        return false;
    return strcmp(buf, name) == 0;
}

static int lookup_gnu(struct rmem *m, const struct relf *e, const char *name,
                      Elf64_Sym *sym)
{
    uint32_t hdr[4]; /* nbuckets, symoffset, bloom words, bloom shift */
    if (rmem_copy(m, e->gnu_hash, hdr, sizeof hdr) < 0 || hdr[0] == 0 ||
        hdr[0] > MAX_BUCKETS || hdr[2] > MAX_BUCKETS)
        return -1;
    uint32_t h = gnu_hash(name);
    uint64_t buckets = e->gnu_hash + sizeof hdr + (uint64_t)hdr[2] * 8;
    uint64_t chain = buckets + (uint64_t)hdr[0] * 4;
    uint32_t idx;
    if (rmem_copy(m, buckets + (uint64_t)(h % hdr[0]) * 4, &idx, 4) < 0 ||
        idx < hdr[1])
        return -1;
    for (unsigned steps = 0; steps < MAX_CHAIN; steps++, idx++) {
        uint32_t hv;
        if (rmem_copy(m, chain + (uint64_t)(idx - hdr[1]) * 4, &hv, 4) < 0)
            return -1;
        if ((hv | 1) == (h | 1) && sym_is(m, e, idx, name, sym))
            return 0;
        if (hv & 1)
            return -1;
    }
    return -1;
}

static int lookup_sysv(struct rmem *m, const struct relf *e, const char *name,
                       Elf64_Sym *sym)
{
    uint32_t hdr[2]; /* nbucket, nchain */
    if (rmem_copy(m, e->hash, hdr, sizeof hdr) < 0 || hdr[0] == 0 ||
        hdr[0] > MAX_BUCKETS)
        return -1;
    uint64_t chain = e->hash + 8 + (uint64_t)hdr[0] * 4;
    uint32_t idx;
    if (rmem_copy(m, e->hash + 8 + (uint64_t)(sysv_hash(name) % hdr[0]) * 4,
                  &idx, 4) < 0)
        return -1;
    for (unsigned steps = 0; idx && idx < hdr[1] && steps < MAX_CHAIN;
         steps++) {
        if (sym_is(m, e, idx, name, sym))
            return 0;
        if (rmem_copy(m, chain + (uint64_t)idx * 4, &idx, 4) < 0)
            return -1;
    }
    return -1;
}

int relf_symbol(struct rmem *m, const struct relf *e, const char *name,
                uint64_t *addr, uint64_t *size)
{
    Elf64_Sym sym;
    if (!(e->gnu_hash && lookup_gnu(m, e, name, &sym) == 0) &&
        !(e->hash && lookup_sysv(m, e, name, &sym) == 0))
        return -1;
    if (addr)
        *addr = sym.st_value + e->bias;
    if (size)
        *size = sym.st_size;
    return 0;
}

/* .eh_frame_hdr as GCC and the binutils write it: the pointer to
 * .eh_frame pc-relative (DW_EH_PE_pcrel | sdata4), the count udata4, the
 * table of (start, FDE) pairs relative to the header (datarel | sdata4),
 * sorted by start. */
#define EH_PTR_ENC 0x1b
#define EH_COUNT_ENC 0x03
#define EH_TABLE_ENC 0x3b
#define MAX_FDES (1u << 20)

static int32_t le32(const uint8_t *b)
{
    return (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 |
                     (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
}

int relf_fde_range(struct rmem *m, const struct relf *e, uint64_t addr,
                   uint64_t *lo, uint64_t *hi)
{
    uint8_t h[12];
    uint64_t hdr = e->eh_frame_hdr;
    if (!hdr || rmem_copy(m, hdr, h, sizeof h) < 0 || h[0] != 1 ||
        h[1] != EH_PTR_ENC || h[2] != EH_COUNT_ENC || h[3] != EH_TABLE_ENC)
        return -1;
    uint32_t count = (uint32_t)le32(h + 8);
    if (count == 0 || count > MAX_FDES)
        return -1;
    uint64_t table = hdr + 12;
    /* the last entry whose start is at or below addr */
    uint32_t a = 0, b = count;
    uint8_t ent[8];
    while (b - a > 1) {
        uint32_t mid = a + (b - a) / 2;
        if (rmem_copy(m, table + (uint64_t)mid * 8, ent, 4) < 0)
            return -1;
        if (hdr + (uint64_t)(int64_t)le32(ent) <= addr)
            a = mid;
        else
            b = mid;
    }
    if (rmem_copy(m, table + (uint64_t)a * 8, ent, 8) < 0)
        return -1;
    uint64_t start = hdr + (uint64_t)(int64_t)le32(ent);
    uint64_t fde = hdr + (uint64_t)(int64_t)le32(ent + 4);
    uint8_t f[16];
    if (start > addr || rmem_copy(m, fde, f, sizeof f) < 0 ||
        le32(f) <= 0 || le32(f) == -1 || le32(f + 4) == 0)
        return -1;
    /* pc_begin pc-relative sdata4, pc_range udata4: checked against the
     * table's start, so another encoding is refused, not misread */
    if (fde + 8 + (uint64_t)(int64_t)le32(f + 8) != start)
        return -1;
    uint64_t range = (uint32_t)le32(f + 12);
    if (addr >= start + range)
        return -1;
    *lo = start;
    *hi = start + range;
    return 0;
}
