/* symtest.c - drive src/engine/symbols.c by hand or from tests/symbols.t.
 *
 *   symtest [-v] PID ADDR...     symbolize each ADDR of process PID
 *   symtest --bench PID [N]      time uncached and cached lookups
 *
 * ADDR is hex (0x optional); "ret:ADDR" marks a return address (the
 * symbolizer then looks at ADDR-1).  For each ADDR, one line per frame,
 * innermost first, then an empty line:
 *
 *   name|module|file|line|inlined          (NULL strings print as "-")
 *   ...|func_line|0xsym_addr|known         (also, with -v)
 *
 * --bench takes N addresses (default 20000) spread over the executable
 * file mappings of PID and reports, per module and overall: the cost of
 * the first lookups (libdwfl reading ELF and DWARF), of uncached lookups
 * once the modules are loaded (symbols_load_maps empties the cache but
 * keeps the modules), and of cache hits.
 *
 * Errors: one line on stderr, exit 1; usage errors exit 2.
 */
#include "symbols.h"

#include "clock.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES 64

static void usage(void)
{
    fprintf(stderr, "usage: symtest [-v] PID [ret:]ADDR... | "
                    "symtest --bench PID [N]\n");
    exit(2);
}

static pid_t parse_pid(const char *arg)
{
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (errno != 0 || end == arg || *end != '\0' || v <= 0 || v > INT32_MAX) {
        fprintf(stderr, "symtest: bad PID '%s'\n", arg);
        exit(2);
    }
    return (pid_t)v;
}

/* The whole of /proc/PID/maps, malloc'd; exits on error. */
static char *read_maps(pid_t pid, size_t *len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *f = fopen(path, "re");
    if (f == NULL) {
        fprintf(stderr, "symtest: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf != NULL && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *b = realloc(buf, cap *= 2);
            if (b == NULL)
                free(buf);
            buf = b;
        }
    }
    fclose(f);
    if (buf == NULL) {
        fprintf(stderr, "symtest: out of memory\n");
        exit(1);
    }
    *len = n;
    return buf;
}

static struct symbols *open_target(pid_t pid, char **maps, size_t *len)
{
    char err[256];
    struct symbols *s = symbols_new(pid, err, sizeof err);
    if (s == NULL) {
        fprintf(stderr, "symtest: %s\n", err);
        exit(1);
    }
    *maps = read_maps(pid, len);
    if (symbols_load_maps(s, *maps, *len) != 0) {
        fprintf(stderr, "symtest: no module of process %d could be loaded\n",
                (int)pid);
        symbols_free(s);
        free(*maps);
        exit(1);
    }
    return s;
}

static const char *str(const char *p)
{
    return p != NULL ? p : "-";
}

static int lookup_main(pid_t pid, char **addrs, int n, bool verbose)
{
    uint64_t *pcs = calloc((size_t)n, sizeof *pcs);
    bool *ret = calloc((size_t)n, sizeof *ret);
    if (pcs == NULL || ret == NULL) {
        fprintf(stderr, "symtest: out of memory\n");
        exit(1);
    }
    for (int i = 0; i < n; i++) {
        const char *a = addrs[i];
        ret[i] = strncmp(a, "ret:", 4) == 0;
        if (ret[i])
            a += 4;
        char *end;
        errno = 0;
        pcs[i] = strtoull(a, &end, 16);
        if (errno != 0 || end == a || *end != '\0') {
            fprintf(stderr, "symtest: bad address '%s'\n", addrs[i]);
            free(pcs);
            free(ret);
            return 2;
        }
    }
    char *maps;
    size_t len;
    struct symbols *s = open_target(pid, &maps, &len);
    for (int i = 0; i < n; i++) {
        struct sym_frame f[MAX_FRAMES];
        int k = symbols_lookup(s, pcs[i], ret[i], f, MAX_FRAMES);
        for (int j = 0; j < k; j++) {
            printf("%s|%s|%s|%u|%d", f[j].name, str(f[j].module),
                   str(f[j].file), f[j].line, f[j].inlined);
            if (verbose)
                printf("|%u|0x%" PRIx64 "|%d", f[j].func_line, f[j].sym_addr,
                       f[j].known);
            printf("\n");
        }
        printf("\n");
    }
    symbols_free(s);
    free(maps);
    free(pcs);
    free(ret);
    return 0;
}

/* --- bench ----------------------------------------------------------------- */

struct bench_mod {
    char name[256];  /* module basename */
    uint64_t first;  /* addresses taken from this module so far */
    uint64_t n;
    uint64_t cold_ns;
    uint64_t warm_ns;
};

/* N addresses spread evenly over the executable file mappings. */
static uint64_t *bench_addrs(const char *maps, size_t len, size_t want,
                             size_t *got)
{
    uint64_t *out = calloc(want, sizeof *out);
    uint64_t total = 0;
    for (int pass = 0; out != NULL && pass < 2; pass++) {
        uint64_t stride = pass == 0 ? 0 : total / want + 1;
        char *text = strndup(maps, len);
        if (text == NULL)
            break;
        char *save = NULL;
        for (char *l = strtok_r(text, "\n", &save); l != NULL;
             l = strtok_r(NULL, "\n", &save)) {
            unsigned long long a, b;
            char perms[8];
            int pos = 0;
            if (sscanf(l, "%llx-%llx %7s %*s %*s %*s %n", &a, &b, perms,
                       &pos) < 3 || perms[2] != 'x' || pos == 0 || l[pos] != '/')
                continue;
            if (pass == 0)
                total += b - a;
            else
                for (uint64_t x = a; x < b && *got < want; x += stride)
                    out[(*got)++] = x;
        }
        free(text);
    }
    return out;
}

static struct bench_mod *bench_mod_of(struct bench_mod *mods, size_t *nmods,
                                      const char *name)
{
    for (size_t i = 0; i < *nmods; i++)
        if (strcmp(mods[i].name, name) == 0)
            return &mods[i];
    struct bench_mod *m = &mods[(*nmods)++];
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", name);
    return m;
}

static int bench_main(pid_t pid, size_t want)
{
    char *maps;
    size_t len;
    uint64_t t0 = clock_mono_ns();
    struct symbols *s = open_target(pid, &maps, &len);
    uint64_t t_load = clock_mono_ns() - t0;
    size_t n = 0;
    uint64_t *addrs = bench_addrs(maps, len, want, &n);
    if (addrs == NULL || n == 0) {
        fprintf(stderr, "symtest: no executable file mapping in process %d\n",
                (int)pid);
        free(addrs);
        symbols_free(s);
        free(maps);
        return 1;
    }
    struct bench_mod mods[64];
    size_t nmods = 0;
    struct bench_mod **mod_of = calloc(n, sizeof *mod_of);
    if (mod_of == NULL) {
        fprintf(stderr, "symtest: out of memory\n");
        exit(1);
    }
    struct sym_frame f[MAX_FRAMES];

    /* Pass 1: cold - libdwfl opens files, reads symbols and DWARF. */
    uint64_t cold = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t a = clock_mono_ns();
        symbols_lookup(s, addrs[i], false, f, MAX_FRAMES);
        uint64_t d = clock_mono_ns() - a;
        const char *m = f[0].module ? f[0].module : "-";
        mod_of[i] = nmods < 64 ? bench_mod_of(mods, &nmods, m) : &mods[63];
        mod_of[i]->cold_ns += d;
        mod_of[i]->n++;
        cold += d;
    }
    /* Pass 2: warm misses - the cache is emptied, the modules stay. */
    t0 = clock_mono_ns();
    symbols_load_maps(s, maps, len);
    uint64_t t_reload = clock_mono_ns() - t0;
    struct symbols_stats st0, st1;
    symbols_get_stats(s, &st0);
    for (size_t i = 0; i < n; i++) {
        uint64_t a = clock_mono_ns();
        symbols_lookup(s, addrs[i], false, f, MAX_FRAMES);
        mod_of[i]->warm_ns += clock_mono_ns() - a;
    }
    symbols_get_stats(s, &st1);
    /* Pass 3: hits. */
    enum { ROUNDS = 50 };
    t0 = clock_mono_ns();
    for (int r = 0; r < ROUNDS; r++)
        for (size_t i = 0; i < n; i++)
            symbols_lookup(s, addrs[i], false, f, MAX_FRAMES);
    uint64_t hot = clock_mono_ns() - t0;
    struct symbols_stats st2;
    symbols_get_stats(s, &st2);

    uint64_t misses = st1.misses - st0.misses;
    printf("addresses: %zu over %zu modules\n", n, nmods);
    printf("load_maps: first %.1f us, reload %.1f us\n", t_load / 1e3,
           t_reload / 1e3);
    printf("cold lookups (modules loading): %.2f us/lookup\n",
           cold / 1e3 / (double)n);
    printf("uncached lookups: %.2f us/lookup (%" PRIu64 " misses, "
           "miss_ns %.2f us/miss)\n",
           (double)(st1.miss_ns - st0.miss_ns) / 1e3 / (double)n, misses,
           misses ? (double)(st1.miss_ns - st0.miss_ns) / 1e3 / (double)misses
                  : 0.0);
    printf("cached lookups: %.1f ns/lookup (%" PRIu64 " hits)\n",
           (double)hot / (double)(n * ROUNDS), st2.hits - st1.hits);
    printf("%-32s %8s %12s %12s\n", "module", "addrs", "cold us/lk",
           "uncached us/lk");
    for (size_t i = 0; i < nmods; i++)
        printf("%-32s %8" PRIu64 " %12.2f %12.2f\n", mods[i].name, mods[i].n,
               mods[i].cold_ns / 1e3 / (double)mods[i].n,
               mods[i].warm_ns / 1e3 / (double)mods[i].n);
    free(mod_of);
    free(addrs);
    symbols_free(s);
    free(maps);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "--bench") == 0) {
        long want = 20000;
        if (argc >= 4) {
            char *end;
            want = strtol(argv[3], &end, 10);
            if (*end != '\0' || want < 1 || want > 1000000)
                usage();
        }
        return bench_main(parse_pid(argv[2]), (size_t)want);
    }
    int i = 1;
    bool verbose = false;
    if (i < argc && strcmp(argv[i], "-v") == 0) {
        verbose = true;
        i++;
    }
    if (argc - i < 2)
        usage();
    pid_t pid = parse_pid(argv[i]);
    return lookup_main(pid, argv + i + 1, argc - i - 1, verbose);
}
