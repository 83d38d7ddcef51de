/* threads_view.h - the threads of the profile, and the thread filter.
 *
 * One row per thread of the snapshot (always all of them, whatever the
 * filter): TID, name, samples, share and the thread's state read from
 * /proc for a live target.  Enter restricts every view to that thread.
 */
#ifndef SPROFTOP_THREADS_VIEW_H
#define SPROFTOP_THREADS_VIEW_H

#include "view.h"

extern const struct view_ops threads_view_ops;

#endif
