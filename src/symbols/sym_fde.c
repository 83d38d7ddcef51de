/* sym_fde.c - function starts from .eh_frame_hdr; see sym_fde.h. */
#include "sym_fde.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#include "sorted.h"

#define EH_PE_udata4 0x03
#define EH_PE_sdata4 0x0b
#define EH_PE_datarel_sdata4 0x3b

struct sym_fde {
    size_t n;
    uint64_t start[];  /* FDE starts, ELF addresses, ascending */
};

static uint32_t rd32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);  /* x86-64: little-endian, as the file */
    return v;
}

/* The .eh_frame_hdr segment of elf: its bytes and ELF address. */
static const unsigned char *eh_frame_hdr(Elf *elf, size_t *size,
                                         uint64_t *vaddr)
{
    size_t nph;
    if (elf_getphdrnum(elf, &nph) != 0)
        return NULL;
    for (size_t i = 0; i < nph; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(elf, (int)i, &ph) == NULL ||
            ph.p_type != PT_GNU_EH_FRAME)
            continue;
        Elf_Data *d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset,
                                           ph.p_filesz, ELF_T_BYTE);
        if (d == NULL || d->d_buf == NULL)
            return NULL;
        *size = d->d_size;
        *vaddr = ph.p_vaddr;
        return d->d_buf;
    }
    return NULL;
}

struct sym_fde *sym_fde_build(Dwfl_Module *mod)
{
    Dwarf_Addr bias;
    Elf *elf = dwfl_module_getelf(mod, &bias);
    size_t size = 0;
    uint64_t vaddr = 0;
    const unsigned char *h = elf ? eh_frame_hdr(elf, &size, &vaddr) : NULL;
    /* version 1; eh_frame_ptr as any 4-byte value; the count as udata4;
     * the table as pairs of 4-byte offsets from the header */
    if (h == NULL || size < 12 || h[0] != 1 || (h[1] & 0x0f) != EH_PE_sdata4 ||
        h[2] != EH_PE_udata4 || h[3] != EH_PE_datarel_sdata4)
        return NULL;
    size_t n = rd32(h + 8);
    if (n == 0 || n > (size - 12) / 8)
        return NULL;
    struct sym_fde *t = malloc(sizeof *t + n * sizeof t->start[0]);
    if (t == NULL)
        return NULL;
    t->n = n;
    for (size_t i = 0; i < n; i++)
        t->start[i] = vaddr + (uint64_t)(int64_t)(int32_t)rd32(h + 12 + 8 * i);
    return t;
}

void sym_fde_free(struct sym_fde *t)
{
    free(t);
}

uint64_t sym_fde_start(const struct sym_fde *t, Dwfl_Module *mod,
                       uint64_t addr)
{
    Dwarf_Addr bias = 0;
    Dwarf_CFI *cfi = t != NULL ? dwfl_module_eh_cfi(mod, &bias) : NULL;
    Dwarf_Frame *frame = NULL;
    /* Is addr in an FDE at all (not in padding between functions)? */
    if (cfi == NULL || dwarf_cfi_addrframe(cfi, addr - bias, &frame) != 0)
        return 0;
    free(frame);
    size_t i = sorted_upper_bound(t->start, t->n, sizeof t->start[0], 0,
                                  addr - bias);
    return i > 0 ? t->start[i - 1] + bias : 0;
}
