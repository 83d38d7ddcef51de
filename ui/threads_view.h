/* threads_view.h - the threads of the profile, and the thread filter.
 *
 * One row per thread of the snapshot (all of them, whatever the thread
 * filter; with a process filter, that process's), in a stable order (by
 * TID; o sorts by samples or %CPU): TID, name, samples, share, and for
 * a live target the thread's %CPU, CPU time and state read from /proc.
 * Enter (or f) restricts every view to that thread.
 */
#ifndef SPROFTOP_THREADS_VIEW_H
#define SPROFTOP_THREADS_VIEW_H

#include "view.h"

extern const struct view_ops threads_view_ops;

#endif
