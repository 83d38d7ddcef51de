/* blocked.c - threads blocked in the kernel in known call chains.
 *
 *   usage: blocked [SECONDS]
 *
 * The main thread blocks in main -> wait_outer -> wait_inner -> read() on
 * a pipe nobody writes to; a second thread, "blocked-cond", blocks in
 * cond_thread -> cond_outer -> cond_inner -> pthread_cond_wait().  Nothing
 * ever runs, so every snapshot (sproftop --dump, eu-stack -p) of it must
 * show the same stacks (tests/engine_dump.t).  Blocks forever, or exits 0
 * after SECONDS.
 */
#include "common.h"

#include <pthread.h>

static int pipe_fds[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static int signalled;

SP_FRAME int wait_inner(void)
{
    char c;
    ssize_t n;

    do
        n = read(pipe_fds[0], &c, 1);
    while (n < 0 && errno == EINTR);
    return (int)n;
}

SP_FRAME int wait_outer(void)
{
    return wait_inner() + 1;
}

SP_FRAME int cond_inner(void)
{
    pthread_mutex_lock(&lock);
    while (!signalled)
        pthread_cond_wait(&never, &lock);
    pthread_mutex_unlock(&lock);
    return signalled;
}

SP_FRAME int cond_outer(void)
{
    return cond_inner() + 1;
}

static void *cond_thread(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "blocked-cond");
    cond_outer();
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t;

    if (argc > 2) {
        fprintf(stderr, "usage: blocked [SECONDS]\n");
        return 2;
    }
    if (argc > 1)
        target_exit_after(target_parse_seconds("blocked", argv[1]));
    if (pipe(pipe_fds) != 0) {
        perror("blocked: pipe");
        return 1;
    }
    if (pthread_create(&t, NULL, cond_thread, NULL) != 0) {
        fprintf(stderr, "blocked: pthread_create failed\n");
        return 1;
    }
    return wait_outer() == 1 ? 0 : 1;
}
