/* code_view.h - the source of the selected function, annotated.
 *
 * Like stackprof's print_source: the function's source file (the frame's
 * file, opened as is) with per-line self and total samples in a gutter,
 * hot lines coloured, scrolled to the hottest line.  When the file cannot
 * be read, per-address counts with symbol offsets (addr - frame.addr).
 */
#ifndef SPROFTOP_SOURCE_VIEW_H
#define SPROFTOP_SOURCE_VIEW_H

#include "view.h"

extern const struct view_ops source_view_ops;

#endif
