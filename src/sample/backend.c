/* backend.c - the helpers backend.h offers a backend. */
#include "backend.h"

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>

void sampler_block_signals(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGQUIT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
}

void sampler_print_unlisted(FILE *f, uint64_t threads, uint64_t samples)
{
    if (threads)
        fprintf(f, "  ... and %" PRIu64 " more exited threads, %" PRIu64
                " samples (the last %u exited are listed)\n", threads,
                samples, SAMPLER_EXITED_LISTED);
}

void sampler_stats_set_exit(struct sampler_stats *st, int status)
{
    if (WIFEXITED(status)) {
        st->exit_code = WEXITSTATUS(status);
        st->exit_known = true;
    } else if (WIFSIGNALED(status)) {
        st->exit_signal = WTERMSIG(status);
        st->exit_known = true;
    }
}

void sampler_join(pthread_t thread, atomic_bool *stop, bool *joined)
{
    atomic_store(stop, true);
    if (!*joined) {
        pthread_join(thread, NULL);
        *joined = true;
    }
}

void sampler_attach_report(struct sampler_attach *a, pthread_mutex_t *lock,
                           pthread_cond_t *cond, int rc, const char *err,
                           int code)
{
    pthread_mutex_lock(lock);
    a->done = rc == 0 ? 1 : -1;
    snprintf(a->err, sizeof a->err, "%s", err);
    a->code = code;
    pthread_cond_broadcast(cond);
    pthread_mutex_unlock(lock);
}

int sampler_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg,
                         struct sampler_attach *a, pthread_mutex_t *lock,
                         pthread_cond_t *cond, char *err, size_t errlen,
                         int *code)
{
    *code = 1;
    if (pthread_create(thread, NULL, fn, arg) != 0) {
        snprintf(err, errlen, "cannot start the sampler thread");
        return -1;
    }
    pthread_mutex_lock(lock);
    while (!a->done)
        pthread_cond_wait(cond, lock);
    int rc = a->done > 0 ? 0 : -1;
    if (rc < 0) {
        snprintf(err, errlen, "%s", a->err);
        *code = a->code;
    }
    pthread_mutex_unlock(lock);
    if (rc < 0)
        pthread_join(*thread, NULL);
    return rc;
}
