/* bench_profile.c - aggregate benchmarks on synthetic stacks.
 *
 *   bench_profile ingest           3.6 M samples over 10k unique 30-deep
 *                                  stacks: frames/s, peak RSS, node count
 *   bench_profile ingest-timed     the same with per-second counts kept
 *                                  (window.h), 10k samples a second, so
 *                                  six minutes of a live session's ring
 *   bench_profile folded FILE N    write a folded profile whose tree has
 *                                  about N nodes (for the TUI redraw bench)
 */
#include "profile.h"
#include "window.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define DEPTH 30
#define STACKS 10000

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

/* Frame at `level` of stack `i`: stacks share prefixes the way call trees
 * do (few distinct functions near the root, many near the leaves). */
static unsigned frame_of(unsigned i, unsigned level)
{
    unsigned fan = level < 4 ? 2 : level < 10 ? 4 : 8;
    return (unsigned)(mix((uint64_t)(i >> (level < 20 ? (20 - level) / 2 : 0)) * 131 + level) % fan) + level * 8;
}

static int ingest(int timed)
{
    struct profile *p = profile_new();
    if (timed)
        profile_time_enable(p, WINDOW_LIVE_SECONDS);
    uint32_t ids[DEPTH * 8];
    for (unsigned k = 0; k < DEPTH * 8; k++) {
        char name[64];
        snprintf(name, sizeof name, "function_%u_with_a_realistic_name", k);
        struct frame_desc d = {.name = name, .module = "libbench.so", .file = "bench.c", .line = k};
        ids[k] = profile_intern_frame(p, &d);
    }
    uint32_t th = profile_thread(p, 1, "bench");
    struct stack_frame (*stacks)[DEPTH] = malloc(sizeof *stacks * STACKS);
    for (unsigned i = 0; i < STACKS; i++)
        for (unsigned l = 0; l < DEPTH; l++) {
            unsigned f = frame_of(i, l);
            stacks[i][l] = (struct stack_frame){ids[f], 100 + f, 0x400000 + f * 64u};
        }
    const unsigned long total = 3600000;
    double t0 = now();
    for (unsigned long s = 0; s < total; s++)
        profile_add_stack_at(p, th, stacks[mix(s) % STACKS], DEPTH, 1,
                             s * 100000ull);  /* 10k samples a second */
    double dt = now() - t0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("samples %lu frames_per_s %.0f samples_per_s %.0f nodes %u peak_rss_mib %.1f\n",
           total, (double)total * DEPTH / dt, (double)total / dt,
           profile_node_count(p), (double)ru.ru_maxrss / 1024.0);
    free(stacks);
    profile_free(p);
    return 0;
}

static int folded(const char *path, unsigned nodes)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return 1;
    }
    /* a tree of fan-out 10, 5 levels deep, spread over 4 threads: about
     * 4 * (10 + 100 + 1000 + 10000 + ...) nodes, cut at `nodes` leaves */
    unsigned leaves = nodes / 4 * 9 / 10;
    for (unsigned t = 0; t < 4; t++)
        for (unsigned i = 0; i < leaves / 4 + 1; i++) {
            fprintf(f, "worker-%u;main;run", 100 + t);
            for (unsigned l = 0, x = i; l < 5; l++, x /= 10)
                fprintf(f, ";fn_l%u_%u", l, x % 10 + l * 10);
            fprintf(f, ";leaf_%u %lu\n", i, (unsigned long)(mix(i) % 50 + 1));
        }
    return fclose(f) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "ingest") == 0)
        return ingest(0);
    if (argc == 2 && strcmp(argv[1], "ingest-timed") == 0)
        return ingest(1);
    if (argc == 4 && strcmp(argv[1], "folded") == 0)
        return folded(argv[2], (unsigned)atoi(argv[3]));
    fprintf(stderr, "usage: bench_profile ingest | ingest-timed | folded FILE NODES\n");
    return 2;
}
