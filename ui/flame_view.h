/* flame_view.h - the flame graph in the terminal, as an icicle.
 *
 * The model's tree (the one the tree view shows: same window, thread
 * filter, focus, inversion) drawn root at the top, one row per depth,
 * each frame as wide as its samples.  Enter zooms into the frame under
 * the cursor, Backspace zooms back out; the arrows move to the parent,
 * the hottest child and the neighbours on the row; a search colours the
 * frames it matches.  Frames are coloured by module, by heat, or with a
 * baseline by their change.  The layout follows the terminal's width.
 */
#ifndef SPROFTOP_FLAME_VIEW_H
#define SPROFTOP_FLAME_VIEW_H

#include "view.h"

extern const struct view_ops flame_view_ops;

#endif
