/* symtest.c - drive src/symbols/symbols.c by hand or from tests/symbols.t.
 *
 *   symtest [-v] PID ADDR...     symbolize each ADDR of process PID
 *   symtest --bench PID [N]      time uncached and cached lookups
 *   symtest --share PID:ADDR[,ADDR...]...
 *                                one store for every PID (sym_store.h):
 *                                symbolize each ADDR in its process,
 *                                then free the symbolizers one by one
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
 * once the modules are loaded (sym_store_forget empties the name caches
 * but keeps the modules), and of cache hits.
 *
 *   symtest --demangle NAME...   print each NAME as the symbolizer
 *                                spells it (sym_names_demangle), one
 *                                "NAME -> SPELLING" line each
 *
 *   symtest --keep MS ROUNDS KIB FILE[@R]...
 *                                modules kept idle MS ms (KIB KiB of
 *                                files): ROUNDS times, each FILE (FILE@R:
 *                                only in round R, from 1) preloaded and
 *                                released, then a wait of 2 MS ms; then
 *                                the store's --stats lines
 *
 * --share prints, for each ADDR, "PID name|module" of its first frame; then the store's --stats lines (sym_store_print_stats) once
 * every process is loaded, and again after each symbolizer is freed,
 * each block after a line "-- N symbolizers".
 *
 * Errors: one line on stderr, exit 1; usage errors exit 2.
 */
#include "symbols.h"

#include "clock.h"
#include "maps.h"
#include "strarena.h"
#include "sym_names.h"
#include "sym_store.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_FRAMES 64

static void usage(void)
{
    fprintf(stderr, "usage: symtest [-v] PID [ret:]ADDR... | "
                    "symtest --bench PID [N] | "
                    "symtest --share PID:ADDR[,ADDR...]... | "
                    "symtest --demangle NAME...\n");
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

/* A symbolizer for pid with its current maps loaded; exits on error. */
static struct symbols *open_target(struct sym_store *st, pid_t pid,
                                   struct maps **maps)
{
    char err[256];
    struct symbols *s = symbols_new(st, pid, err, sizeof err);
    if (s == NULL) {
        fprintf(stderr, "symtest: %s\n", err);
        exit(1);
    }
    *maps = maps_read(pid);
    if (*maps == NULL) {
        fprintf(stderr, "symtest: /proc/%d/maps: %s\n", (int)pid, strerror(errno));
        exit(1);
    }
    if (symbols_load_maps(s, (*maps)->text, (*maps)->text_len) != 0) {
        fprintf(stderr, "symtest: no module of process %d could be loaded\n",
                (int)pid);
        exit(1);
    }
    return s;
}

static const char *str(const char *p)
{
    return p != NULL ? p : "-";
}

/* --- share ---------------------------------------------------------------- */

#define SHARE_MAX 16

static int share_main(char **args, int n)
{
    if (n < 1 || n > SHARE_MAX)
        usage();
    struct sym_store *st = sym_store_new(NULL);
    struct symbols *s[SHARE_MAX];
    char *addrs[SHARE_MAX];
    pid_t pid[SHARE_MAX];
    if (st == NULL) {
        fprintf(stderr, "symtest: out of memory\n");
        return 1;
    }
    for (int i = 0; i < n; i++) {
        char *colon = strchr(args[i], ':');
        if (colon == NULL)
            usage();
        *colon = '\0';
        pid[i] = parse_pid(args[i]);
        addrs[i] = colon + 1;
        char err[256];
        struct maps *maps = maps_read(pid[i]);
        s[i] = symbols_new(st, pid[i], err, sizeof err);
        if (s[i] == NULL || maps == NULL ||
            symbols_load_maps(s[i], maps->text, maps->text_len) != 0) {
            fprintf(stderr, "symtest: process %d: %s\n", (int)pid[i],
                    s[i] == NULL ? err : "cannot load its maps");
            exit(1);
        }
        maps_free(maps);
    }
    for (int i = 0; i < n; i++) {
        for (char *a = strtok(addrs[i], ","); a != NULL; a = strtok(NULL, ",")) {
            char *end;
            errno = 0;
            uint64_t addr = strtoull(a, &end, 16);
            if (errno != 0 || end == a || *end != '\0')
                usage();
            struct sym_frame f;
            symbols_lookup(s[i], addr, false, &f, 1);
            printf("%d %s|%s\n", (int)pid[i], f.name, str(f.module));
        }
    }
    for (int i = 0; i <= n; i++) {
        printf("-- %d symbolizers\n", n - i);
        sym_store_print_stats(st, stdout);
        if (i < n)
            symbols_free(s[i]);
    }
    sym_store_free(st);
    return 0;
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
    struct maps *maps;
    struct symbols *s = open_target(NULL, pid, &maps);
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
    maps_free(maps);
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
static uint64_t *bench_addrs(const struct maps *maps, size_t want, size_t *got)
{
    uint64_t *out = calloc(want, sizeof *out);
    uint64_t total = 0;
    for (int pass = 0; out != NULL && pass < 2; pass++) {
        uint64_t stride = pass == 0 ? 0 : total / want + 1;
        for (size_t i = 0; i < maps->n; i++) {
            const struct map_entry *e = &maps->v[i];
            if (!e->x || e->path[0] != '/')
                continue;
            if (pass == 0)
                total += e->end - e->start;
            else
                for (uint64_t x = e->start; x < e->end && *got < want; x += stride)
                    out[(*got)++] = x;
        }
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
    struct maps *maps;
    struct sym_store *st = sym_store_new(NULL);
    if (st == NULL) {
        fprintf(stderr, "symtest: out of memory\n");
        exit(1);
    }
    uint64_t t0 = clock_mono_ns();
    struct symbols *s = open_target(st, pid, &maps);
    uint64_t t_load = clock_mono_ns() - t0;
    size_t n = 0;
    uint64_t *addrs = bench_addrs(maps, want, &n);
    if (addrs == NULL || n == 0) {
        fprintf(stderr, "symtest: no executable file mapping in process %d\n",
                (int)pid);
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
    /* Pass 2: warm misses - the caches are emptied, the modules stay. */
    t0 = clock_mono_ns();
    symbols_load_maps(s, maps->text, maps->text_len);
    uint64_t t_reload = clock_mono_ns() - t0;
    sym_store_forget(st);
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
    sym_store_free(st);
    maps_free(maps);
    return 0;
}

static int demangle_main(char **names, int n)
{
    struct strarena a = {0};

    for (int i = 0; i < n; i++) {
        const char *d = sym_names_demangle(&a, names[i]);
        if (!d) {
            fprintf(stderr, "symtest: out of memory\n");
            return 1;
        }
        printf("%s -> %s\n", names[i], d);
    }
    strarena_free(&a);
    return 0;
}

/* --keep: a binary run now and then, further apart than the keep time:
 * loaded, freed past its time, loaded again, and kept from then on. */
static int keep_main(char **argv, int n)
{
    char *end;
    long ms = n >= 3 ? strtol(argv[0], &end, 10) : -1;
    long rounds = n >= 3 ? strtol(argv[1], &end, 10) : -1;
    long kib = n >= 3 ? strtol(argv[2], &end, 10) : -1;
    if (n < 4 || ms <= 0 || ms > 60000 || rounds <= 0 || rounds > 100 ||
        kib <= 0 || kib > (1L << 30)) {
        fprintf(stderr, "usage: symtest --keep MS ROUNDS KIB FILE[@R]...\n");
        return 2;
    }
    struct sym_store *st = sym_store_new(NULL);
    if (st == NULL) {
        fprintf(stderr, "symtest: out of memory\n");
        return 1;
    }
    sym_store_set_keep(st, (uint64_t)kib << 10, (uint64_t)ms * 1000000ull);
    int rc = 0;
    for (long r = 1; r <= rounds && rc == 0; r++) {
        for (int i = 3; i < n && rc == 0; i++) {
            /* FILE@R: only in round R */
            char path[4096];
            const char *at = strrchr(argv[i], '@');
            size_t len = at ? (size_t)(at - argv[i]) : strlen(argv[i]);
            if (len >= sizeof path || (at && strtol(at + 1, &end, 10) != r))
                continue;
            memcpy(path, argv[i], len);
            path[len] = '\0';
            struct sym_mod *m = sym_store_preload(st, path);
            if (m == NULL) {
                fprintf(stderr, "symtest: %s: not an ELF file\n", path);
                rc = 1;
            }
            sym_store_release(st, m);
        }
        struct timespec ts = { (2 * ms) / 1000, ((2 * ms) % 1000) * 1000000 };
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
        sym_store_update(st);
    }
    sym_store_print_stats(st, stdout);
    sym_store_free(st);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--demangle") == 0)
        return demangle_main(argv + 2, argc - 2);
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
    if (argc >= 2 && strcmp(argv[1], "--keep") == 0)
        return keep_main(argv + 2, argc - 2);
    if (argc >= 2 && strcmp(argv[1], "--share") == 0)
        return share_main(argv + 2, argc - 2);
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
