/* procs_view.h - the processes of the profile, and the process filter.
 *
 * top's process list: one row per process of the snapshot (always all of
 * them, whatever the filter; one per command when J merged them), its
 * PID, command, share of the samples, samples and thread count, and for
 * a live process its %CPU, CPU time (TIME+) and state, as top shows them.  Rows
 * are by share, hottest first, but a row passes the one above it only
 * when its share is clearly larger, so near-equal processes do not swap
 * places on every refresh (o sorts by PID instead).  / matches the
 * command and the PID; Enter (or f) restricts every view to that
 * process, A shows all of them again.
 */
#ifndef SPROFTOP_PROCS_VIEW_H
#define SPROFTOP_PROCS_VIEW_H

#include "view.h"

extern const struct view_ops procs_view_ops;

#endif
