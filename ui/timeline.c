/* timeline.c - the strip of samples per second under the header.
 *
 * See timeline.h.  The strip shows the window in words,
 * the seconds of the snapshot's ring as block characters (those the
 * views show highlighted, the time cursor as the cursor bar), and the
 * peak rate, or the cursor's time while the cursor is out.
 */
#include "timeline.h"

#include <stdio.h>
#include <stdlib.h>

#include "profile.h"
#include "scope.h"
#include "window.h"

/* The label's room, so the strip does not move as the window changes:
 * "12:00:03 +7s" is the longest (a range of under 100 s). */
#define LABEL_W 12

bool timeline_span(const struct profile *p, uint64_t *first, uint32_t *n)
{
    struct profile_timespan sp;

    profile_time_span(p, &sp);
    if (!sp.on || !sp.any)
        return false;
    *first = sp.first;
    *n = (uint32_t)(sp.last - sp.first + 1);
    return true;
}

uint32_t timeline_step(uint32_t n, int cols)
{
    if (cols < 1)
        cols = 1;
    return n <= (uint32_t)cols ? 1 : (n + (uint32_t)cols - 1) / (uint32_t)cols;
}

uint32_t timeline_columns(const uint64_t *v, uint32_t n, uint32_t step,
                          uint64_t *out, uint64_t *max)
{
    uint32_t cols = 0;

    *max = 0;
    for (uint32_t i = 0; i < n; i += step, cols++) {
        out[cols] = 0;
        for (uint32_t k = i; k < n && k < i + step; k++)
            out[cols] += v[k];
        if (out[cols] > *max)
            *max = out[cols];
    }
    return cols;
}

const char *timeline_glyph(const struct theme *t, uint64_t sum, uint64_t max)
{
    if (!sum || !max)
        return t->g.bars[0];
    uint64_t level = (sum * 8 + max - 1) / max;
    return t->g.bars[level < 1 ? 1 : level > 8 ? 8 : level];
}

const char *timeline_spark(const struct theme *t, const uint64_t *c,
                           uint32_t ncols, uint64_t max, char *buf,
                           size_t cap)
{
    size_t o = 0;

    buf[0] = '\0';
    for (uint32_t i = 0; i < ncols; i++) {
        int w = snprintf(buf + o, cap - o, "%s", timeline_glyph(t, c[i], max));

        if (w < 0 || (size_t)w >= cap - o)
            break;
        o += (size_t)w;
    }
    return buf;
}

int timeline_rows(const struct profile *snap)
{
    uint64_t first;
    uint32_t n;

    /* Below 10 lines the body needs every row. */
    return LINES >= 10 && snap && profile_time_enabled(snap) &&
                   timeline_span(snap, &first, &n)
               ? 1 : 0;
}

void timeline_draw(struct timeline *tl, const struct theme *t,
                   const struct profile *snap, const struct scope *sc, int y)
{
    uint64_t first, max, peak = 0;
    uint32_t n;
    char label[64], right[64];

    if (!timeline_span(snap, &first, &n))
        return;
    uint64_t *v = malloc(n * sizeof(*v)), *c = malloc((n + 1) * sizeof(*c));
    if (!v || !c)
        goto out;
    profile_time_series(snap, PROFILE_NONE, first, n, v);
    for (uint32_t i = 0; i < n; i++)
        if (v[i] > peak)
            peak = v[i];
    snprintf(right, sizeof(right), "peak %llu/s",
             (unsigned long long)profile_weight_count(snap, peak));

    scope_label(sc, snap, label, sizeof(label));
    int lw = draw_text(t, y, 1, COLS - 2, label, t->attr[UC_VALUE], 0);
    int x = 1 + (lw > LABEL_W ? lw : LABEL_W) + 2;
    int room = COLS - x - 1, rw = text_width(t, right) + 2;
    /* One column a second comes first; the peak only where it fits. */
    if ((int)n + rw <= room || (n > (uint32_t)room && room - rw >= 8))
        room -= rw;
    else
        right[0] = '\0';
    tl->step = timeline_step(n, room);
    uint32_t cols = timeline_columns(v, n, tl->step, c, &max);
    for (uint32_t i = 0; i < cols; i++) {
        uint64_t s0 = first + (uint64_t)i * tl->step;
        uint64_t s1 = s0 + tl->step - 1;
        attr_t a = t->attr[UC_INFO];

        if (scope_shows(sc, snap, s0) || scope_shows(sc, snap, s1))
            a = t->attr[UC_SELECT];
        if (sc->cursor_on && sc->cursor >= s0 && sc->cursor <= s1)
            a = t->attr[UC_CURSOR];
        draw_text(t, y, x + (int)i, 1, timeline_glyph(t, c[i], max), a, 0);
    }
    if (right[0])
        draw_text(t, y, x + (int)cols + 2, COLS - x - (int)cols - 2, right,
                  t->attr[UC_DIM], 0);
out:
    free(v);
    free(c);
}
