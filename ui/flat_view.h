/* flat_view.h - the flat table: one row per function, sortable.
 *
 * Rows come from model->flat (thread frames left out), minus the
 * functions the hide thresholds hide, which are counted in a dimmed last
 * row.  Sorted by self, total or name; a request reverses the order.
 */
#ifndef SPROFTOP_FLAT_VIEW_H
#define SPROFTOP_FLAT_VIEW_H

#include "view.h"

extern const struct view_ops flat_view_ops;

#endif
