/* backend.c - the helpers backend.h offers a backend. */
#include "backend.h"

#include <pthread.h>
#include <signal.h>
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
