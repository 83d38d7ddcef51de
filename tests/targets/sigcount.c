/* sigcount.c - counts the signals it is sent, while two threads spin.
 *
 *   usage: sigcount COUNTFILE [SECONDS]
 *
 * SA_SIGINFO handlers count SIGRTMIN+1 (and sum the si_value each carries,
 * so a signal delivered twice or lost shows) and SIGUSR1.  The main thread
 * spins in sigcount_spin, a worker "sigcount-spin" in worker_spin, so
 * either may be the one a process-directed signal is delivered to.
 * Whenever a count changes, the main thread replaces COUNTFILE (written to
 * a temporary file, then renamed) with
 *     rt N rtsum S usr1 M
 * so a test can wait for each SIGUSR1 to be handled before sending the
 * next one (SIGUSR1 does not queue).  SIGTERM, or the end of SECONDS,
 * prints that line on stdout and exits 0.  (tests/reliability_signals.t)
 */
#include "common.h"

#include <stdatomic.h>

static atomic_uint rt_count;
static atomic_ulong rt_sum;
static atomic_uint usr1_count;
static volatile sig_atomic_t term_seen;
static double deadline;

static void on_rt(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)uc;
    atomic_fetch_add(&rt_count, 1);
    atomic_fetch_add(&rt_sum, (unsigned long)si->si_value.sival_int);
}

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)si, (void)uc;
    atomic_fetch_add(&usr1_count, 1);
}

static void on_term(int sig)
{
    (void)sig;
    term_seen = 1;
}

/* ~0.1 ms of arithmetic between two looks at the counters. */
TARGET_SPIN_FN(sigcount_spin, 6364136223846793005ULL,
               1442695040888963407ULL, 50000)

SP_FRAME void worker_spin(void)
{
    uint64_t x = 7;

    while (!term_seen && !target_expired(deadline))
        TARGET_SPIN(x, 2862933555777941757ULL, 3037000493ULL, 50000);
}

TARGET_THREAD(worker_main, "sigcount-spin", worker_spin())

static void format_counts(char *buf, size_t len)
{
    snprintf(buf, len, "rt %u rtsum %lu usr1 %u\n", atomic_load(&rt_count),
             atomic_load(&rt_sum), atomic_load(&usr1_count));
}

/* Replace `path` with the current counts; the rename makes each version
 * appear whole to a reader. */
static int write_counts(const char *path)
{
    char tmp[4096], line[128];
    FILE *f;

    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    format_counts(line, sizeof line);
    f = fopen(tmp, "w");
    if (!f)
        return -1;
    fputs(line, f);
    if (fclose(f) != 0)
        return -1;
    return rename(tmp, path);
}

static int install(int sig, void (*fn)(int, siginfo_t *, void *))
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = fn;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    return sigaction(sig, &sa, NULL);
}

int main(int argc, char **argv)
{
    struct sigaction sa;
    pthread_t worker;
    unsigned last_rt = ~0u, last_usr1 = ~0u;
    char line[128];

    target_usage(argc, 2, 3, "sigcount COUNTFILE [SECONDS]");
    deadline = target_deadline_arg("sigcount", argc, argv, 2);
    if (install(SIGRTMIN + 1, on_rt) != 0 || install(SIGUSR1, on_usr1) != 0) {
        perror("sigcount: sigaction");
        return 1;
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    worker = target_start("sigcount", worker_main, NULL);
    while (!term_seen && !target_expired(deadline)) {
        unsigned rt = atomic_load(&rt_count), usr1 = atomic_load(&usr1_count);

        if (rt != last_rt || usr1 != last_usr1) {
            if (write_counts(argv[1]) != 0) {
                fprintf(stderr, "sigcount: cannot write %s: %s\n", argv[1],
                        strerror(errno));
                return 1;
            }
            last_rt = rt;
            last_usr1 = usr1;
        }
        sigcount_spin();
    }
    term_seen = 1;
    pthread_join(worker, NULL);
    write_counts(argv[1]);
    format_counts(line, sizeof line);
    fputs(line, stdout);
    return 0;
}
