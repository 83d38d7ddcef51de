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

TARGET_THREAD(cond_thread, "blocked-cond", cond_outer())

int main(int argc, char **argv)
{
    target_usage(argc, 1, 2, "blocked [SECONDS]");
    target_exit_after_arg("blocked", argc, argv, 1);
    target_pipe("blocked", pipe_fds);
    target_start("blocked", cond_thread, NULL);
    return wait_outer() == 1 ? 0 : 1;
}
