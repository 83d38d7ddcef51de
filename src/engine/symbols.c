/* symbols.c - addresses of a target process -> frames, with elfutils libdwfl.
 *
 * Called only by the collector thread (src/collect.c) through symbols.h.
 *
 * One Dwfl lives as long as the symbolizer.  symbols_load_maps re-reports
 * the modules between dwfl_report_begin and dwfl_report_end, which keeps
 * every module whose name and range did not change: after a dlopen, libc's
 * symbols and DWARF are not read again.
 *
 * Besides what libdwfl is told, we keep our own parse of the maps text:
 * libdwfl reports only file mappings, while we also need the [vdso] range
 * (reported by hand, its image read from the target's memory), anonymous
 * executable mappings (JIT code, named from /tmp/perf-PID.map), each
 * mapping's range (to open /proc/PID/map_files/START-END) and file offset
 * (to name code without a symbol "[module+0xOFFSET]", as perf does).
 *
 * Two indexes keep misses cheap (tests/tools/symtest --bench: about 10-20
 * us a miss instead of 100-300 us): per CU, its functions' address ranges,
 * so that finding the DIEs around an address does not test every DIE of
 * the CU as dwarf_getscopes does; per module, its ELF symbol table sorted
 * by address, since dwfl_module_addrinfo scans the whole table each time.
 *
 * Every string handed out lives in an arena, interned, until the next
 * symbols_load_maps.  Resolved frame lists are cached per address in an
 * open-addressing table (a hit costs tens of nanoseconds).
 */
#include "symbols.h"

#include "clock.h"
#include "maps.h"

#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

/* libstdc++'s demangler (the binary links -lstdc++); C has no header. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
                            int *status);

#define SYM_MAX_FRAMES 32          /* inline depth kept per address */
#define SYM_CACHE_MAX (1u << 20)   /* cached addresses before starting over */
#define SYM_CACHE_MIN 1024u        /* initial slots (a power of two) */
#define SYM_ARENA_BLOCK 65536u     /* arena block size */
#define SYM_VDSO_MAX (1u << 20)    /* a [vdso] is a few pages; refuse more */
#define SYM_JIT_MAX (1u << 22)     /* perf map lines kept */
/* A JIT appends to its perf map while it runs, so the map is re-read when it
 * changed, but looked at no more than once a second: a JIT without a map
 * would otherwise cost a stat per unknown frame. */
#define SYM_JIT_RECHECK_NS 1000000000ull

struct arena_block {
    struct arena_block *next;  /* older block */
    size_t used;               /* bytes handed out from data */
    size_t cap;                /* bytes in data */
    char data[];
};

/* One line of a perf map: [start, end) is `name`. */
struct jit_sym {
    uint64_t start;    /* first address */
    uint64_t end;      /* one past the last */
    uint32_t seq;      /* line number: a later line wins over an earlier
                          one at the same start (the JIT reused the code) */
    const char *name;  /* interned */
};

/* One ELF symbol of a module, for code without DWARF. */
struct elf_sym {
    uint64_t start;    /* target address */
    uint64_t end;      /* one past the last; == start for sizeless labels */
    uint64_t max_end;  /* greatest end of this and all earlier entries */
    const char *name;  /* owned by libdwfl, lives as long as the module */
    uint32_t seq;      /* index in the symbol table */
    uint8_t rank;      /* 2 global, 1 weak, 0 local: the preferred alias */
};

/* What each Dwfl_Module's userdata points to. */
struct mod_info {
    struct symbols *s;     /* for find_elf */
    struct elf_sym *syms;  /* its symbol table sorted (see elf_sym_cmp) */
    size_t nsyms;
    bool syms_built;       /* syms was built (maybe empty) */
};

/* One address range of a function of a CU. */
struct fn_range {
    Dwarf_Addr lo;   /* module-relative, like the DWARF */
    Dwarf_Addr hi;   /* one past the end */
    Dwarf_Die die;   /* the DW_TAG_subprogram */
};

/* The functions of one CU, sorted by lo. */
struct cu_index {
    const void *key;     /* the CU DIE's address in its Dwarf; NULL: free */
    struct fn_range *r;
    size_t n;
    size_t cap;
};

/* Qualified name of a C++ function DIE without a linkage name. */
struct qname {
    const void *key;   /* the DIE's address in its Dwarf; NULL: free */
    const char *name;  /* interned */
};

struct cache_slot {
    uint64_t addr;   /* address looked up (pc, or pc-1 for return addrs) */
    uint32_t first;  /* index of its first frame in symbols.frames */
    uint32_t n;      /* number of frames; 0 marks an empty slot */
};

struct symbols {
    pid_t pid;                 /* the target */
    uid_t uid;                 /* its owner: the perf map must be theirs */
    char root[64];             /* "" when the target shares our root,
                                  else "/proc/PID/root" */
    char jit_path[96];         /* its perf map, seen from here */

    Dwfl *dwfl;
    Dwfl_Callbacks callbacks;  /* libdwfl keeps a pointer to it */
    char *debuginfo_path;      /* NULL: libdwfl's default search path */

    struct arena_block *arena; /* every string below and handed out */
    const char **strs;         /* intern set: open addressing, NULL empty */
    size_t strs_cap;           /* slots (a power of two, or 0) */
    size_t strs_n;             /* strings interned */

    struct maps *maps;         /* the snapshot libdwfl was given */
    uint64_t vdso_start;       /* [vdso] range; 0,0 when none */
    uint64_t vdso_end;
    char *vdso_image;          /* copy behind the [vdso] module's Elf: it
                                  must outlive that Elf */

    struct jit_sym *jit;       /* perf map, sorted by (start, seq) */
    size_t njit;
    size_t jit_cap;
    dev_t jit_dev;             /* the perf map file read so far */
    ino_t jit_ino;
    off_t jit_off;             /* bytes of it read (whole lines) */
    uint32_t jit_seq;          /* lines read */
    uint64_t jit_checked_ns;   /* last look at the file; 0: never */

    struct cu_index *cus;      /* CU -> its function index; open
                                  addressing, emptied with the cache since
                                  a reload may free a module's Dwarf */
    size_t cus_cap;
    size_t cus_n;

    struct qname *qnames;      /* DIE -> qualified name; open addressing,
                                  emptied with the arena */
    size_t qnames_cap;
    size_t qnames_n;

    struct cache_slot *cache;  /* address -> frames */
    size_t cache_cap;          /* slots (a power of two, or 0) */
    size_t cache_n;            /* used slots */
    struct sym_frame *frames;  /* frame lists of cached addresses */
    size_t nframes;
    size_t frames_cap;

    struct symbols_stats stats;
};

static uint64_t addr_hash(uint64_t a)
{
    a ^= a >> 33;  /* murmur3 finalizer: code addresses differ in few bits */
    a *= 0xff51afd7ed558ccdull;
    a ^= a >> 33;
    return a;
}

/* --- strings ------------------------------------------------------------- */

static void arena_free(struct symbols *s)
{
    struct arena_block *b = s->arena;
    while (b != NULL) {
        struct arena_block *next = b->next;
        free(b);
        b = next;
    }
    s->arena = NULL;
    free(s->qnames);
    s->qnames = NULL;
    s->qnames_cap = 0;
    s->qnames_n = 0;
    free(s->strs);
    s->strs = NULL;
    s->strs_cap = 0;
    s->strs_n = 0;
}

static char *arena_alloc(struct symbols *s, size_t n)
{
    struct arena_block *b = s->arena;
    if (b == NULL || b->cap - b->used < n) {
        size_t cap = n > SYM_ARENA_BLOCK ? n : SYM_ARENA_BLOCK;
        b = malloc(sizeof *b + cap);
        if (b == NULL)
            return NULL;
        b->used = 0;
        b->cap = cap;
        /* A block made for one big string goes behind the current one, so
         * the current block's free space is not thrown away. */
        if (s->arena != NULL && cap > SYM_ARENA_BLOCK) {
            b->next = s->arena->next;
            s->arena->next = b;
        } else {
            b->next = s->arena;
            s->arena = b;
        }
    }
    char *p = b->data + b->used;
    b->used += n;
    return p;
}

static uint64_t str_hash(const char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;  /* FNV-1a */
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static bool strs_grow(struct symbols *s)
{
    size_t cap = s->strs_cap ? s->strs_cap * 2 : 1024;
    const char **t = calloc(cap, sizeof *t);
    if (t == NULL)
        return false;
    for (size_t i = 0; i < s->strs_cap; i++) {
        const char *str = s->strs[i];
        if (str == NULL)
            continue;
        size_t j = str_hash(str, strlen(str)) & (cap - 1);
        while (t[j] != NULL)
            j = (j + 1) & (cap - 1);
        t[j] = str;
    }
    free(s->strs);
    s->strs = t;
    s->strs_cap = cap;
    return true;
}

/* The interned copy of p[0..n): one copy per distinct string, so the arena
 * grows with distinct names, not with lookups.  NULL on OOM. */
static const char *intern_n(struct symbols *s, const char *p, size_t n)
{
    if ((s->strs_n + 1) * 2 > s->strs_cap && !strs_grow(s))
        return NULL;
    size_t mask = s->strs_cap - 1;
    size_t j = str_hash(p, n) & mask;
    for (; s->strs[j] != NULL; j = (j + 1) & mask) {
        const char *q = s->strs[j];
        if (strncmp(q, p, n) == 0 && q[n] == '\0')
            return q;
    }
    char *c = arena_alloc(s, n + 1);
    if (c == NULL)
        return NULL;
    memcpy(c, p, n);
    c[n] = '\0';
    s->strs[j] = c;
    s->strs_n++;
    return c;
}

static const char *intern(struct symbols *s, const char *p)
{
    return p == NULL ? NULL : intern_n(s, p, strlen(p));
}

/* Where the function's name starts in a demangled name.  The Itanium ABI
 * encodes the return type of function templates, so they demangle as
 * "double ns::run<double>(double)"; people (and pprof) name the function
 * "ns::run<double>(double)", like any other.  The return type ends at the
 * last space outside brackets before the parameter list. */
static const char *skip_return_type(const char *d)
{
    static const char anon[] = "(anonymous namespace)";
    const char *name = d;
    int depth = 0;
    for (const char *p = d; *p != '\0'; p++) {
        if (depth == 0 && strncmp(p, anon, sizeof anon - 1) == 0) {
            p += sizeof anon - 2;
            continue;
        }
        /* "operator<", "operator()": the name has begun, and a return
         * type, if any, was before it. */
        if (depth == 0 && strncmp(p, "operator", 8) == 0 &&
            (p == d || p[-1] == ':' || p[-1] == ' '))
            break;
        if (depth == 0 && *p == '(')
            break;
        if (strchr("<([{", *p) != NULL)
            depth++;
        else if (strchr(">)]}", *p) != NULL && depth > 0)
            depth--;
        else if (depth == 0 && *p == ' ' && p[1] != '\0')
            name = p + 1;
    }
    return name;
}

/* A symbol or linkage name as people read it: C++ (_Z...) demangled.
 * Special names (_ZT: thunks, vtables; _ZG: guards, clones) keep their
 * "non-virtual thunk to ..." words. */
static const char *intern_demangled(struct symbols *s, const char *name)
{
    if (name[0] == '_' && name[1] == 'Z') {
        int status = -1;
        char *d = __cxa_demangle(name, NULL, NULL, &status);
        if (d != NULL && status == 0) {
            bool special = name[2] == 'T' || name[2] == 'G';
            const char *r = intern(s, special ? d : skip_return_type(d));
            free(d);
            return r;
        }
        free(d);
    }
    return intern(s, name);
}

/* --- maps snapshot --------------------------------------------------------- */

static bool ends_with(const char *str, const char *suffix)
{
    size_t a = strlen(str), b = strlen(suffix);
    return a >= b && strcmp(str + a - b, suffix) == 0;
}

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

/* --- libdwfl callbacks ------------------------------------------------------ */

/* Open path read-only if it is a regular file: a mapped device or FIFO
 * could block on open or read, hence O_NONBLOCK and the check. */
static int open_regular(const char *path, struct stat *st)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -1;
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Open the file behind module `name` the way the target sees it: through
 * its root (containers), checked against the mapped inode, else through
 * /proc/PID/map_files (deleted or replaced files; needs privilege).  A root
 * path whose inode differs is used only when nothing better opens: overlay
 * filesystems may show another inode number for the very same file. */
static int open_module_file(struct symbols *s, const char *name,
                            const struct map_entry *m, char **opened)
{
    char path[PATH_MAX + 96];
    char fallback[PATH_MAX + 96];
    int fallback_fd = -1;
    struct stat st;

    if (!ends_with(name, " (deleted)")) {
        snprintf(path, sizeof path, "%s%s", s->root, name);
        int fd = open_regular(path, &st);
        if (fd >= 0) {
            if (m == NULL || m->inode == 0 || (uint64_t)st.st_ino == m->inode) {
                *opened = strdup(path);
                return fd;
            }
            fallback_fd = fd;
            snprintf(fallback, sizeof fallback, "%s", path);
        }
    }
    if (m != NULL) {
        snprintf(path, sizeof path, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
                 (int)s->pid, m->start, m->end);
        int fd = open_regular(path, &st);
        if (fd >= 0) {
            if (fallback_fd >= 0)
                close(fallback_fd);
            *opened = strdup(path);
            return fd;
        }
    }
    if (fallback_fd >= 0)
        *opened = strdup(fallback);
    return fallback_fd;
}

static bool read_target(const struct symbols *s, uint64_t addr, char *buf,
                        size_t n)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/mem", (int)s->pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t got = pread(fd, buf, n, (off_t)addr);
    close(fd);
    return got == (ssize_t)n;
}

/* Our own [vdso] image, when the target's memory cannot be read: a 64-bit
 * process on the same kernel maps the same image. */
static bool copy_own_vdso(char *buf, size_t n)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
    if (eh == NULL || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != ELFCLASS64)
        return false;
    size_t size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
    if (size > n)
        return false;
    memcpy(buf, eh, size);
    memset(buf + size, 0, n - size);
    return true;
}

/* The [vdso] has no file: hand libdwfl an Elf over a copy of its image. */
static int vdso_find_elf(struct symbols *s, Elf **elfp)
{
    size_t n = s->vdso_end - s->vdso_start;
    if (n == 0 || n > SYM_VDSO_MAX)
        return -1;
    char *buf = malloc(n);
    if (buf == NULL)
        return -1;
    if (!read_target(s, s->vdso_start, buf, n) && !copy_own_vdso(buf, n)) {
        free(buf);
        return -1;
    }
    Elf *elf = elf_memory(buf, n);
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
    return open_module_file(s, name, mapping_of_module(s, name, base),
                            file_name);
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

static void mod_info_free(struct mod_info *mi)
{
    if (mi != NULL)
        free(mi->syms);
    free(mi);
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
    mod_info_free(*slot);
    *slot = NULL;
    return DWARF_CB_OK;
}

static int free_userdata_walk(Dwfl_Module *mod, void **userdata,
                              const char *name, Dwarf_Addr start, void *arg)
{
    return free_userdata(mod, userdata, name, start, arg);
}

/* --- perf map (JIT) ---------------------------------------------------------- */

static void jit_clear(struct symbols *s)
{
    s->njit = 0;
    s->jit_off = 0;
    s->jit_seq = 0;
}

static int jit_cmp(const void *a, const void *b)
{
    const struct jit_sym *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Add the complete lines after s->jit_off.  The JIT may be writing the last
 * line as we read: a line without its newline is left for next time. */
static void jit_parse(struct symbols *s, FILE *f)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    size_t before = s->njit;
    while (s->njit < SYM_JIT_MAX && (len = getline(&line, &cap, f)) > 0 &&
           line[len - 1] == '\n') {
        s->jit_off += (off_t)len;
        line[len - 1] = '\0';
        unsigned long long start, size;
        int pos = 0;
        if (sscanf(line, "%llx %llx %n", &start, &size, &pos) < 2 ||
            pos <= 0 || line[pos] == '\0' || size == 0)
            continue;
        if (s->njit == s->jit_cap) {
            size_t ncap = s->jit_cap ? s->jit_cap * 2 : 256;
            struct jit_sym *j = realloc(s->jit, ncap * sizeof *j);
            if (j == NULL)
                break;
            s->jit = j;
            s->jit_cap = ncap;
        }
        const char *name = intern(s, line + pos);
        if (name == NULL)
            break;
        s->jit[s->njit++] = (struct jit_sym){.start = start,
                                             .end = start + size,
                                             .seq = s->jit_seq++,
                                             .name = name};
    }
    free(line);
    if (s->njit != before)
        qsort(s->jit, s->njit, sizeof *s->jit, jit_cmp);
}

/* Read what the JIT appended to its perf map since last time, looking at
 * most once per SYM_JIT_RECHECK_NS.  Only a regular file owned by the
 * target's user is believed: anyone can create /tmp/perf-PID.map first. */
static void jit_refresh(struct symbols *s)
{
    uint64_t now = clock_mono_ns();
    if (s->jit_checked_ns != 0 && now - s->jit_checked_ns < SYM_JIT_RECHECK_NS)
        return;
    s->jit_checked_ns = now;
    int fd = open(s->jit_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != s->uid) {
        close(fd);
        jit_clear(s);
        return;
    }
    if (st.st_dev != s->jit_dev || st.st_ino != s->jit_ino ||
        st.st_size < s->jit_off) {
        jit_clear(s);  /* another file, or rewritten */
        s->jit_dev = st.st_dev;
        s->jit_ino = st.st_ino;
    }
    FILE *f = st.st_size > s->jit_off ? fdopen(fd, "r") : NULL;
    if (f == NULL) {
        close(fd);
        return;
    }
    if (fseeko(f, s->jit_off, SEEK_SET) == 0)
        jit_parse(s, f);
    fclose(f);
}

/* The perf map entry containing addr, or NULL. */
static const struct jit_sym *jit_find(const struct symbols *s, uint64_t addr)
{
    size_t lo = 0, hi = s->njit;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->jit[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const struct jit_sym *j = &s->jit[lo - 1];
    return addr < j->end ? j : NULL;
}

/* --- resolving one address ---------------------------------------------------- */

static const char sym_unknown[] = "[unknown]";

static void frame_unknown(struct sym_frame *f, const char *name,
                          const char *module)
{
    *f = (struct sym_frame){.name = name ? name : sym_unknown,
                            .module = module};
}

/* "[module+0xOFFSET]": the file offset of addr, which is what perf shows
 * and what objdump/addr2line take for a shared object. */
static void frame_offset(struct symbols *s, struct sym_frame *f,
                         const char *module, uint64_t addr, uint64_t base)
{
    const struct map_entry *m = maps_find(s->maps, addr);
    uint64_t off = m != NULL && m->path[0] == '/' ? addr - m->start + m->offset
                                                  : addr - base;
    char buf[512];
    snprintf(buf, sizeof buf, "[%s+0x%" PRIx64 "]", module ? module : "?",
             off);
    frame_unknown(f, intern(s, buf), module);
}

/* Basename of a mapped path as shown to users; " (deleted)" is dropped so
 * a rebuilt binary keeps its name. */
static const char *intern_basename(struct symbols *s, const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *b = slash ? slash + 1 : path;
    size_t n = strlen(b);
    const char *del = " (deleted)";
    if (ends_with(b, del))
        n -= strlen(del);
    return intern_n(s, b, n);
}

static const char *module_name(struct symbols *s, Dwfl_Module *mod,
                               uint64_t *base)
{
    Dwarf_Addr start = 0;
    const char *name = dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL,
                                        NULL, NULL);
    *base = start;
    return name != NULL ? intern_basename(s, name) : NULL;
}

/* The DIE holding d's DW_AT_name: d, or where its DW_AT_abstract_origin
 * and DW_AT_specification lead. */
static bool named_die(Dwarf_Die *d, Dwarf_Die *out)
{
    Dwarf_Die cur = *d;
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

/* "ns::(anonymous namespace)::Class::name" for C++ function `named`
 * (with DW_AT_name `name`) that has no linkage name: GCC emits none for
 * internal linkage (static functions, anonymous namespaces).  Finding the
 * enclosing scopes walks the CU, so results are kept per DIE. */
static const char *qualified_name(struct symbols *s, Dwarf_Die *named,
                                  const char *name)
{
    const void *key = named->addr;
    if ((s->qnames_n + 1) * 2 > s->qnames_cap) {
        size_t cap = s->qnames_cap ? s->qnames_cap * 2 : 256;
        struct qname *t = calloc(cap, sizeof *t);
        if (t == NULL)
            return intern(s, name);
        for (size_t i = 0; i < s->qnames_cap; i++) {
            if (s->qnames[i].key == NULL)
                continue;
            size_t j = addr_hash((uintptr_t)s->qnames[i].key) & (cap - 1);
            while (t[j].key != NULL)
                j = (j + 1) & (cap - 1);
            t[j] = s->qnames[i];
        }
        free(s->qnames);
        s->qnames = t;
        s->qnames_cap = cap;
    }
    size_t mask = s->qnames_cap - 1;
    size_t j = addr_hash((uintptr_t)key) & mask;
    for (; s->qnames[j].key != NULL; j = (j + 1) & mask)
        if (s->qnames[j].key == key)
            return s->qnames[j].name;

    char buf[1024];
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
        int w = snprintf(buf + len, sizeof buf - len, "%s::", part);
        if (w < 0 || (size_t)w >= sizeof buf - len)
            break;
        len += (size_t)w;
    }
    free(scopes);
    snprintf(buf + len, sizeof buf - len, "%s", name);
    const char *q = intern(s, buf);
    if (q != NULL) {
        s->qnames[j] = (struct qname){.key = key, .name = q};
        s->qnames_n++;
    }
    return q;
}

/* Function name of a subprogram or inlined instance: the demangled linkage
 * name when there is one (C++: qualified, with parameters), else the plain
 * name (qualified by its scopes in C++).  dwarf_attr_integrate follows
 * DW_AT_abstract_origin and DW_AT_specification, which is where inlined
 * and out-of-class definitions keep their names. */
static const char *die_name(struct symbols *s, Dwarf_Die *d, Dwarf_Die *cu)
{
    Dwarf_Attribute a;
    const char *ln = NULL;
    if (dwarf_attr_integrate(d, DW_AT_linkage_name, &a) != NULL ||
        dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &a) != NULL)
        ln = dwarf_formstring(&a);
    if (ln != NULL && ln[0] == '_' && ln[1] == 'Z')
        return intern_demangled(s, ln);
    Dwarf_Die named;
    const char *name = named_die(d, &named) ? dwarf_diename(&named) : NULL;
    if (name == NULL)
        return intern(s, ln);
    if (ln == NULL && is_cplusplus(cu))
        return qualified_name(s, &named, name);
    return intern(s, name);
}

/* Absolute path of the file declaring d (libdw may return it relative to
 * the compilation directory). */
static const char *die_file(struct symbols *s, Dwarf_Die *d, Dwarf_Die *cu)
{
    const char *f = dwarf_decl_file(d);
    if (f == NULL || f[0] == '/')
        return intern(s, f);
    Dwarf_Attribute a;
    const char *dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));
    if (dir == NULL || dir[0] != '/')
        return intern(s, f);
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s/%s", dir, f);
    return intern(s, buf);
}

/* Start address (module-relative) of a function or inlined instance. */
static uint64_t die_start(Dwarf_Die *d)
{
    Dwarf_Addr a;
    if (dwarf_entrypc(d, &a) == 0)
        return a;
    Dwarf_Addr base, start, end;
    if (dwarf_ranges(d, 0, &base, &start, &end) > 0)
        return start;
    return 0;
}

/* --- per-CU function index ---------------------------------------------------
 *
 * dwarf_getscopes finds the DIEs containing an address by testing every DIE
 * of the CU (types and declarations included) each time: 100-300 us a
 * lookup in libc's DWARF.  So the first miss in a CU lists its functions'
 * address ranges once, and later misses binary-search that list and walk
 * down only the one function's blocks. */

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
        if (ci->n == ci->cap) {
            size_t cap = ci->cap ? ci->cap * 2 : 64;
            struct fn_range *r = realloc(ci->r, cap * sizeof *r);
            if (r == NULL)
                return;
            ci->r = r;
            ci->cap = cap;
        }
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
static const struct cu_index *cu_index_get(struct symbols *s, Dwarf_Die *cu)
{
    const void *key = cu->addr;
    if ((s->cus_n + 1) * 2 > s->cus_cap) {
        size_t cap = s->cus_cap ? s->cus_cap * 2 : 64;
        struct cu_index *t = calloc(cap, sizeof *t);
        if (t == NULL)
            return NULL;
        for (size_t i = 0; i < s->cus_cap; i++) {
            if (s->cus[i].key == NULL)
                continue;
            size_t j = addr_hash((uintptr_t)s->cus[i].key) & (cap - 1);
            while (t[j].key != NULL)
                j = (j + 1) & (cap - 1);
            t[j] = s->cus[i];
        }
        free(s->cus);
        s->cus = t;
        s->cus_cap = cap;
    }
    size_t mask = s->cus_cap - 1;
    size_t j = addr_hash((uintptr_t)key) & mask;
    for (; s->cus[j].key != NULL; j = (j + 1) & mask)
        if (s->cus[j].key == key)
            return &s->cus[j];
    struct cu_index *ci = &s->cus[j];
    ci->key = key;
    s->cus_n++;
    cu_index_walk(ci, cu, 0);
    if (ci->n > 1)
        qsort(ci->r, ci->n, sizeof *ci->r, fn_range_cmp);
    return ci;
}

static void cu_index_clear(struct symbols *s)
{
    for (size_t i = 0; i < s->cus_cap; i++)
        free(s->cus[i].r);
    free(s->cus);
    s->cus = NULL;
    s->cus_cap = 0;
    s->cus_n = 0;
}

/* The function of the index containing pc, or NULL. */
static Dwarf_Die *cu_index_find(const struct cu_index *ci, Dwarf_Addr pc)
{
    size_t lo = 0, hi = ci->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ci->r[mid].lo <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || pc >= ci->r[lo - 1].hi)
        return NULL;
    return &ci->r[lo - 1].die;
}

static bool is_func(Dwarf_Die *d)
{
    int tag = dwarf_tag(d);
    return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
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
    while (n < cap && n < SYM_MAX_FRAMES) {
        Dwarf_Die c, next;
        bool found = false;
        if (dwarf_child(&cur, &c) == 0) {
            do {
                int tag = dwarf_tag(&c);
                if ((tag == DW_TAG_inlined_subroutine ||
                     tag == DW_TAG_lexical_block || tag == DW_TAG_try_block ||
                     tag == DW_TAG_catch_block) &&
                    dwarf_haspc(&c, pc) > 0) {
                    found = true;
                    break;
                }
            } while (dwarf_siblingof(&c, &next) == 0 && (c = next, true));
        }
        if (!found)
            break;
        cur = c;
        if (dwarf_tag(&cur) == DW_TAG_inlined_subroutine)
            path[n++] = cur;
    }
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

/* Frames from DWARF for pc (module-relative; bias turns it into a target
 * address), innermost first.  Returns the number of frames, 0 when no
 * function DIE contains pc. */
static int dwarf_frames(struct symbols *s, Dwarf_Die *cu, Dwarf_Addr pc,
                        Dwarf_Addr bias, const char *module,
                        struct sym_frame *out, int cap)
{
    Dwarf_Die chain[SYM_MAX_FRAMES];
    if (cap > SYM_MAX_FRAMES)
        cap = SYM_MAX_FRAMES;
    const struct cu_index *ci = cu_index_get(s, cu);
    Dwarf_Die *fn = ci != NULL ? cu_index_find(ci, pc) : NULL;
    int nc = fn != NULL ? chain_from_function(fn, pc, chain, cap)
                        : chain_from_scopes(cu, pc, chain, cap);

    Dwarf_Line *src = nc > 0 ? dwarf_getsrc_die(cu, pc) : NULL;
    int line = 0;
    if (src == NULL || dwarf_lineno(src, &line) != 0)
        line = 0;

    for (int i = 0; i < nc; i++) {
        Dwarf_Die *d = &chain[i];
        struct sym_frame *f = &out[i];
        int decl = 0;
        if (dwarf_decl_line(d, &decl) != 0)
            decl = 0;
        uint64_t start = die_start(d);
        *f = (struct sym_frame){
            .name = die_name(s, d, cu),
            .module = module,
            .file = die_file(s, d, cu),
            .line = line > 0 ? (uint32_t)line : 0,
            .func_line = decl > 0 ? (uint32_t)decl : 0,
            .sym_addr = start ? start + bias : 0,
            .inlined = dwarf_tag(d) == DW_TAG_inlined_subroutine,
            .known = true,
        };
        if (f->file == NULL && src != NULL)
            f->file = intern(s, dwarf_linesrc(src, NULL, NULL));
        /* The next frame out is at the line this instance was called from. */
        Dwarf_Attribute a;
        Dwarf_Word w = 0;
        if (dwarf_formudata(dwarf_attr(d, DW_AT_call_line, &a), &w) != 0)
            w = 0;
        line = (int)w;
    }
    return nc;
}

/* --- ELF symbol index ------------------------------------------------------
 *
 * dwfl_module_addrinfo scans the whole symbol table on every call (200 us
 * in libstdc++'s 6000 symbols), so each module's table is sorted once. */

/* By start; within a start, worst alias first (lower rank, then larger,
 * then later in the table), since lookups walk backwards from the end. */
static int elf_sym_cmp(const void *a, const void *b)
{
    const struct elf_sym *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1;
    return x->seq > y->seq ? -1 : x->seq < y->seq;
}

static void elf_syms_build(struct mod_info *mi, Dwfl_Module *mod)
{
    mi->syms_built = true;
    int n = dwfl_module_getsymtab(mod);
    if (n <= 1)
        return;
    mi->syms = malloc((size_t)n * sizeof *mi->syms);
    if (mi->syms == NULL)
        return;
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
        mi->syms[mi->nsyms++] = (struct elf_sym){
            .start = value,
            .end = value + sym.st_size,
            .name = name,
            .seq = (uint32_t)i,
            .rank = bind == STB_GLOBAL ? 2 : bind == STB_WEAK ? 1 : 0,
        };
    }
    qsort(mi->syms, mi->nsyms, sizeof *mi->syms, elf_sym_cmp);
    uint64_t max_end = 0;
    for (size_t i = 0; i < mi->nsyms; i++) {
        if (mi->syms[i].end > max_end)
            max_end = mi->syms[i].end;
        mi->syms[i].max_end = max_end;
    }
}

/* The symbol naming addr, as dwfl_module_addrinfo picks it: the closest
 * symbol containing it, else the closest sizeless label (hand-written
 * assembly) in the same section that no symbol before addr extends past.
 * NULL if none. */
static const struct elf_sym *elf_sym_find(struct mod_info *mi,
                                          Dwfl_Module *mod, uint64_t addr)
{
    if (!mi->syms_built)
        elf_syms_build(mi, mod);
    size_t lo = 0, hi = mi->nsyms;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (mi->syms[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const struct elf_sym *last = &mi->syms[lo - 1];
    if (last->max_end > addr) {
        /* Some symbol contains addr; max_end says when to stop looking. */
        for (size_t i = lo; i > 0 && mi->syms[i - 1].max_end > addr; i--)
            if (addr < mi->syms[i - 1].end)
                return &mi->syms[i - 1];
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

/* Frames for an address inside a module libdwfl knows. */
static int resolve_in_module(struct symbols *s, Dwfl_Module *mod,
                             uint64_t addr, struct sym_frame *out, int cap)
{
    uint64_t base = 0;
    const char *module = module_name(s, mod, &base);
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias);
    int n = cu != NULL ? dwarf_frames(s, cu, addr - bias, bias, module, out,
                                      cap)
                       : 0;
    /* No DWARF function (stripped, no debug info, hand-written asm), or a
     * nameless one: the ELF symbol table (.symtab or .dynsym). */
    const struct elf_sym *es = NULL;
    void **userdata = NULL;
    if (n == 0 || out[n - 1].name == NULL) {
        dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
        if (userdata != NULL && *userdata != NULL)
            es = elf_sym_find(*userdata, mod, addr);
    }
    if (n > 0) {
        if (out[n - 1].name == NULL && es != NULL)
            out[n - 1].name = intern_demangled(s, es->name);
        for (int i = 0; i < n; i++)
            if (out[i].name == NULL)
                out[i].name = sym_unknown;
        return n;
    }
    if (es != NULL) {
        out[0] = (struct sym_frame){.name = intern_demangled(s, es->name),
                                    .module = module,
                                    .sym_addr = es->start,
                                    .known = true};
        Dwarf_Line *src = cu != NULL ? dwarf_getsrc_die(cu, addr - bias)
                                     : NULL;
        int line = 0;
        if (src != NULL && dwarf_lineno(src, &line) == 0 && line > 0) {
            out[0].line = (uint32_t)line;
            out[0].file = intern(s, dwarf_linesrc(src, NULL, NULL));
        }
        if (out[0].name == NULL)
            out[0].name = sym_unknown;
        return 1;
    }
    if (module != NULL && strcmp(module, "[vdso]") == 0)
        frame_unknown(&out[0], module, module);
    else
        frame_offset(s, &out[0], module, addr, base);
    return 1;
}

/* Frames for addr (never fewer than 1).  *cacheable is false for unknown
 * code where a JIT may later write a perf map entry. */
static int resolve(struct symbols *s, uint64_t addr, struct sym_frame *out,
                   int cap, bool *cacheable)
{
    *cacheable = true;
    Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, addr);
    if (mod != NULL)
        return resolve_in_module(s, mod, addr, out, cap);

    const struct map_entry *m = maps_find(s->maps, addr);
    if (m != NULL && m->path[0] == '/') {
        /* A file libdwfl did not take (not reportable, or a failed report). */
        frame_offset(s, &out[0], intern_basename(s, m->path), addr,
                     m->start);
        return 1;
    }
    if (addr >= s->vdso_start && addr < s->vdso_end) {
        frame_unknown(&out[0], "[vdso]", "[vdso]");
        return 1;
    }
    /* JIT code lives in anonymous executable memory, or in memory mapped
     * after this snapshot. */
    if (m == NULL || m->x) {
        jit_refresh(s);
        const struct jit_sym *j = jit_find(s, addr);
        if (j != NULL) {
            out[0] = (struct sym_frame){.name = j->name,
                                        .module = "[jit]",
                                        .sym_addr = j->start,
                                        .known = true};
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
    if (s->cache != NULL)
        memset(s->cache, 0, s->cache_cap * sizeof *s->cache);
    s->cache_n = 0;
    s->nframes = 0;
}

static const struct cache_slot *cache_find(const struct symbols *s,
                                           uint64_t addr)
{
    if (s->cache_cap == 0)
        return NULL;
    size_t mask = s->cache_cap - 1;
    for (size_t i = addr_hash(addr) & mask; s->cache[i].n != 0;
         i = (i + 1) & mask)
        if (s->cache[i].addr == addr)
            return &s->cache[i];
    return NULL;
}

static void cache_put_slot(struct cache_slot *t, size_t cap,
                           const struct cache_slot *e)
{
    size_t i = addr_hash(e->addr) & (cap - 1);
    while (t[i].n != 0)
        i = (i + 1) & (cap - 1);
    t[i] = *e;
}

/* Remember addr's frames.  On OOM the address simply stays uncached. */
static void cache_insert(struct symbols *s, uint64_t addr,
                         const struct sym_frame *f, int n)
{
    if (s->cache_n >= SYM_CACHE_MAX)
        cache_clear(s);  /* bounded memory; strings stay in the arena */
    if ((s->cache_n + 1) * 2 > s->cache_cap) {
        size_t cap = s->cache_cap ? s->cache_cap * 2 : SYM_CACHE_MIN;
        struct cache_slot *t = calloc(cap, sizeof *t);
        if (t == NULL)
            return;
        for (size_t i = 0; i < s->cache_cap; i++)
            if (s->cache[i].n != 0)
                cache_put_slot(t, cap, &s->cache[i]);
        free(s->cache);
        s->cache = t;
        s->cache_cap = cap;
    }
    if (s->nframes + (size_t)n > s->frames_cap) {
        size_t cap = s->frames_cap ? s->frames_cap * 2 : 4096;
        while (cap < s->nframes + (size_t)n)
            cap *= 2;
        struct sym_frame *fr = realloc(s->frames, cap * sizeof *fr);
        if (fr == NULL)
            return;
        s->frames = fr;
        s->frames_cap = cap;
    }
    struct cache_slot e = {.addr = addr, .first = (uint32_t)s->nframes,
                           .n = (uint32_t)n};
    memcpy(&s->frames[s->nframes], f, (size_t)n * sizeof *f);
    s->nframes += (size_t)n;
    cache_put_slot(s->cache, s->cache_cap, &e);
    s->cache_n++;
}

/* --- API ------------------------------------------------------------------------- */

static void set_err(char *err, size_t errlen, const char *what, pid_t pid,
                    const char *why)
{
    if (err != NULL && errlen > 0)
        snprintf(err, errlen, "%s %d: %s", what, (int)pid, why);
}

/* PID as the target's own PID namespace numbers it (last NSpid field):
 * a JIT in a container names its perf map after that one. */
static pid_t ns_pid(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return pid;
    char *line = NULL;
    size_t cap = 0;
    pid_t r = pid;
    while (getline(&line, &cap, f) > 0) {
        if (strncmp(line, "NSpid:", 6) != 0)
            continue;
        char *p = line + 6, *end;
        for (;;) {
            long v = strtol(p, &end, 10);
            if (end == p)
                break;
            r = (pid_t)v;
            p = end;
        }
        break;
    }
    free(line);
    fclose(f);
    return r;
}

struct symbols *symbols_new(pid_t pid, char *err, size_t errlen)
{
    if (pid <= 0) {
        set_err(err, errlen, "bad pid", pid, "must be > 0");
        return NULL;
    }
    char path[64];
    struct stat st, self_root;
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
    s->uid = st.st_uid;

    /* Through /proc/PID/root only when the target has another root: host
     * paths keep debuglink lookups working in the common case. */
    snprintf(path, sizeof path, "/proc/%d/root/", (int)pid);
    bool same_root = stat(path, &st) != 0 ||
                     (stat("/", &self_root) == 0 &&
                      st.st_dev == self_root.st_dev &&
                      st.st_ino == self_root.st_ino);
    if (!same_root)
        snprintf(s->root, sizeof s->root, "/proc/%d/root", (int)pid);
    snprintf(s->jit_path, sizeof s->jit_path, "%s/tmp/perf-%d.map", s->root,
             (int)ns_pid(pid));

    elf_version(EV_CURRENT);
    s->callbacks.find_elf = sym_find_elf;
    s->callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
    s->callbacks.section_address = dwfl_offline_section_address;
    s->callbacks.debuginfo_path = &s->debuginfo_path;
    s->dwfl = dwfl_begin(&s->callbacks);
    if (s->dwfl == NULL) {
        set_err(err, errlen, "dwfl_begin for", pid, dwfl_errmsg(-1));
        free(s);
        return NULL;
    }
    return s;
}

void symbols_free(struct symbols *s)
{
    if (s == NULL)
        return;
    dwfl_getmodules(s->dwfl, free_userdata_walk, NULL, 0);
    dwfl_end(s->dwfl);     /* ends the [vdso] Elf before its image goes */
    free(s->vdso_image);
    arena_free(s);
    maps_free(s->maps);
    free(s->jit);
    cu_index_clear(s);
    free(s->cache);
    free(s->frames);
    free(s);
}

int symbols_load_maps(struct symbols *s, const char *maps, size_t len)
{
    s->stats.reloads++;
    /* Everything that points into the arena goes with it. */
    cache_clear(s);
    cu_index_clear(s);
    jit_clear(s);
    s->jit_checked_ns = 0;
    arena_free(s);
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

    dwfl_report_begin(s->dwfl);
    FILE *f = len > 0 ? fmemopen(s->maps->text, len, "r") : NULL;
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

int symbols_lookup(struct symbols *s, uint64_t pc, bool is_return_addr,
                   struct sym_frame *out, int max)
{
    if (max < 1)
        return 0;
    s->stats.lookups++;
    /* A return address points after the call; the call is at pc-1, which
     * may be in another line, inlined instance or even function. */
    uint64_t addr = is_return_addr && pc > 0 ? pc - 1 : pc;
    const struct cache_slot *c = cache_find(s, addr);
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
