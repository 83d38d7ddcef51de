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

#include <pthread.h>
#include <stdint.h>
#include <sys/epoll.h>

#define TICK_MS 5

static double deadline;
static volatile uint64_t sink;

SP_FRAME void busy_loop(void)
{
    uint64_t x = 1;

    do {
        for (int i = 0; i < 100000; i++)
            x = x * 6364136223846793005ULL + 7;
        sink = x;
    } while (!target_expired(deadline));
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

static void *sleep_thread(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "tick-sleep");
    tick_sleep();
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t1, t2;

    if (argc > 2) {
        fprintf(stderr, "usage: ticker [SECONDS]\n");
        return 2;
    }
    if (argc > 1)
        deadline = target_deadline(target_parse_seconds("ticker", argv[1]));
    if (pthread_create(&t1, NULL, epoll_thread, NULL) != 0 ||
        pthread_create(&t2, NULL, sleep_thread, NULL) != 0) {
        fprintf(stderr, "ticker: pthread_create failed\n");
        return 1;
    }
    busy_loop();
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    return 0;
}
