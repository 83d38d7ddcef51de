/* launch.h - what becomes of a command sproftop launched (-- CMD) once
 * sampling is over.
 *
 * The sampler launched it and traced it; after collect_finish it is an
 * untraced child of sproftop.  The live view ends it when the user quits
 * (as perf record -- CMD does on Ctrl-C), unless --keep-cmd; a process
 * sproftop attached to (-p) is never passed here.  Called by main.c on
 * the main thread, after the sampler has stopped.
 */
#ifndef SPROFTOP_LAUNCH_H
#define SPROFTOP_LAUNCH_H

#include <stdbool.h>
#include <sys/types.h>

/* How long a command has to end on SIGTERM before SIGKILL. */
#define LAUNCH_GRACE_MS 2000

/* End the launched command `pid` and reap it: SIGTERM (and SIGCONT, in
 * case it is stopped), then SIGKILL when it is still there after
 * grace_ms.  Returns true when it had to be killed.  A pid that is no
 * longer a child of sproftop (already reaped) is left alone. */
bool launch_end(pid_t pid, unsigned grace_ms);

#endif
