/* callers_view.h - callers and callees of the selected function.
 *
 * The butterfly of one function (ctx->selected): its callers above, its
 * own row, its callees below, each edge with its Local% as in Racket's
 * text renderer (edge time / the function's total).  Enter on a caller or
 * callee selects it, Backspace goes back through the history.
 */
#ifndef SPROFTOP_CALLERS_VIEW_H
#define SPROFTOP_CALLERS_VIEW_H

#include "view.h"

extern const struct view_ops callers_view_ops;

#endif
