/* launch.h - the one policy that ends a command sproftop launched
 * (-- CMD), for batch mode and the live view alike.
 *
 * A launched command lives as long as the session, as under perf record
 * -- CMD:
 *   - when it exits first, the session ends with it (batch mode: sproftop
 *     exits with its status);
 *   - when the session ends first (the live view is quit, the -d
 *     duration is over, or sproftop gets SIGINT, SIGTERM, SIGHUP or
 *     SIGQUIT), it is ended: the stop signal sproftop got, passed on as a
 *     shell would, or SIGTERM when none (and SIGCONT, should it be
 *     stopped); then SIGKILL when it is still running LAUNCH_GRACE_MS
 *     later, with one line on stderr saying so;
 *   - --keep-cmd leaves it running, untraced, in both modes.
 * A process sproftop attached to (-p) is never passed here.  While the
 * session runs the sampler reaps a command that exits (that is how its
 * status is known); afterwards only this module waits for it, never
 * longer than the grace.  Main thread, after the source's finish (the
 * sampler has let the command go).
 */
#ifndef SPROFTOP_LAUNCH_H
#define SPROFTOP_LAUNCH_H

#include <stdbool.h>

struct source;

/* How long a command has to end on the signal before SIGKILL. */
#define LAUNCH_GRACE_MS 2000

/* Apply the policy to the command src launched, once the session is over
 * (src finished, not closed).  sig: the stop signal that ended the
 * session, 0 when none; keep: --keep-cmd; name: the command, for the
 * message.  Returns the exit status batch mode uses: the command's (its
 * exit code, or 128 + the signal that killed it) when it ended the
 * session or was ended by a stop signal passed on; 0 when the session
 * ended by its own rule (the duration, q) or the command is kept. */
int launch_finish(struct source *src, int sig, bool keep, const char *name);

#endif
