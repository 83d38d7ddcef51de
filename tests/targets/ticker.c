/* ticker.c - one busy thread, and threads that wake up every 5 ms.
 *
 *   usage: ticker [SECONDS]
 *
 *   main:         main -> busy_loop (always on a CPU)
 *   "tick-epoll": tick_epoll -> epoll_wait(5 ms timeout), in a loop
 *   "tick-sleep": tick_sleep -> nanosleep(5 ms), in a loop
 *
 * The tick threads run a few microseconds per wake-up (~0.1% of a CPU)
 * and are blocked the rest of the time.  An on-CPU sampler must see them
 * about that rarely, and must never interrupt them while they wait:
 * epoll_wait returns EINTR when a tracer interrupts it, and each EINTR
 * prints "ticker: EINTR in CALL" on stderr (tests/engine_oncpu.t).
 * Runs forever, or SECONDS then exits 0.
 */
#include "common.h"

#include <sys/epoll.h>

#define TICK_MS 5

static double deadline;

SP_FRAME void busy_loop(void)
{
    uint64_t x = 1;

    do
        TARGET_SPIN(x, 6364136223846793005ULL, 7, 100000);
    while (!target_expired(deadline));
}

SP_FRAME void tick_epoll(int ep)
{
    struct epoll_event ev;

    while (!target_expired(deadline))
        if (epoll_wait(ep, &ev, 1, TICK_MS) < 0 && errno == EINTR)
            fprintf(stderr, "ticker: EINTR in epoll_wait\n");
}

SP_FRAME void tick_sleep(void)
{
    while (!target_expired(deadline)) {
        struct timespec ts = { 0, TICK_MS * 1000000L };
        if (nanosleep(&ts, NULL) != 0 && errno == EINTR)
            fprintf(stderr, "ticker: EINTR in nanosleep\n");
    }
}

static void *epoll_thread(void *arg)
{
    int ep = epoll_create1(0);

    (void)arg;
    pthread_setname_np(pthread_self(), "tick-epoll");
    if (ep < 0) {
        perror("ticker: epoll_create1");
        exit(1);
    }
    tick_epoll(ep);
    return NULL;
}

TARGET_THREAD(sleep_thread, "tick-sleep", tick_sleep())

int main(int argc, char **argv)
{
    target_usage(argc, 1, 2, "ticker [SECONDS]");
    deadline = target_deadline_arg("ticker", argc, argv, 1);
    pthread_t t1 = target_start("ticker", epoll_thread, NULL);
    pthread_t t2 = target_start("ticker", sleep_thread, NULL);
    busy_loop();
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    return 0;
}
