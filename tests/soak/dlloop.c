/* dlloop.c - loads and unloads two libraries in a loop (tests/soak/).
 *
 *   usage: dlloop SECONDS DIR
 *
 * Over and over: dlopen DIR/libA.so, run its a_spin for 5 ms, dlclose it,
 * then the same with DIR/libB.so and b_spin (the look-alike libraries of
 * tests/targets/dlswap_lib.c, which the loader tends to map at the same
 * address), so a profiler keeps seeing mappings come and go under one
 * PID.  After SECONDS (0: never) it prints "cycles N" and exits 0; a
 * library that cannot be loaded exits 1 with one line.
 */
#include "common.h"

#include <dlfcn.h>
#include <limits.h>

/* Load DIR/libNAME.so, spin in SYM for 5 ms, unload it.  0, or -1. */
SP_FRAME static int dl_cycle(const char *dir, const char *lib, const char *sym)
{
    char path[PATH_MAX];
    void *h;
    void (*spin)(double);

    snprintf(path, sizeof path, "%s/%s", dir, lib);
    if (!(h = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
        fprintf(stderr, "dlloop: %s\n", dlerror());
        return -1;
    }
    *(void **)&spin = dlsym(h, sym);
    if (!spin) {
        fprintf(stderr, "dlloop: %s\n", dlerror());
        dlclose(h);
        return -1;
    }
    spin(target_now() + 0.005);
    dlclose(h);
    return 0;
}

int main(int argc, char **argv)
{
    long cycles = 0;

    target_usage(argc, 3, 3, "dlloop SECONDS DIR");
    double deadline = target_deadline_arg("dlloop", argc, argv, 1);
    while (!target_expired(deadline)) {
        if (dl_cycle(argv[2], "libA.so", "a_spin") < 0 ||
            dl_cycle(argv[2], "libB.so", "b_spin") < 0)
            return 1;
        cycles++;
    }
    printf("cycles %ld\n", cycles);
    return 0;
}
