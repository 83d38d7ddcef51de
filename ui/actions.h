/* actions.h - what keys and clicks do: the UI's table of requests.
 *
 * Called by ui.c, for every key (real or scripted) and mouse event.  A
 * key becomes a request through the key table (request.c); the UI's own
 * requests (views, filters, sampling, prompts, time and baseline) are
 * acted on here, the rest by the view on screen.  UI thread only.
 */
#ifndef SPROFTOP_ACTIONS_H
#define SPROFTOP_ACTIONS_H

#include <curses.h>

struct ui;

/* One key from the terminal or the script: to the open prompt, else
 * through the key table to the request's action. */
void actions_key(struct ui *ui, int key);

/* One mouse event: wheel scrolls, a click on a tab switches, on a row
 * moves the cursor, a double click is Enter. */
void actions_mouse(struct ui *ui, const MEVENT *me);

#endif
