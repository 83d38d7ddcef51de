/* code_view.h - the code of the selected function, annotated.
 *
 * Two ways to read it, x switching between them:
 *   - its source lines: like stackprof's print_source, the function's
 *     source file (the frame's file, opened as is) with per-line self and
 *     total samples in a gutter, hot lines coloured, scrolled to the
 *     hottest line; when the file cannot be read, per-address counts
 *     with symbol offsets (addr - frame.addr);
 *   - its instructions (a, perf top's annotate): the machine code the
 *     source's annotate op reads from the module's file, each source line
 *     over its instructions, each with its share of the function's self
 *     samples, the cursor on the hottest (e: the next-hottest), jump
 *     targets as offsets with an arrow, calls by name (Enter opens the
 *     callee, Backspace comes back), inlined code labelled; without
 *     machine code, one line says why over the per-address counts.
 * Both count the samples again at each refresh: the view is live.
 */
#ifndef SPROFTOP_SOURCE_VIEW_H
#define SPROFTOP_SOURCE_VIEW_H

#include "view.h"

extern const struct view_ops source_view_ops;

/* Show instructions (insns: annotate) or source lines from the next
 * refresh on, the cursor on the hottest: what a does before switching to
 * the view (source lines for a script function, which has no machine
 * code).  UI thread. */
void code_view_annotate(struct view *v, bool insns);

#endif
