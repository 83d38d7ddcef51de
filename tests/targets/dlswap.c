/* dlswap.c - runs code from one library, unloads it, loads another.
 *
 *   usage: dlswap SECONDS_A SECONDS_B [BASEFILE [GOFILE]]
 *
 * dlopens libA.so (next to this program), calls its a_spin from
 * run_phase_a for SECONDS_A seconds (and, given GOFILE, then until GOFILE
 * exists: a test can end phase A once a profiler is attached), dlcloses
 * it, dlopens libB.so and calls b_spin from run_phase_b for SECONDS_B
 * seconds, then exits 0.
 * The load address of each library is written to BASEFILE as lines
 * "A 0x..." and "B 0x..." (the B line once B is loaded), so a test can
 * tell whether B reused A's range.  Exits 1 with one line if a library
 * cannot be loaded.  With DLSWAP_MAPPINGS=N in the environment it first
 * maps N extra pages (alternately readable and not, so the kernel keeps
 * them apart): /proc/PID/maps then costs a profiler that much more to
 * read, as a big program's does.  With DLSWAP_MIN_CPU=SECONDS, each
 * phase also goes on (30 s at most) until its thread has run that much
 * CPU time in it: an on-CPU profiler's samples follow CPU time, so a test
 * then gets enough samples of each phase however loaded the machine is.
 * (tests/reliability_dlopen.t)
 */
#include "common.h"

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>

typedef void spin_fn(double until);

static void *open_lib(const char *dir, const char *name, const char *sym,
                      spin_fn **fn, uintptr_t *base)
{
    char path[PATH_MAX];
    struct link_map *lm = NULL;
    void *h;

    snprintf(path, sizeof path, "%s/%s", dir, name);
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "dlswap: %s\n", dlerror());
        exit(1);
    }
    *fn = (spin_fn *)dlsym(h, sym);
    if (!*fn || dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || !lm) {
        fprintf(stderr, "dlswap: %s: no %s\n", path, sym);
        exit(1);
    }
    *base = (uintptr_t)lm->l_addr;
    return h;
}

static void note_base(const char *file, const char *which, uintptr_t base)
{
    FILE *f;

    if (!file)
        return;
    f = fopen(file, "a");
    if (!f) {
        fprintf(stderr, "dlswap: cannot write %s: %s\n", file, strerror(errno));
        exit(1);
    }
    fprintf(f, "%s %#lx\n", which, (unsigned long)base);
    fclose(f);
}

/* n separate one-page mappings, for a long /proc/PID/maps. */
static void map_pages(long n)
{
    long page = sysconf(_SC_PAGESIZE);
    char *area = mmap(NULL, (size_t)(n * page), PROT_NONE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (area == MAP_FAILED) {
        fprintf(stderr, "dlswap: cannot map %ld pages: %s\n", n, strerror(errno));
        exit(1);
    }
    for (long i = 0; i < n; i += 2)
        mprotect(area + i * page, (size_t)page, PROT_READ);
}

/* The calling thread's CPU time, in seconds. */
static double own_cpu(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Whether a phase begun at CPU time `base` must go on for DLSWAP_MIN_CPU
 * (until `deadline`, wall-clock, at most). */
static bool more_cpu(double base, double deadline)
{
    const char *env = getenv("DLSWAP_MIN_CPU");
    double min = env ? target_parse_seconds("dlswap", env) : 0;

    return min > 0 && own_cpu() - base < min && target_now() < deadline;
}

SP_FRAME void run_phase_a(spin_fn *fn, double seconds, const char *go_file)
{
    double base = own_cpu(), deadline = target_now() + seconds + 30;

    fn(target_now() + seconds);
    while ((go_file && access(go_file, F_OK) != 0) ||
           more_cpu(base, deadline))
        fn(target_now() + 0.01);
}

SP_FRAME void run_phase_b(spin_fn *fn, double seconds)
{
    double base = own_cpu(), deadline = target_now() + seconds + 30;

    fn(target_now() + seconds);
    while (more_cpu(base, deadline))
        fn(target_now() + 0.01);
}

int main(int argc, char **argv)
{
    char self[PATH_MAX], *dir;
    double sa, sb;
    spin_fn *fn;
    uintptr_t base;
    void *h;
    ssize_t n;

    target_usage(argc, 3, 5, "dlswap SECONDS_A SECONDS_B [BASEFILE [GOFILE]]");
    sa = target_parse_seconds("dlswap", argv[1]);
    sb = target_parse_seconds("dlswap", argv[2]);
    n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n < 0) {
        perror("dlswap: /proc/self/exe");
        return 1;
    }
    self[n] = '\0';
    dir = dirname(self);
    if (getenv("DLSWAP_MAPPINGS"))
        map_pages(target_parse_long("dlswap", "DLSWAP_MAPPINGS",
                                    getenv("DLSWAP_MAPPINGS"), 1, 1L << 20));

    h = open_lib(dir, "libA.so", "a_spin", &fn, &base);
    note_base(argc > 3 ? argv[3] : NULL, "A", base);
    run_phase_a(fn, sa, argc > 4 ? argv[4] : NULL);
    dlclose(h);

    h = open_lib(dir, "libB.so", "b_spin", &fn, &base);
    note_base(argc > 3 ? argv[3] : NULL, "B", base);
    run_phase_b(fn, sb);
    dlclose(h);
    return 0;
}
