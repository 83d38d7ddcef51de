/* tree_view.h - the collapsible call tree (top-down, or bottom-up inverted).
 *
 * Rows are thread nodes and their descendants from model->tree, children
 * sorted by total samples.  Expanded nodes are remembered by
 * profile_node_key, so the same stacks stay open across refreshes and
 * filters.  Children under the hide-subs share of all samples fold into a
 * dimmed "... N hidden" row.
 */
#ifndef SPROFTOP_TREE_VIEW_H
#define SPROFTOP_TREE_VIEW_H

#include "view.h"

extern const struct view_ops tree_view_ops;

#endif
