/* help_view.h - the help screen, generated from the request table.
 *
 * Every line comes from REQ_INFO and the key table (request.h), so the
 * help cannot list a key that does nothing or miss one that does.
 */
#ifndef SPROFTOP_HELP_VIEW_H
#define SPROFTOP_HELP_VIEW_H

#include <stdio.h>

#include "view.h"

extern const struct view_ops help_view_ops;

/* Write the key table as Markdown (for README.md / docs), from the same
 * tables as the help screen.  Returns 0, or -1 on a write error. */
int help_print_markdown(FILE *f);

#endif
