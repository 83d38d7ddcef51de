/* crash.h - leave the terminal usable when sproftop crashes.
 *
 * While the TUI owns the terminal it is in raw mode on the alternate
 * screen; a crash would leave the shell there, unusable until `reset`.
 * Like htop's CRT_handleSIGSEGV, the fatal signals SIGSEGV, SIGBUS,
 * SIGFPE and SIGABRT are caught: endwin() restores the terminal, one line
 * on stderr names the signal, and the signal is raised again with its
 * default action, so the exit status (and any core dump) are the crash's
 * own.  Called by ui.c on the UI thread; the handler itself may run on
 * any thread (the one that crashed).
 */
#ifndef SPROFTOP_CRASH_H
#define SPROFTOP_CRASH_H

/* Catch the fatal signals; call once curses has the terminal. */
void crash_install(void);

/* Put the previous handlers back; call before giving the terminal back
 * (endwin) on a normal exit. */
void crash_remove(void);

#endif
