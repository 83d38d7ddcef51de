/* sym_preload.c - loading a command's modules before it runs; see
 * sym_preload.h. */
#include "sym_preload.h"

#include <elf.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "maps.h"
#include "sym_store.h"
#include "util.h"

#define SCRIPT_DEPTH 4          /* "#!" interpreters followed, as the kernel */
#define LD_CACHE "/etc/ld.so.cache"
#define LD_CACHE_MAX (16u << 20) /* a larger cache is not read */
#define LD_CACHE_MAGIC "glibc-ld.so.cache1.1"
#define LD_CACHE_OLD "ld.so-1.7.0"
#define LD_CACHE_HDR 48u        /* the new format's header... */
#define LD_CACHE_ENT 24u        /* ...and entry sizes */
#define LD_FLAG_ELF_LIBC6 3     /* an entry's type (flags & 0xff) */

/* The dynamic loader's own directories, after the cache (x86-64: the
 * Debian multiarch ones, then the others' lib64, then lib). */
static const char *const default_dirs[] = {
    "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
    "/lib64", "/usr/lib64", "/lib", "/usr/lib",
};

/* What a library must match to be loadable by the executable. */
struct elf_kind {
    unsigned char cls;  /* EI_CLASS */
    uint16_t machine;   /* e_machine */
};

/* The ELF class and machine of the file at path; false when it is no ELF
 * (or cannot be read). */
static bool read_kind(const char *path, struct elf_kind *k)
{
    Elf64_Ehdr h; /* e_machine sits at the same offset in both classes */
    int fd = util_open_regular(path, NULL);
    if (fd < 0)
        return false;
    ssize_t n = pread(fd, &h, sizeof h, 0);
    close(fd);
    if (n < (ssize_t)(EI_NIDENT + 4) || memcmp(h.e_ident, ELFMAG, SELFMAG) != 0)
        return false;
    k->cls = h.e_ident[EI_CLASS];
    k->machine = h.e_machine;
    return true;
}

/* The real path of a regular file at path, in out (PATH_MAX); false when
 * there is none. */
static bool real_file(const char *path, char *out)
{
    struct stat sb;
    return realpath(path, out) != NULL && stat(out, &sb) == 0 &&
           S_ISREG(sb.st_mode);
}

/* --- the executable ---------------------------------------------------------- */

/* The file execvp runs for cmd: cmd itself when it holds a '/', else the
 * first executable regular file of that name in $PATH. */
static bool find_command(const char *cmd, char *out)
{
    if (strchr(cmd, '/'))
        return real_file(cmd, out);
    const char *path = getenv("PATH");
    if (!path)
        path = "/bin:/usr/bin"; /* execvp's default */
    char cand[PATH_MAX];
    for (const char *p = path;; p++) {
        const char *end = strchrnul(p, ':');
        int len = (int)(end - p);
        /* an empty entry is the current directory */
        if (snprintf(cand, sizeof cand, "%.*s%s%s", len, p, len ? "/" : "",
                     cmd) < (int)sizeof cand &&
            access(cand, X_OK) == 0 && real_file(cand, out))
            return true;
        if (!*end)
            return false;
        p = end;
    }
}

/* A "#!" script's interpreter into out (a real path); false when path
 * is no script. */
static bool script_interp(const char *path, char *out)
{
    char line[256];
    int fd = util_open_regular(path, NULL);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, line, sizeof line - 1);
    close(fd);
    if (n < 3 || line[0] != '#' || line[1] != '!')
        return false;
    line[n] = '\0';
    char *s = line + 2 + strspn(line + 2, " \t");
    s[strcspn(s, " \t\n")] = '\0';
    return s[0] == '/' && real_file(s, out);
}

/* --- the libraries ----------------------------------------------------------- */

/* What the executable's dynamic section names: its strings point into
 * its mapped file, valid while elf is. */
struct dyn {
    const char *interp;             /* PT_INTERP, or NULL */
    const char *needed[SYM_PRELOAD_MAX];
    size_t nneeded;
    const char *rpath, *runpath;    /* NULL when absent */
};

static void read_dynamic(Elf *elf, struct dyn *d)
{
    size_t nph, raw_len;
    const char *raw = elf_rawfile(elf, &raw_len);
    if (raw && elf_getphdrnum(elf, &nph) == 0)
        for (size_t i = 0; i < nph; i++) {
            GElf_Phdr ph;
            if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_INTERP &&
                ph.p_offset < raw_len && ph.p_filesz <= raw_len - ph.p_offset &&
                ph.p_filesz > 0 && memchr(raw + ph.p_offset, '\0', ph.p_filesz))
                d->interp = raw + ph.p_offset;
        }
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
            continue;
        Elf_Data *data = elf_getdata(scn, NULL);
        size_t n = data && sh.sh_entsize ? data->d_size / sh.sh_entsize : 0;
        for (int i = 0; i < (int)n; i++) {
            GElf_Dyn dyn;
            if (!gelf_getdyn(data, i, &dyn) || dyn.d_tag == DT_NULL)
                break;
            const char *str = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
            if (!str)
                continue;
            if (dyn.d_tag == DT_NEEDED && d->nneeded < SYM_PRELOAD_MAX)
                d->needed[d->nneeded++] = str;
            else if (dyn.d_tag == DT_RPATH)
                d->rpath = str;
            else if (dyn.d_tag == DT_RUNPATH)
                d->runpath = str;
        }
        return;
    }
}

/* Whether dir/name is a library of kind k; its real path in out. */
static bool try_dir(const char *dir, size_t dirlen, const char *name,
                    const struct elf_kind *k, char *out)
{
    char cand[PATH_MAX];
    struct elf_kind got;
    if (dirlen == 0 ||
        snprintf(cand, sizeof cand, "%.*s/%s", (int)dirlen, dir, name) >=
            (int)sizeof cand)
        return false;
    return read_kind(cand, &got) && got.cls == k->cls &&
           got.machine == k->machine && real_file(cand, out);
}

/* Search the ':'-separated list for name; $ORIGIN (and ${ORIGIN})
 * stands for origin, the executable's directory.  An entry with another
 * dynamic string token is skipped. */
static bool search_list(const char *list, const char *origin, const char *name,
                        const struct elf_kind *k, char *out)
{
    char dir[PATH_MAX];
    for (const char *p = list;;) {
        const char *end = strchrnul(p, ':');
        int len = (int)(end - p);
        const char *rest = NULL;
        if (len >= 7 && strncmp(p, "$ORIGIN", 7) == 0)
            rest = p + 7;
        else if (len >= 9 && strncmp(p, "${ORIGIN}", 9) == 0)
            rest = p + 9;
        int n = rest ? snprintf(dir, sizeof dir, "%s%.*s", origin,
                                (int)(end - rest), rest)
                     : snprintf(dir, sizeof dir, "%.*s", len, p);
        if (n < (int)sizeof dir && !memchr(dir, '$', (size_t)n) &&
            try_dir(dir, (size_t)n, name, k, out))
            return true;
        if (!*end)
            return false;
        p = end + 1;
    }
    return false;
}

/* /etc/ld.so.cache, read once: its new-format part. */
struct ld_cache {
    char *buf;           /* the whole file */
    size_t len;
    size_t base;         /* offset of the new-format header */
    uint32_t nlibs;
    bool ok;
};

static void cache_open(struct ld_cache *c)
{
    memset(c, 0, sizeof *c);
    struct stat sb;
    int fd = util_open_regular(LD_CACHE, &sb);
    if (fd < 0)
        return;
    if (sb.st_size > 0 && (uint64_t)sb.st_size <= LD_CACHE_MAX &&
        (c->buf = malloc((size_t)sb.st_size)))
        c->len = (size_t)pread(fd, c->buf, (size_t)sb.st_size, 0);
    close(fd);
    if (!c->buf || c->len != (size_t)sb.st_size)
        return;
    if (c->len >= 16 && memcmp(c->buf, LD_CACHE_OLD, strlen(LD_CACHE_OLD)) == 0) {
        /* the old format first: 16 bytes of header, 12 per entry, then
         * the new one 8-aligned */
        uint32_t old;
        memcpy(&old, c->buf + 12, sizeof old);
        c->base = (16 + (size_t)old * 12 + 7) & ~(size_t)7;
    }
    if (c->base > c->len || c->len - c->base < LD_CACHE_HDR ||
        memcmp(c->buf + c->base, LD_CACHE_MAGIC, strlen(LD_CACHE_MAGIC)) != 0)
        return;
    memcpy(&c->nlibs, c->buf + c->base + 20, sizeof c->nlibs);
    c->ok = c->nlibs <= (c->len - c->base - LD_CACHE_HDR) / LD_CACHE_ENT;
}

/* A string of the cache at offset off from the new header; NULL when it
 * is not inside the file. */
static const char *cache_str(const struct ld_cache *c, uint32_t off)
{
    size_t at = c->base + off;
    if (off >= c->len || at >= c->len || !memchr(c->buf + at, '\0', c->len - at))
        return NULL;
    return c->buf + at;
}

/* The cache's library for name (no hardware-capability variant). */
static bool cache_find(const struct ld_cache *c, const char *name,
                       const struct elf_kind *k, char *out)
{
    for (uint32_t i = 0; c->ok && i < c->nlibs; i++) {
        const char *e = c->buf + c->base + LD_CACHE_HDR + (size_t)i * LD_CACHE_ENT;
        int32_t flags;
        uint32_t key, value;
        uint64_t hwcap;
        memcpy(&flags, e, 4);
        memcpy(&key, e + 4, 4);
        memcpy(&value, e + 8, 4);
        memcpy(&hwcap, e + 16, 8);
        const char *kname = cache_str(c, key), *path = cache_str(c, value);
        struct elf_kind got;
        if ((flags & 0xff) == LD_FLAG_ELF_LIBC6 && hwcap == 0 && kname && path &&
            strcmp(kname, name) == 0 && read_kind(path, &got) &&
            got.cls == k->cls && got.machine == k->machine && real_file(path, out))
            return true;
    }
    return false;
}

/* Where the dynamic loader finds library `name` of the executable. */
static bool find_library(const struct dyn *d, const char *origin,
                         struct ld_cache *cache, const char *name,
                         const struct elf_kind *k, char *out)
{
    if (strchr(name, '/'))
        return real_file(name, out);
    if (!d->runpath && d->rpath && search_list(d->rpath, origin, name, k, out))
        return true;
    const char *env = getenv("LD_LIBRARY_PATH");
    if (env && search_list(env, origin, name, k, out))
        return true;
    if (d->runpath && search_list(d->runpath, origin, name, k, out))
        return true;
    if (!cache->buf)
        cache_open(cache);
    if (cache_find(cache, name, k, out))
        return true;
    for (size_t i = 0; i < sizeof default_dirs / sizeof *default_dirs; i++)
        if (try_dir(default_dirs[i], strlen(default_dirs[i]), name, k, out))
            return true;
    return false;
}

/* --- loading ------------------------------------------------------------------ */

/* Keep m (a reference taken) in p, unless p has it already (a library
 * named twice) or has no room. */
static void keep(struct sym_preload *p, struct sym_store *st, struct sym_mod *m)
{
    if (!m)
        return;
    bool have = false;
    for (size_t i = 0; i < p->n; i++)
        have |= p->mods[i] == m;
    if (have || p->n == SYM_PRELOAD_MAX) {
        sym_store_release(st, m);
        return;
    }
    p->mods[p->n++] = m;
    size_t used = strlen(p->names);
    snprintf(p->names + used, sizeof p->names - used, "%s%s", used ? ", " : "",
             sym_store_name(m));
}

static void load(struct sym_preload *p, struct sym_store *st, const char *path)
{
    keep(p, st, sym_store_preload(st, path));
}

/* The [vdso]: the kernel maps the same image into every 64-bit process,
 * so ours (its build-id is the key) is the command's. */
static void load_vdso(struct sym_preload *p, struct sym_store *st)
{
    struct maps *m = maps_read(getpid());
    const struct map_entry *v = m ? maps_find_path(m, "[vdso]") : NULL;
    if (v)
        keep(p, st, sym_store_open_vdso(st, getpid(), v->start, v->end));
    maps_free(m);
}

/* The executable at exe (a real path), its loader and its libraries. */
static void load_elf(struct sym_preload *p, struct sym_store *st, const char *exe)
{
    struct elf_kind k;
    int fd = util_open_regular(exe, NULL);
    Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
    if (!elf || elf_kind(elf) != ELF_K_ELF || !read_kind(exe, &k)) {
        if (elf)
            elf_end(elf);
        if (fd >= 0)
            close(fd);
        return;
    }
    load(p, st, exe);
    struct dyn d = {0};
    read_dynamic(elf, &d);
    char path[PATH_MAX], origin[PATH_MAX];
    snprintf(origin, sizeof origin, "%.*s", (int)(strrchr(exe, '/') - exe), exe);
    if (d.interp && real_file(d.interp, path))
        load(p, st, path);
    struct ld_cache cache = {0};
    for (size_t i = 0; i < d.nneeded; i++)
        if (find_library(&d, origin, &cache, d.needed[i], &k, path))
            load(p, st, path);
    free(cache.buf);
    elf_end(elf);
    close(fd);
}

void sym_preload_run(struct sym_preload *p, struct sym_store *st, const char *cmd)
{
    uint64_t t0 = clock_mono_ns();
    memset(p, 0, sizeof *p);
    char exe[PATH_MAX], interp[PATH_MAX];
    if (!cmd || !find_command(cmd, exe))
        return;
    elf_version(EV_CURRENT);
    for (int depth = 0; depth < SCRIPT_DEPTH && script_interp(exe, interp); depth++)
        memcpy(exe, interp, sizeof exe);
    load_elf(p, st, exe);
    load_vdso(p, st);
    p->loaded = p->n;
    p->ns = clock_mono_ns() - t0;
}

void sym_preload_release(struct sym_preload *p, struct sym_store *st)
{
    for (size_t i = 0; i < p->n; i++)
        sym_store_release(st, p->mods[i]);
    p->n = 0;
}
