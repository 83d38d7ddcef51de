/* ksyms.c - /proc/kallsyms parsed into a sorted table; see ksyms.h. */
#include "ksyms.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "util.h"
#include "vec.h"
#include "sorted.h"

#define MODULE_NAME_MAX 64          /* the kernel's is 56 */
#define RECHECK_NS 1000000000ull    /* a changed source is looked for at
                                       most this often */
#define REFUSAL_LINES 64            /* lines ksyms_refusal reads */

struct ksym {
    uint64_t addr;
    uint32_t name;    /* offset in names */
    uint16_t mod;     /* 0: the kernel's own; else index + 1 in mods */
    uint8_t text;     /* a function (t, T, w, W) */
    uint8_t rank;     /* among symbols at one address, the lowest wins */
};

struct ksyms_table {
    struct ksym *v;
    size_t n, cap;
    char *names;      /* NUL-terminated names, one after another */
    size_t nnames, capnames;
    char **mods;      /* "[MOD]" */
    size_t nmods, capmods;
    uint64_t bad_lines;
    bool hidden;
};

/* A table and the time it took over from the one before. */
struct ksyms_era {
    struct ksyms_table *t;    /* NULL: the source was unreadable */
    uint64_t since;           /* 0 for the first table read */
};

struct ksyms {
    char *path;
    bool proc;                /* path is /proc/kallsyms */
    struct ksyms_era era[KSYMS_KEEP]; /* the current table first, then
                                         the ones it replaced */
    unsigned neras;           /* 0 until read */
    bool tried;               /* read once */
    uint64_t sig;             /* the source's signature when read */
    uint64_t checked_ns;      /* when the signature was last compared */
    uint64_t epoch;
    struct ksyms_stats st;
};

/* --- parsing ---------------------------------------------------------- */

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Among symbols at one address: a function before anything else, a
 * global before a local, fewer leading underscores, no "__pfx_" padding
 * name (the kernel's call-padding symbols). */
static uint8_t rank_of(char type, const char *name, size_t len)
{
    uint8_t r = 0;
    size_t u = 0;

    if (!(type == 't' || type == 'T' || type == 'w' || type == 'W'))
        r += 64;
    if (type >= 'a' && type <= 'z')
        r += 16;
    if (len > 6 && memcmp(name, "__pfx_", 6) == 0)
        r += 8;
    while (u < len && u < 7 && name[u] == '_')
        u++;
    return (uint8_t)(r + u);
}

/* The index + 1 of module name[0..len) in t->mods, added when new; 0 on
 * OOM. */
static uint16_t module_of(struct ksyms_table *t, const char *name, size_t len)
{
    for (size_t i = t->nmods; i-- > 0;)
        if (strlen(t->mods[i]) == len + 2 &&
            memcmp(t->mods[i] + 1, name, len) == 0)
            return (uint16_t)(i + 1);
    if (t->nmods >= UINT16_MAX - 1 ||
        VEC_RESERVE(t->mods, t->capmods, t->nmods + 1) < 0)
        return 0;
    char *m = malloc(len + 3);
    if (!m)
        return 0;
    m[0] = '[';
    memcpy(m + 1, name, len);
    m[len + 1] = ']';
    m[len + 2] = '\0';
    t->mods[t->nmods++] = m;
    return (uint16_t)t->nmods;
}

/* One line s[0..len): "ADDR TYPE NAME" or "ADDR TYPE NAME\t[MOD]".
 * 1 added, 0 skipped (bad, or address 0: *zero set), -1 on OOM. */
static int parse_line(struct ksyms_table *t, const char *s, size_t len,
                      bool *zero)
{
    size_t i = 0;
    uint64_t addr = 0;

    while (i < len && i < 16 && hexval(s[i]) >= 0)
        addr = addr << 4 | (uint64_t)hexval(s[i++]);
    if (i == 0 || i + 3 > len || s[i] != ' ' || s[i + 2] != ' ')
        return 0;
    char type = s[i + 1];
    const char *name = s + i + 3, *end = s + len;
    const char *tab = memchr(name, '\t', (size_t)(end - name));
    size_t nlen = (size_t)((tab ? tab : end) - name);
    if (nlen == 0 || nlen > KSYMS_NAME_MAX || memchr(name, ' ', nlen) ||
        memchr(name, '\0', nlen))
        return 0;
    const char *mod = NULL;
    size_t mlen = 0;
    if (tab) {
        mod = tab + 1;
        mlen = (size_t)(end - mod);
        if (mlen < 3 || mlen - 2 > MODULE_NAME_MAX || mod[0] != '[' ||
            mod[mlen - 1] != ']' || memchr(mod + 1, ']', mlen - 2) ||
            memchr(mod, '\0', mlen))
            return 0;
        mod++;
        mlen -= 2;
    }
    if (addr == 0) {
        *zero = true;
        return 0;
    }
    if (VEC_RESERVE(t->v, t->cap, t->n + 1) < 0 ||
        VEC_RESERVE(t->names, t->capnames, t->nnames + nlen + 1) < 0)
        return -1;
    uint16_t m = 0;
    if (mod && !(m = module_of(t, mod, mlen)))
        return -1;
    memcpy(t->names + t->nnames, name, nlen);
    t->names[t->nnames + nlen] = '\0';
    t->v[t->n++] = (struct ksym){
        .addr = addr, .name = (uint32_t)t->nnames, .mod = m,
        .text = type == 't' || type == 'T' || type == 'w' || type == 'W',
        .rank = rank_of(type, name, nlen),
    };
    t->nnames += nlen + 1;
    return 1;
}

static int ksym_cmp(const void *a, const void *b)
{
    const struct ksym *x = a, *y = b;
    int c = util_cmp_pair(x->addr, x->rank, y->addr, y->rank);

    return c ? c : util_cmp_pair(x->name, 0, y->name, 0);
}

struct ksyms_table *ksyms_table_parse(const char *text, size_t len)
{
    struct ksyms_table *t = calloc(1, sizeof(*t));
    bool zero = false;
    size_t nzero = 0;

    if (!t)
        return NULL;
    for (size_t off = 0; off < len;) {
        const char *nl = memchr(text + off, '\n', len - off);
        size_t l = (size_t)((nl ? nl : text + len) - (text + off));
        int rc = l ? parse_line(t, text + off, l, &zero) : 0;

        if (rc < 0) {
            ksyms_table_free(t);
            return NULL;
        }
        if (zero)
            nzero++;
        else if (rc == 0 && l)
            t->bad_lines++;
        zero = false;
        off += l + 1;
    }
    /* Symbols, all at address 0: the kernel hides the addresses (an
     * address 0 also comes among real ones, for absolute symbols). */
    t->hidden = t->n == 0 && nzero > 0;
    if (t->n > 1)
        sorted_sort(t->v, t->n, sizeof(*t->v), ksym_cmp);
    /* one symbol per address: the best ranked, first after the sort */
    size_t k = 0;
    for (size_t i = 0; i < t->n; i++)
        if (k == 0 || t->v[k - 1].addr != t->v[i].addr)
            t->v[k++] = t->v[i];
    t->n = k;
    return t;
}

void ksyms_table_free(struct ksyms_table *t)
{
    if (!t)
        return;
    util_strv_free(t->mods, t->nmods);
    free(t->names);
    free(t->v);
    free(t);
}

bool ksyms_table_lookup(const struct ksyms_table *t, uint64_t addr,
                        struct ksym_hit *out)
{
    /* the last symbol at or below addr */
    size_t n = t ? sorted_upper_bound(t->v, t->n, sizeof(*t->v),
                                      offsetof(struct ksym, addr), addr)
                 : 0;

    if (n == 0)
        return false;
    const struct ksym *s = &t->v[n - 1];
    if (!s->text || addr - s->addr >= KSYMS_MAX_FUNC)
        return false;
    out->name = t->names + s->name;
    out->module = s->mod ? t->mods[s->mod - 1] : PROFILE_KERNEL_MODULE;
    out->start = s->addr;
    return true;
}

void ksyms_table_stats(const struct ksyms_table *t, struct ksyms_stats *out)
{
    out->symbols = t ? t->n : 0;
    out->modules = t ? t->nmods : 0;
    out->bad_lines = t ? t->bad_lines : 0;
    out->hidden = t && t->hidden;
}

/* --- the source --------------------------------------------------------- */

/* The whole of path, at most KSYMS_FILE_MAX bytes (malloc'd, *len set);
 * NULL when it cannot be read. */
static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "re");
    char *buf = NULL;
    size_t n = 0, cap = 0;

    if (!f)
        return NULL;
    for (;;) {
        if (VEC_RESERVE(buf, cap, n + 65536) < 0)
            break;
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0 || n > KSYMS_FILE_MAX)
            break;
    }
    bool bad = ferror(f) || n > KSYMS_FILE_MAX || !buf;
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

/* The signature of a source's text: 0 when it cannot be read. */
static uint64_t text_sig(const char *text, size_t len)
{
    return text ? util_hash_bytes(text, len, 1) | 1 : 0;
}

/* What changes when the source does, for /proc/kallsyms: the text of
 * /proc/modules (a load or unload; kallsyms itself takes 0.1 s to read).
 * Another file is its own signature (its text, read once a check). */
static uint64_t modules_sig(void)
{
    size_t len;
    char *text = read_all("/proc/modules", &len);
    uint64_t h = text_sig(text, len);

    free(text);
    return h;
}

struct ksyms *ksyms_new(const char *path)
{
    struct ksyms *k = calloc(1, sizeof(*k));

    if (!k || !(k->path = strdup(path ? path : KSYMS_PROC))) {
        free(k);
        return NULL;
    }
    k->proc = strcmp(k->path, KSYMS_PROC) == 0;
    return k;
}

void ksyms_free(struct ksyms *k)
{
    if (!k)
        return;
    for (unsigned i = 0; i < k->neras; i++)
        ksyms_table_free(k->era[i].t);
    free(k->path);
    free(k);
}

/* text (len bytes, taken; NULL: the source was unreadable) is the
 * source now, of signature sig: its table names the samples taken from
 * now_ns on; the one before stays for older samples a slow collector has
 * yet to name (the oldest of KSYMS_KEEP goes). */
static void install(struct ksyms *k, uint64_t now_ns, char *text,
                    size_t len, uint64_t sig)
{
    struct ksyms_table *t = text ? ksyms_table_parse(text, len) : NULL;
    bool readable = text != NULL;

    free(text);
    k->sig = sig;
    k->tried = true;
    k->checked_ns = now_ns;
    k->st.unreadable = !readable;
    if (!t && readable)
        return; /* OOM: keep what we had */
    if (k->neras == KSYMS_KEEP)
        ksyms_table_free(k->era[--k->neras].t);
    memmove(k->era + 1, k->era, k->neras * sizeof *k->era);
    k->era[0] = (struct ksyms_era){t, k->neras ? now_ns : 0};
    k->neras++;
    k->epoch++;
    k->st.reloads++;
}

/* Read the source (again).  /proc/kallsyms's signature is read first:
 * a module that comes between the two reads is seen at the next check. */
static void reload(struct ksyms *k, uint64_t now_ns)
{
    size_t len = 0;
    uint64_t sig = k->proc ? modules_sig() : 0;
    char *text = read_all(k->path, &len);

    install(k, now_ns, text, len, k->proc ? sig : text_sig(text, len));
}

/* The tables replaced more than KSYMS_OLD_NS ago go: no sample that old
 * is still to be named. */
static void forget_old(struct ksyms *k, uint64_t now_ns)
{
    while (k->neras > 1 &&
           now_ns - k->era[k->neras - 2].since > KSYMS_OLD_NS)
        ksyms_table_free(k->era[--k->neras].t);
}

unsigned ksyms_table_at(const struct ksyms *k, uint64_t at_ns)
{
    unsigned i = 0;
    while (i + 1 < k->neras && at_ns < k->era[i].since)
        i++;
    return i;
}

void ksyms_load(struct ksyms *k, uint64_t now_ns)
{
    if (!k->tried)
        reload(k, now_ns);
}

bool ksyms_lookup(struct ksyms *k, uint64_t addr, uint64_t at_ns,
                  uint64_t now_ns, struct ksym_hit *out)
{
    k->st.lookups++;
    ksyms_load(k, now_ns);
    if (k->neras &&
        ksyms_table_lookup(k->era[ksyms_table_at(k, at_ns)].t, addr, out))
        return true;
    k->st.misses++;
    return false;
}

bool ksyms_check(struct ksyms *k, uint64_t now_ns)
{
    uint64_t e = k->epoch;

    if (!k->tried || now_ns - k->checked_ns < RECHECK_NS)
        return false;
    k->checked_ns = now_ns;
    forget_old(k, now_ns);
    if (k->proc) {
        if (modules_sig() != k->sig)
            reload(k, now_ns);
        return k->epoch != e;
    }
    /* a file: one read a check, so a changed one is parsed from the
     * very text that showed the change */
    size_t len = 0;
    char *text = read_all(k->path, &len);
    uint64_t sig = text_sig(text, len);
    if (sig != k->sig)
        install(k, now_ns, text, len, sig);
    else
        free(text);
    return k->epoch != e;
}

uint64_t ksyms_epoch(const struct ksyms *k)
{
    return k->epoch;
}

void ksyms_get_stats(const struct ksyms *k, struct ksyms_stats *out)
{
    *out = k->st;
    struct ksyms_stats t;
    ksyms_table_stats(k->neras ? k->era[0].t : NULL, &t);
    out->symbols = t.symbols;
    out->modules = t.modules;
    out->bad_lines = t.bad_lines;
    out->hidden = t.hidden;
}

bool ksyms_refusal(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path ? path : KSYMS_PROC, "re");
    char line[KSYMS_NAME_MAX + 96];
    int lines = 0, zero = 0;

    if (!f)
        return false;
    while (lines < REFUSAL_LINES && fgets(line, sizeof(line), f)) {
        lines++;
        zero += strspn(line, "0") >= 8 && line[strspn(line, "0")] == ' ';
    }
    fclose(f);
    if (lines == 0 || zero < lines)
        return false;
    int kptr = -1;
    if (!path && (f = fopen("/proc/sys/kernel/kptr_restrict", "re"))) {
        if (fscanf(f, "%d", &kptr) != 1)
            kptr = -1;
        fclose(f);
    }
    if (kptr >= 0)
        snprintf(buf, n, "kernel frames unnamed: kallsyms hides addresses "
                 "(kptr_restrict=%d); sysctl kernel.kptr_restrict=0 or run "
                 "as root", kptr);
    else
        snprintf(buf, n, "kernel frames unnamed: %s lists every address as 0;"
                 " sysctl kernel.kptr_restrict=0 or run as root",
                 path ? path : KSYMS_PROC);
    return true;
}

const char *ksyms_unknown_name(uint64_t addr, char *buf, size_t n)
{
    snprintf(buf, n, "[kernel]+0x%llx", (unsigned long long)addr);
    return buf;
}
