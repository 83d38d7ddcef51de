/* frame.h - the frame around the view: header, tabs, footer, messages.
 *
 * Called by ui.c.  frame_draw lays the screen out from the top: the
 * header (up to four rows, the least important dropped first on a short
 * terminal), the timeline strip when the data has times, the tab bar
 * with the view's own status on its right, the view's column header and
 * body, the message or prompt line and the footer of keys, generated
 * from the request table.  Then one refresh().  It records where the
 * tab bar and the body went in the tabs, for mouse clicks.  UI thread
 * only.
 */
#ifndef SPROFTOP_FRAME_H
#define SPROFTOP_FRAME_H

struct ui;

/* Erase and draw the whole frame, then refresh the terminal once. */
void frame_draw(struct ui *ui);

/* Write the screen as curses holds it to `path`, one row per line,
 * trailing blanks trimmed (tig's test dump).  0, or -1 with errno set. */
int frame_dump(const char *path);

#endif
