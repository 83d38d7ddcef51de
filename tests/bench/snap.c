/* snap.c - one reading of a benchmark target, all taken within
 * microseconds of each other, for run.sh's on/off windows.
 *
 *   usage: snap PROGRESS_FILE PID
 *   prints: UNITS RUN_NS WAIT_NS NOW_NS THREADS
 *
 * UNITS is the sum of the target's progress slots (progress.h); RUN_NS and
 * WAIT_NS the sums over its threads of schedstat's time on a CPU and time
 * waiting for one; NOW_NS CLOCK_MONOTONIC.  Read by one process in one go,
 * unlike a chain of od, cat and date, whose forks a loaded machine spreads
 * over tens of milliseconds: that skew alone blurred a 1 s window by
 * several percent.
 */
#include "progress.h"

#include <dirent.h>
#include <inttypes.h>
#include <time.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: snap PROGRESS_FILE PID\n");
        return 2;
    }
    struct progress_slot *slots = progress_map(argv[1]);
    char path[64];
    snprintf(path, sizeof path, "/proc/%s/task", argv[2]);
    DIR *d = opendir(path);
    if (!d) {
        perror(path);
        return 1;
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t units = 0;
    for (int i = 0; i < PROGRESS_SLOTS; i++)
        units += slots[i].count;
    unsigned long long run = 0, wait = 0;
    unsigned threads = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char f[sizeof path + 300];
        snprintf(f, sizeof f, "%s/%s/schedstat", path, e->d_name);
        FILE *fp = fopen(f, "r");
        unsigned long long r, w;
        if (fp && fscanf(fp, "%llu %llu", &r, &w) == 2) {
            run += r;
            wait += w;
            threads++;
        }
        if (fp)
            fclose(fp);
    }
    closedir(d);
    printf("%" PRIu64 " %llu %llu %llu %u\n", units, run, wait,
           (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec, threads);
    return 0;
}
