/* unwind.c - libunwind over a copied stack; see unwind.h. */
#include "unwind.h"

#include "maps.h"
#include "util.h"
#include "vec.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libunwind-ptrace.h>
#include <libunwind.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#define PAGE 4096u
#define PAGE_SLOTS 1024u /* read-only page cache: 4 MiB at most */
#define END_SLOTS 256u   /* ends_chain answers by address, per maps */
#define STACK_REACH (8u << 20) /* an address this close above a copied
                                  stack is taken as more of that stack */

struct upt_slot {
    char *path;  /* ELF object path as in the maps */
    void *upt;   /* its _UPT handle (libunwind-ptrace keeps one image) */
};

/* An ELF object whose unwind table we located in target memory (the vdso,
 * or a file libunwind-ptrace cannot open: deleted, or in a container). */
struct mem_table {
    uint64_t base;     /* address of its offset-0 mapping */
    unw_dyn_info_t di; /* remote eh_frame_hdr search table */
    bool ok;
};

/* libunwind exports its .eh_frame_hdr binary search for remote tables but
 * declares it in no public header; its signature is stable since 1.0. */
extern int _Ux86_64_dwarf_search_unwind_table(unw_addr_space_t as, unw_word_t ip,
                                              unw_dyn_info_t *di,
                                              unw_proc_info_t *pi,
                                              int need_unwind_info, void *arg);

/* An ELF file the process maps, read from the file itself when the
 * process's memory cannot be read (it has exited: a short process's
 * samples are unwound up to a drain after its end), and for the parts
 * of it the maps do not list (maps built from perf's MMAP2 records name
 * only the executable mapping, not the read-only segment that holds
 * .eh_frame).  Its loadable segments, at the load bias of the mapping
 * it was found through. */
#define FILE_SEGS 8
struct file_obj {
    char *path;
    int fd;            /* -1: not opened, not that inode, or not ELF */
    uint64_t load;     /* load bias: address = load + p_vaddr */
    uint64_t base;     /* address of its file offset 0 (the ELF header) */
    uint32_t nseg;
    struct {
        uint64_t vaddr, filesz, offset;
        bool w;
    } seg[FILE_SEGS];
};

struct page_slot {
    uint64_t addr;    /* page address, 0 = empty */
    uint8_t *data;
};

struct unwinder {
    pid_t pid;
    pid_t read_tid;        /* thread whose address space reads go through */
    unw_addr_space_t as;
    const struct maps *maps;
    struct upt_slot *upts;
    size_t nupts, capupts;
    struct page_slot pages[PAGE_SLOTS];
    struct mem_table *mtabs;
    size_t nmtabs, capmtabs;
    struct file_obj *fobjs;  /* by path, made on demand (file_objs) */
    size_t nfobjs, capfobjs;
    bool fobjs_done;         /* every file mapping of maps has one */
    bool sparse;             /* maps list no file's read-only segments
                                (built from perf's records): addresses
                                outside them may be a file's */
    /* the sample being unwound */
    const uint64_t *regs;
    const uint8_t *stack;
    uint64_t stack_addr;
    size_t stack_len;
    int saw_unknown;
    int badmem;
    int beyond_copy;       /* wanted stack past the copy, live reads off */
    int no_live;           /* unwinder_set_live_reads(u, 0) */
    int read_zero;         /* this step read a 0 from the stack: an
                              outermost frame's return address is
                              undefined in its unwind info, never read */
    /* ends_chain's answers for this maps: the last frames of a program's
     * stacks are a handful of addresses (_start, clone3), and asking the
     * tables outside libunwind's own cache cost as much as the rest of
     * the unwind (docs/PERFORMANCE.md, 10) */
    uint64_t end_pc[END_SLOTS]; /* address + 1; 0: empty */
    bool end_ok[END_SLOTS];
};

/* libunwind-ptrace hands its own UPT handle, not ours, to the accessors it
 * calls from _UPT_find_proc_info, so the accessors find the unwinder here.
 * Only the sampler thread unwinds. */
static _Thread_local struct unwinder *current;

/* libunwind masks every signal around each of its internal locks (the
 * register-state cache, the memory pools), two rt_sigprocmask system calls
 * each time, several per unwind step: about half of the CPU time of an
 * unwind, measured (docs/PERFORMANCE.md).  Debian's build has no
 * per-thread cache, so UNW_CACHE_PER_THREAD falls back to the locked
 * global one.  The masking protects a signal handler that unwinds its own
 * process; sproftop's handlers only set a flag and its unwinding threads
 * block them, so while this thread is inside unwinder_unwind libunwind's
 * sigprocmask calls (resolved to this definition) do nothing.  Everyone
 * else gets the real one. */
int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
    if (current)
        return 0;
    int e = pthread_sigmask(how, set, old);
    if (e) {
        errno = e;
        return -1;
    }
    return 0;
}

static const char *const end_names[UNWIND_NCAUSES] = {
    "complete", "depth-cap", "loop", "no-unwind-info", "bad-memory", "other",
    "stack-copy",
};

const char *unwind_end_name(enum unwind_end e)
{
    return (unsigned)e < UNWIND_NCAUSES ? end_names[e] : "?";
}

static void *upt_for(struct unwinder *u, const char *path)
{
    for (size_t i = 0; i < u->nupts; i++)
        if (strcmp(u->upts[i].path, path) == 0)
            return u->upts[i].upt;
    if (VEC_RESERVE(u->upts, u->capupts, u->nupts + 1) < 0)
        return NULL;
    void *upt = _UPT_create(u->pid);
    char *p = strdup(path);
    if (!upt || !p) {
        if (upt)
            _UPT_destroy(upt);
        free(p);
        return NULL;
    }
    u->upts[u->nupts++] = (struct upt_slot){p, upt};
    return upt;
}

static void drop_caches(struct unwinder *u)
{
    for (size_t i = 0; i < u->nupts; i++) {
        _UPT_destroy(u->upts[i].upt);
        free(u->upts[i].path);
    }
    u->nupts = 0;
    for (size_t i = 0; i < u->nfobjs; i++) {
        if (u->fobjs[i].fd >= 0)
            close(u->fobjs[i].fd);
        free(u->fobjs[i].path);
    }
    u->nfobjs = 0;
    u->fobjs_done = false;
    u->nmtabs = 0;
    memset(u->end_pc, 0, sizeof u->end_pc);
    for (size_t i = 0; i < PAGE_SLOTS; i++) {
        free(u->pages[i].data);
        u->pages[i].data = NULL;
        u->pages[i].addr = 0;
    }
    if (u->as)
        unw_flush_cache(u->as, 0, 0);
}

/* Open e's file (its path as we see it: a process that has exited has
 * no /proc/PID/root left) and learn its segments, if it is the mapped
 * inode and an ELF object.  f->fd -1 otherwise. */
static void file_obj_open(struct file_obj *f, const struct map_entry *e)
{
    f->fd = -1;
    int fd = open(e->path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    Elf64_Ehdr eh;
    if (fd < 0)
        return;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        (uint64_t)st.st_ino != e->inode ||
        pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 64)
        goto fail;
    bool placed = false;
    uint64_t vaddr0 = UINT64_MAX;
    for (int i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (uint64_t)i * sizeof ph))
            != (ssize_t)sizeof ph)
            goto fail;
        if (ph.p_type != PT_LOAD || f->nseg == FILE_SEGS)
            continue;
        f->seg[f->nseg].vaddr = ph.p_vaddr;
        f->seg[f->nseg].filesz = ph.p_filesz;
        f->seg[f->nseg].offset = ph.p_offset;
        f->seg[f->nseg].w = (ph.p_flags & PF_W) != 0;
        f->nseg++;
        if (ph.p_offset == 0)
            vaddr0 = ph.p_vaddr;
        /* the segment e maps: address e->start holds file offset e->offset */
        uint64_t lo = ph.p_offset & ~(uint64_t)(PAGE - 1);
        if (!placed && e->offset >= lo && e->offset < ph.p_offset + ph.p_filesz) {
            f->load = e->start - ph.p_vaddr - (e->offset - ph.p_offset);
            placed = true;
        }
    }
    if (!placed || vaddr0 == UINT64_MAX)
        goto fail;
    f->base = f->load + (vaddr0 & ~(uint64_t)(PAGE - 1));
    f->fd = fd;
    return;
fail:
    close(fd);
}

/* The file object of the mapping e (a file's executable mapping), made
 * on first use; NULL on OOM. */
static struct file_obj *file_obj_for(struct unwinder *u, const struct map_entry *e)
{
    for (size_t i = 0; i < u->nfobjs; i++)
        if (strcmp(u->fobjs[i].path, e->path) == 0)
            return &u->fobjs[i];
    if (VEC_RESERVE(u->fobjs, u->capfobjs, u->nfobjs + 1) < 0)
        return NULL;
    struct file_obj *f = &u->fobjs[u->nfobjs];
    memset(f, 0, sizeof *f);
    if (!(f->path = strdup(e->path)))
        return NULL;
    u->nfobjs++;
    file_obj_open(f, e);
    return f;
}

/* The file and offset holding read-only address addr of an ELF file the
 * process maps (every executable file mapping gets its object the first
 * time this is asked).  -1 when none does. */
static int file_find(struct unwinder *u, uint64_t addr, int *fd, uint64_t *off,
                     uint64_t *avail)
{
    for (size_t i = 0; !u->fobjs_done && u->maps && i < u->maps->n; i++) {
        const struct map_entry *e = &u->maps->v[i];
        if (e->x && e->inode && e->path[0] == '/')
            file_obj_for(u, e);
    }
    u->fobjs_done = true;
    for (size_t i = 0; i < u->nfobjs; i++) {
        const struct file_obj *f = &u->fobjs[i];
        for (uint32_t k = 0; f->fd >= 0 && k < f->nseg; k++) {
            uint64_t a = f->load + f->seg[k].vaddr;
            if (f->seg[k].w || addr < a || addr - a >= f->seg[k].filesz)
                continue;
            *fd = f->fd;
            *off = f->seg[k].offset + (addr - a);
            *avail = f->seg[k].filesz - (addr - a);
            return 0;
        }
    }
    return -1;
}

/* A page of the [vdso], which has no file: every process on this kernel
 * maps the same image, so ours is read (when the process has exited). */
static int vdso_page(const struct unwinder *u, uint64_t page, uint8_t *out)
{
    const struct map_entry *e = maps_find(u->maps, page);
    uintptr_t own = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
    if (!e || !own || strcmp(e->path, "[vdso]") != 0 || page < e->start ||
        page + PAGE > e->end || e->end - e->start > (64u << 10))
        return -1;
    memcpy(out, (const void *)(own + (page - e->start)), PAGE);
    return 0;
}

/* A page of read-only memory the process itself cannot give: from its
 * file, or the [vdso]. */
static int read_page_elsewhere(struct unwinder *u, uint64_t page, uint8_t *out)
{
    int fd;
    uint64_t off, avail;
    if (vdso_page(u, page, out) == 0)
        return 0;
    if (file_find(u, page, &fd, &off, &avail) < 0) {
        /* the page starts before a segment whose start is inside it */
        if (file_find(u, page + PAGE - 1, &fd, &off, &avail) < 0)
            return -1;
        uint64_t skip = 0;
        while (skip < PAGE && file_find(u, page + skip, &fd, &off, &avail) < 0)
            skip += 8;
        if (skip == PAGE)
            return -1;
        memset(out, 0, skip);
        ssize_t r = pread(fd, out + skip, PAGE - skip, (off_t)off);
        if (r < 0)
            return -1;
        memset(out + skip + r, 0, PAGE - skip - (size_t)r);
        return 0;
    }
    size_t want = avail < PAGE ? (size_t)avail : PAGE;
    ssize_t r = pread(fd, out, want, (off_t)off);
    if (r < 0)
        return -1;
    memset(out + r, 0, PAGE - (size_t)r);
    return 0;
}

/* Whether read-only address addr belongs to a file the process maps
 * though the maps do not list it (record-built maps). */
static bool file_covers(struct unwinder *u, uint64_t addr)
{
    int fd;
    uint64_t off, avail;
    return file_find(u, addr, &fd, &off, &avail) == 0;
}

/* Read-only target memory through the page cache. */
static int read_ro(struct unwinder *u, uint64_t addr, uint64_t *val)
{
    uint64_t page = addr & ~(uint64_t)(PAGE - 1);
    uint64_t off = addr - page;
    if (off + 8 > PAGE) {
        /* straddles two pages: read both halves */
        uint8_t tmp[8];
        size_t first = PAGE - off;
        uint64_t a, b;
        if (read_ro(u, page + PAGE - 8, &a) < 0 ||
            read_ro(u, page + PAGE, &b) < 0)
            return -1;
        memcpy(tmp, (uint8_t *)&a + (8 - first), first);
        memcpy(tmp + first, &b, 8 - first);
        memcpy(val, tmp, 8);
        return 0;
    }
    size_t slot = (size_t)(util_mix64(page >> 12) % PAGE_SLOTS);
    struct page_slot *s = &u->pages[slot];
    if (s->addr != page || !s->data) {
        if (!s->data && !(s->data = malloc(PAGE)))
            return -1;
        struct iovec local = {s->data, PAGE};
        struct iovec remote = {(void *)(uintptr_t)page, PAGE};
        if (process_vm_readv(u->read_tid, &local, 1, &remote, 1, 0) != PAGE &&
            read_page_elsewhere(u, page, s->data) < 0) {
            s->addr = 0;
            return -1;
        }
        s->addr = page;
    }
    memcpy(val, s->data + off, 8);
    return 0;
}

static int read_bytes(struct unwinder *u, uint64_t addr, void *out, size_t len)
{
    uint8_t *o = out;
    while (len) {
        uint64_t v;
        if (read_ro(u, addr, &v) < 0)
            return -1;
        size_t n = len < 8 ? len : 8;
        memcpy(o, &v, n);
        o += n, addr += n, len -= n;
    }
    return 0;
}

/* Locate the .eh_frame_hdr search table of the object mapped at e from its
 * program headers in target memory. */
static int mem_table_build(struct unwinder *u, const struct map_entry *e,
                           struct mem_table *t)
{
    /* the object's first mapping: same path, file offset 0 */
    uint64_t base = e->start;
    if (e->path[0] == '/') {
        base = 0;
        for (size_t i = 0; i < u->maps->n; i++) {
            const struct map_entry *m = &u->maps->v[i];
            if (m->offset == 0 && strcmp(m->path, e->path) == 0 && m->start <= e->start)
                base = m->start;
        }
        if (!base) {
            /* maps from records list no offset-0 mapping: the file says */
            struct file_obj *f = file_obj_for(u, e);
            if (!f || f->fd < 0)
                return -1;
            base = f->base;
        }
    }
    t->base = base;
    Elf64_Ehdr eh;
    if (read_bytes(u, base, &eh, sizeof eh) < 0 ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 64)
        return -1;
    uint64_t vaddr0 = UINT64_MAX, lo = UINT64_MAX, hi = 0, hdr_vaddr = 0;
    for (int i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        if (read_bytes(u, base + eh.e_phoff + (uint64_t)i * sizeof ph, &ph, sizeof ph) < 0)
            return -1;
        if (ph.p_type == PT_LOAD) {
            if (ph.p_offset == 0)
                vaddr0 = ph.p_vaddr & ~(uint64_t)(PAGE - 1);
            if (ph.p_vaddr < lo)
                lo = ph.p_vaddr;
            if (ph.p_vaddr + ph.p_memsz > hi)
                hi = ph.p_vaddr + ph.p_memsz;
        } else if (ph.p_type == PT_GNU_EH_FRAME) {
            hdr_vaddr = ph.p_vaddr;
        }
    }
    if (vaddr0 == UINT64_MAX || !hdr_vaddr)
        return -1;
    uint64_t load = base - vaddr0;
    uint64_t hdr = load + hdr_vaddr;
    uint8_t h[12];
    if (read_bytes(u, hdr, h, sizeof h) < 0)
        return -1;
    /* version 1; eh_frame_ptr pcrel|sdata4; fde_count udata4/sdata4;
     * table datarel|sdata4: what every linker emits on x86-64 */
    if (h[0] != 1 || h[1] != 0x1b || (h[2] != 0x03 && h[2] != 0x0b) || h[3] != 0x3b)
        return -1;
    uint32_t fde_count;
    memcpy(&fde_count, h + 8, 4);
    memset(&t->di, 0, sizeof t->di);
    t->di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
    t->di.start_ip = load + lo;
    t->di.end_ip = load + hi;
    t->di.u.rti.segbase = hdr;
    t->di.u.rti.table_len = (uint64_t)fde_count * 8 / sizeof(unw_word_t);
    t->di.u.rti.table_data = hdr + 12;
    return 0;
}

static int mem_find_proc_info(struct unwinder *u, const struct map_entry *e,
                              unw_addr_space_t as, unw_word_t ip,
                              unw_proc_info_t *pi, int need)
{
    struct mem_table *t = NULL;
    for (size_t i = 0; i < u->nmtabs; i++)
        if (ip >= u->mtabs[i].di.start_ip && ip < u->mtabs[i].di.end_ip)
            t = &u->mtabs[i];
    if (!t) {
        if (VEC_RESERVE(u->mtabs, u->capmtabs, u->nmtabs + 1) < 0)
            return -UNW_ENOINFO;
        t = &u->mtabs[u->nmtabs];
        memset(t, 0, sizeof *t);
        t->ok = mem_table_build(u, e, t) == 0;
        if (!t->ok) {
            /* remember the failure for this mapping's range */
            t->di.start_ip = e->start;
            t->di.end_ip = e->end;
        }
        u->nmtabs++;
    }
    if (!t->ok)
        return -UNW_ENOINFO;
    return _Ux86_64_dwarf_search_unwind_table(as, ip, &t->di, pi, need, NULL);
}

static int acc_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp,
                   int write, void *arg)
{
    (void)as;
    (void)arg;
    struct unwinder *u = current;
    if (write || !u)
        return -UNW_EINVAL;
    /* differences, not sums: an address near 2^64 must not wrap into the copy */
    if (addr >= u->stack_addr && u->stack_len >= 8 && addr - u->stack_addr <= u->stack_len - 8) {
        memcpy(valp, u->stack + (addr - u->stack_addr), 8);
        u->read_zero |= *valp == 0;
        return 0;
    }
    const struct map_entry *e = maps_find(u->maps, addr);
    if (!e && u->sparse && file_covers(u, addr)) {
        uint64_t v;
        if (read_ro(u, addr, &v) < 0) {
            u->badmem = 1;
            return -UNW_EINVAL;
        }
        *valp = v;
        return 0;
    }
    if (u->no_live && (!e || e->w)) {
        /* the stack beyond the copy, or the heap: not read live */
        if (addr >= u->stack_addr + u->stack_len && addr - u->stack_addr < STACK_REACH)
            u->beyond_copy = 1;
        else
            u->badmem = 1;
        return -UNW_EINVAL;
    }
    if (!e || !e->r) {
        u->badmem = 1;
        return -UNW_EINVAL;
    }
    if (e->w) {
        /* Writable memory outside the copied stack (a deeper part of the
         * stack beyond the copy cap, or heap): read it live, uncached. */
        uint64_t v;
        struct iovec local = {&v, 8};
        struct iovec remote = {(void *)(uintptr_t)addr, 8};
        if (process_vm_readv(u->read_tid, &local, 1, &remote, 1, 0) != 8) {
            u->badmem = 1;
            return -UNW_EINVAL;
        }
        *valp = v;
        u->read_zero |= v == 0;
        return 0;
    }
    uint64_t v;
    if (read_ro(u, addr, &v) < 0) {
        u->badmem = 1;
        return -UNW_EINVAL;
    }
    *valp = v;
    return 0;
}

static int acc_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *valp,
                   int write, void *arg)
{
    (void)as;
    (void)arg;
    struct unwinder *u = current;
    if (write)
        return -UNW_EREADONLYREG;
    if (!u || reg < 0 || reg >= UNWIND_NREGS)
        return -UNW_EBADREG;
    *valp = u->regs[reg];
    return 0;
}

static int acc_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val,
                     int write, void *arg)
{
    (void)as, (void)reg, (void)val, (void)write, (void)arg;
    return -UNW_EBADREG;
}

static int find_proc_info(unw_addr_space_t as, unw_word_t ip,
                          unw_proc_info_t *pi, int need_unwind_info,
                          void *arg)
{
    (void)arg;
    struct unwinder *u = current;
    const struct map_entry *e = maps_find(u->maps, ip);
    if (!e) {
        u->saw_unknown = 1;
        return -UNW_ENOINFO;
    }
    if (!e->x)
        return -UNW_ENOINFO;
    if (e->path[0] == '/') {
        void *upt = upt_for(u, e->path);
        int r = upt ? _UPT_find_proc_info(as, ip, pi, need_unwind_info, upt)
                    : -UNW_ENOINFO;
        if (r != -UNW_ENOINFO)
            return r;
    } else if (strcmp(e->path, "[vdso]") != 0) {
        return -UNW_ENOINFO; /* anonymous code (JIT): no tables */
    }
    /* the vdso, or a file libunwind-ptrace could not open */
    return mem_find_proc_info(u, e, as, ip, pi, need_unwind_info);
}

static void put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi,
                            void *arg)
{
    _UPT_put_unwind_info(as, pi, arg);
}

static int get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr,
                                  void *arg)
{
    (void)as, (void)addr, (void)arg;
    return -UNW_ENOINFO;
}

static int get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf,
                         size_t len, unw_word_t *offp, void *arg)
{
    (void)as, (void)addr, (void)buf, (void)len, (void)offp, (void)arg;
    return -UNW_ENOINFO;
}

static int resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
    (void)as, (void)c, (void)arg;
    return -UNW_EINVAL;
}

static unw_accessors_t accessors = {
    .find_proc_info = find_proc_info,
    .put_unwind_info = put_unwind_info,
    .get_dyn_info_list_addr = get_dyn_info_list_addr,
    .access_mem = acc_mem,
    .access_reg = acc_reg,
    .access_fpreg = acc_fpreg,
    .resume = resume,
    .get_proc_name = get_proc_name,
};

struct unwinder *unwinder_new(pid_t pid, char *err, size_t errlen)
{
    struct unwinder *u = calloc(1, sizeof *u);
    if (!u) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    u->pid = pid;
    u->as = unw_create_addr_space(&accessors, 0);
    if (!u->as) {
        snprintf(err, errlen, "libunwind: cannot create an address space");
        free(u);
        return NULL;
    }
    /* Per-thread caching takes no lock: Debian's libunwind masks signals
     * around every global-cache lock, 2 syscalls per unwind step. */
    unw_set_caching_policy(u->as, UNW_CACHE_PER_THREAD);
    return u;
}

void unwinder_free(struct unwinder *u)
{
    if (!u)
        return;
    drop_caches(u);
    free(u->upts);
    free(u->mtabs);
    free(u->fobjs);
    unw_destroy_addr_space(u->as);
    free(u);
}

void unwinder_set_maps(struct unwinder *u, const struct maps *m)
{
    drop_caches(u);
    u->maps = m;
    u->sparse = !maps_has_data_segments(m);
}

void unwinder_set_live_reads(struct unwinder *u, int on)
{
    u->no_live = !on;
}

int unwinder_saw_unknown(const struct unwinder *u)
{
    return u->saw_unknown;
}

/* Whether the last frame found (pcs[n-1]) really ends the stack.
 * libunwind also ends a stack when its frame-pointer guess finds nothing
 * (rbp 0 or garbage in code built without frame pointers), or when a
 * corrupt chain leads it to a 0 on the stack; only a frame whose unwind
 * info says "no caller" (_start, clone3: its return address undefined,
 * so the last step read no 0 from the stack) is a real end.
 * unw_get_proc_info cannot tell: on x86-64 it makes up a range when there
 * is no info, so ask our own lookup (a caller's address is a return
 * address: look up the call, one byte before). */
static bool ends_chain(struct unwinder *u, const uint64_t *pcs, int n)
{
    if (u->read_zero)
        return false;
    uint64_t pc = pcs[n - 1] - (n > 1 ? 1 : 0);
    size_t slot = (size_t)(util_mix64(pc) % END_SLOTS);
    if (u->end_pc[slot] == pc + 1)
        return u->end_ok[slot];
    unw_proc_info_t pi;
    memset(&pi, 0, sizeof pi);
    bool ok = find_proc_info(u->as, pc, &pi, 0, NULL) >= 0;
    if (ok)
        put_unwind_info(u->as, &pi, NULL);
    /* kept only when it depends on neither the copy nor an address
     * outside the maps (which must go on setting saw_unknown) */
    if (!u->beyond_copy && !u->badmem && maps_find(u->maps, pc)) {
        u->end_pc[slot] = pc + 1;
        u->end_ok[slot] = ok;
    }
    return ok;
}

int unwinder_unwind(struct unwinder *u, pid_t tid,
                    const uint64_t regs[UNWIND_NREGS],
                    const uint8_t *stack, uint64_t stack_addr,
                    size_t stack_len, uint64_t *pcs, int max,
                    enum unwind_end *end)
{
    unw_cursor_t c;
    int n = 0;
    *end = UNWIND_COMPLETE;
    if (max <= 0)
        return 0;
    current = u;
    u->read_tid = tid > 0 ? tid : u->pid;
    u->regs = regs;
    u->stack = stack;
    u->stack_addr = stack_addr;
    u->stack_len = stack_len;
    u->saw_unknown = 0;
    u->badmem = 0;
    u->beyond_copy = 0;
    pcs[n++] = regs[16];
    if (!maps_find(u->maps, regs[16]))
        u->saw_unknown = 1;
    if (unw_init_remote(&c, u->as, u) < 0) {
        *end = UNWIND_OTHER;
        goto out;
    }
    uint64_t prev_sp = regs[7];
    for (;;) {
        u->read_zero = 0;
        int r = unw_step(&c);
        if (r == 0) {
            if (!ends_chain(u, pcs, n))
                *end = u->beyond_copy ? UNWIND_COPY : UNWIND_NOINFO;
            break;
        }
        if (r < 0) {
            *end = r == -UNW_ENOINFO ? UNWIND_NOINFO
                   : u->beyond_copy  ? UNWIND_COPY
                   : u->badmem       ? UNWIND_BADMEM
                                     : UNWIND_OTHER;
            break;
        }
        unw_word_t ip = 0, sp = 0;
        unw_get_reg(&c, UNW_REG_IP, &ip);
        unw_get_reg(&c, UNW_REG_SP, &sp);
        if (ip == 0) {
            /* the outermost frame's return address, or a failed guess */
            if (!ends_chain(u, pcs, n))
                *end = u->beyond_copy ? UNWIND_COPY : UNWIND_NOINFO;
            break;
        }
        /* Each caller's frame lies above its callee's: anything else is a
         * corrupt chain that would loop. */
        if (sp <= prev_sp) {
            *end = UNWIND_LOOP;
            break;
        }
        prev_sp = sp;
        if (n == max) {
            *end = UNWIND_DEPTH;
            break;
        }
        pcs[n++] = ip;
    }
out:
    current = NULL;
    return n;
}
