/* crash.c - restore the terminal on a fatal signal.
 *
 * See crash.h.  The handler calls endwin(), which is not
 * async-signal-safe: so does htop, and after a crash the alternative is
 * a terminal left in raw mode.  The message is built with write(2) and
 * fixed strings only.
 */
#include "crash.h"

#include <curses.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static const struct {
    int sig;
    const char *name;
} fatal[] = {
    { SIGSEGV, "SIGSEGV" }, { SIGBUS, "SIGBUS" }, { SIGFPE, "SIGFPE" },
    { SIGABRT, "SIGABRT" },
};

#define NFATAL (sizeof(fatal) / sizeof(fatal[0]))

static struct sigaction saved[NFATAL];
static volatile sig_atomic_t installed;

static void say(const char *s)
{
    ssize_t r = write(STDERR_FILENO, s, strlen(s));

    (void)r;
}

static void on_fatal(int sig)
{
    const char *name = "a fatal signal";

    /* Only the first crash restores: a second one (endwin itself
     * faulting) goes straight to the default action. */
    if (installed) {
        installed = 0;
        endwin();
    }
    for (size_t i = 0; i < NFATAL; i++)
        if (fatal[i].sig == sig)
            name = fatal[i].name;
    say("sproftop: crashed with ");
    say(name);
    say("; the terminal was restored\n");
    /* SA_RESETHAND put the default action back; SA_NODEFER lets it
     * act now, inside the handler. */
    raise(sig);
}

void crash_install(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_fatal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND | SA_NODEFER;
    for (size_t i = 0; i < NFATAL; i++)
        sigaction(fatal[i].sig, &sa, &saved[i]);
    installed = 1;
}

void crash_remove(void)
{
    if (!installed)
        return;
    installed = 0;
    for (size_t i = 0; i < NFATAL; i++)
        sigaction(fatal[i].sig, &saved[i], NULL);
}
