/* export_svg.c - an interactive flame graph as one self-contained SVG
 * (FORMATS.md section 9).
 *
 * The call tree drawn bottom-up: "all" at the bottom, one frame per
 * thread above it, then the stacks, each frame as wide as its total
 * samples; siblings sorted by name so the picture does not depend on
 * sampling order.  Inline JavaScript (no network, no external file) adds:
 *   - hover: the frame's title (name; module and file:line; samples and
 *     share) in the status line, and as the native tooltip;
 *   - click: zoom on a frame (its ancestors span the width, dimmed);
 *     "Reset Zoom" or a click on the dimmed "all" undoes it;
 *   - "Search" (or Ctrl-F): a regular expression; matching frames turn
 *     magenta and the share of samples under them is shown.
 * Viewers without scripts still get the full graph, labels and tooltips.
 *
 * Each frame is <g class="f" data-x data-w data-d> with x and width in
 * samples and the depth, holding <title>, <rect> and <text>.  Frames
 * narrower than 0.1 pixel at full width are left out with their subtrees
 * (as flamegraph.pl does), so the file stays small for large profiles.
 *
 * With a baseline (export_opts.baseline) the graph is differential, as
 * flamegraph.pl draws difffolded output: widths are the profile's
 * samples, and each frame is red when the samples it was itself running
 * (self) grew since the baseline, blue when they shrank, the more
 * saturated the larger the change relative to the largest one
 * (flamegraph.pl's colour scale, on shares rather than counts, as
 * difffolded.pl -n normalises, so profiles of different lengths compare).
 * Frames only the baseline has have no width and are not drawn.
 *
 * Names are XML-escaped (& < > " '); control characters become spaces
 * and invalid UTF-8 bytes (and U+FFFE, U+FFFF) U+FFFD, so the document
 * is well-formed whatever the symbols hold.
 */
#include "export.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "profile.h"
#include "tree_walk.h"
#include "util.h"

#define SVG_WIDTH 1200
#define SVG_PAD 10        /* left and right margins */
#define SVG_TOP 64        /* title, subtitle and buttons */
#define SVG_BOTTOM 40     /* status line */
#define FRAME_H 16
#define FONT_SIZE 12
#define CHAR_W 0.59       /* average glyph width per font size */
#define MIN_WIDTH_PX 0.1
#define STR_(x) #x
#define STR(x) STR_(x)    /* the script shares the geometry above */

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* XML's five entities. */
static const char *const entity[] = {
    ['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;", ['"'] = "&quot;",
    ['\''] = "&apos;",
};

/* Write at most max_chars characters of s, XML-escaped; returns how many
 * characters s has in all. */
static size_t xml_text_n(FILE *f, const char *str, size_t max_chars)
{
    const unsigned char *s = (const unsigned char *)str;
    const unsigned char *end = s + strlen(str);
    size_t chars = 0;

    while (s < end) {
        uint32_t cp;
        size_t n = util_utf8_decode(s, (size_t)(end - s), &cp);
        bool put = chars < max_chars;

        chars++;
        if (n == 0 || cp == 0xfffe || cp == 0xffff) {
            /* not UTF-8, or a character XML forbids: U+FFFD */
            if (put)
                fputs("\xef\xbf\xbd", f);
            s += n ? n : 1;
            continue;
        }
        if (put && cp < ARRAY_LEN(entity) && entity[cp])
            fputs(entity[cp], f);
        else if (put && (cp < 0x20 || cp == 0x7f))
            putc(' ', f);
        else if (put)
            fwrite(s, 1, n, f);
        s += n;
    }
    return chars;
}

static void xml_text(FILE *f, const char *s)
{
    xml_text_n(f, s, SIZE_MAX);
}

/* The script.  Frames are found by class; geometry is recomputed from
 * the data- attributes on zoom.  Kept free of "]]>" (it sits in CDATA). */
static const char SCRIPT[] =
    "var W = " STR(SVG_WIDTH) ", PAD = " STR(SVG_PAD) ", FONT = "
    STR(FONT_SIZE) ", CHARW = " STR(CHAR_W) ";\n"
    "var frames = [], total = 0, zoomed = null, details, matched, unzoom;\n"
    "function nameOf(g) {\n"
    "  var t = g.getElementsByTagName('title')[0].textContent;\n"
    "  var nl = t.indexOf('\\n');\n"
    "  return nl < 0 ? t : t.substring(0, nl);\n"
    "}\n"
    "function fit(name, px) {\n"
    "  var n = Math.floor((px - 6) / (FONT * CHARW));\n"
    "  if (n < 3) return '';\n"
    "  return name.length <= n ? name : name.substring(0, n - 2) + '..';\n"
    "}\n"
    "function place(o, px, pw) {\n"
    "  o.rect.setAttribute('x', (PAD + px).toFixed(2));\n"
    "  o.rect.setAttribute('width', pw.toFixed(2));\n"
    "  o.text.setAttribute('x', (PAD + px + 3).toFixed(2));\n"
    "  o.text.textContent = fit(o.name, pw);\n"
    "}\n"
    "function frameOf(node) {\n"
    "  while (node && node.getAttribute) {\n"
    "    var c = node.getAttribute('class');\n"
    "    if (c && c.split(' ').indexOf('f') >= 0) return node;\n"
    "    node = node.parentNode;\n"
    "  }\n"
    "  return null;\n"
    "}\n"
    "function find(g) {\n"
    "  for (var i = 0; i < frames.length; i++)\n"
    "    if (frames[i].g === g) return frames[i];\n"
    "  return null;\n"
    "}\n"
    "function zoom(z) {\n"
    "  var scale = (W - 2 * PAD) / z.w;\n"
    "  zoomed = z;\n"
    "  unzoom.setAttribute('class', 'btn');\n"
    "  for (var i = 0; i < frames.length; i++) {\n"
    "    var o = frames[i];\n"
    "    if (o.d >= z.d && o.x >= z.x && o.x + o.w <= z.x + z.w) {\n"
    "      o.g.setAttribute('class', 'f');\n"
    "      place(o, (o.x - z.x) * scale, o.w * scale);\n"
    "    } else if (o.d < z.d && o.x <= z.x && o.x + o.w >= z.x + z.w) {\n"
    "      o.g.setAttribute('class', 'f parent');\n"
    "      place(o, 0, W - 2 * PAD);\n"
    "    } else {\n"
    "      o.g.setAttribute('class', 'f hidden');\n"
    "    }\n"
    "  }\n"
    "}\n"
    "function reset() {\n"
    "  zoomed = null;\n"
    "  unzoom.setAttribute('class', 'btn hidden');\n"
    "  var scale = (W - 2 * PAD) / total;\n"
    "  for (var i = 0; i < frames.length; i++) {\n"
    "    frames[i].g.setAttribute('class', 'f');\n"
    "    place(frames[i], frames[i].x * scale, frames[i].w * scale);\n"
    "  }\n"
    "}\n"
    "function search() {\n"
    "  var term = window.prompt('Search for (regular expression):', '');\n"
    "  if (term === null) return;\n"
    "  var re = null, ranges = [], sum = 0, end = -1;\n"
    "  if (term !== '') {\n"
    "    try { re = new RegExp(term); }\n"
    "    catch (e) { window.alert('Bad regular expression: ' + e.message); "
    "return; }\n"
    "  }\n"
    "  for (var i = 0; i < frames.length; i++) {\n"
    "    var o = frames[i], hit = re !== null && re.test(o.name);\n"
    "    o.rect.setAttribute('fill', hit ? 'rgb(230,0,230)' : o.fill);\n"
    "    if (hit) ranges.push([o.x, o.x + o.w]);\n"
    "  }\n"
    "  ranges.sort(function (a, b) { return a[0] - b[0]; });\n"
    "  for (var k = 0; k < ranges.length; k++) {\n"
    "    var a = Math.max(ranges[k][0], end), b = ranges[k][1];\n"
    "    if (b > a) sum += b - a;\n"
    "    if (b > end) end = b;\n"
    "  }\n"
    "  matched.textContent = re === null ? ' ' : 'Matched: ' +\n"
    "    (total ? 100 * sum / total : 0).toFixed(2) + '% of samples';\n"
    "}\n"
    "function init(evt) {\n"
    "  details = document.getElementById('details');\n"
    "  matched = document.getElementById('matched');\n"
    "  unzoom = document.getElementById('unzoom');\n"
    "  var gs = document.getElementById('frames').getElementsByTagName('g');\n"
    "  for (var i = 0; i < gs.length; i++) {\n"
    "    var g = gs[i], r = g.getElementsByTagName('rect')[0];\n"
    "    var o = { g: g, rect: r, text: g.getElementsByTagName('text')[0],\n"
    "      x: +g.getAttribute('data-x'), w: +g.getAttribute('data-w'),\n"
    "      d: +g.getAttribute('data-d'), fill: r.getAttribute('fill'),\n"
    "      name: nameOf(g) };\n"
    "    if (o.d === 0 && o.w > total) total = o.w;\n"
    "    frames.push(o);\n"
    "  }\n"
    "  var box = document.getElementById('frames');\n"
    "  box.addEventListener('click', function (e) {\n"
    "    var o = find(frameOf(e.target));\n"
    "    if (!o) return;\n"
    "    if (o.d === 0 || o === zoomed) reset(); else zoom(o);\n"
    "  });\n"
    "  box.addEventListener('mouseover', function (e) {\n"
    "    var g = frameOf(e.target);\n"
    "    if (g) details.textContent = g.getElementsByTagName('title')[0]\n"
    "      .textContent.split('\\n').join('  |  ');\n"
    "  });\n"
    "  box.addEventListener('mouseout', function () {\n"
    "    details.textContent = ' ';\n"
    "  });\n"
    "  unzoom.addEventListener('click', reset);\n"
    "  document.getElementById('search').addEventListener('click', search);\n"
    "  window.addEventListener('keydown', function (e) {\n"
    "    if ((e.ctrlKey || e.metaKey) && (e.key === 'f' || e.key === 'F')) {\n"
    "      e.preventDefault();\n"
    "      search();\n"
    "    }\n"
    "  });\n"
    "}\n";

static const char STYLE[] =
    "text { font-family: Verdana, Arial, sans-serif; font-size: 12px; "
    "fill: rgb(0,0,0); }\n"
    "#title { text-anchor: middle; font-size: 17px; }\n"
    "#subtitle { text-anchor: middle; fill: rgb(80,80,80); }\n"
    ".btn { cursor: pointer; fill: rgb(0,0,160); }\n"
    ".hidden { display: none; }\n"
    ".parent { opacity: 0.5; }\n"
    ".f text { pointer-events: none; }\n"
    ".f:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; "
    "cursor: pointer; }\n";

struct svg_ctx {
    const struct profile *p;
    FILE *f;
    uint64_t all;         /* root total */
    double scale;         /* pixels per sample */
    uint64_t min_w;       /* narrowest frame drawn, in samples */
    uint32_t max_depth;
    const struct diff_pair *diff; /* with a baseline, else NULL */
    uint64_t ball;        /* the baseline's samples */
    double maxdelta;      /* largest change of share of a frame drawn */
    bool visit;           /* the walk writes frames (else it measures) */
};

/* A node's change of self share since the baseline (fractions): what
 * flamegraph.pl colours by, the samples the frame itself was running. */
static double node_delta(const struct svg_ctx *c, uint32_t id)
{
    uint32_t b = c->diff->match[id];
    double now = c->all ? (double)profile_node(c->p, id)->self /
                              (double)c->all : 0;
    double then = b == PROFILE_NONE || !c->ball
                      ? 0
                      : (double)profile_node(c->diff->base, b)->self /
                            (double)c->ball;

    return now - then;
}

/* flamegraph.pl's color_scale: white to red for growth, to blue for
 * shrinkage. */
static void diff_color(const struct svg_ctx *c, uint32_t id, char *out,
                       size_t cap)
{
    double d = node_delta(c, id), max = c->maxdelta;
    unsigned r = 255, g = 255, b = 255;

    if (max > 0 && d > 0)
        g = b = (unsigned)(210 * (max - d) / max);
    else if (max > 0 && d < 0)
        r = g = (unsigned)(210 * (max + d) / max);
    snprintf(out, cap, "rgb(%u,%u,%u)", r, g, b);
}

/* Children sorted by name (then frame id). */
static int cmp_child(const void *a, const void *b, void *ctx)
{
    const struct profile *p = ctx;
    const struct profile_node *x = profile_node(p, *(const uint32_t *)a);
    const struct profile_node *y = profile_node(p, *(const uint32_t *)b);
    int c = strcmp(profile_frame(p, x->frame)->name,
                   profile_frame(p, y->frame)->name);

    if (c)
        return c;
    return (x->frame > y->frame) - (x->frame < y->frame);
}

static void color(const struct frame_desc *d, uint32_t depth, char *out,
                  size_t cap)
{
    uint64_t h;

    if (depth == 0) {
        snprintf(out, cap, "rgb(200,200,200)");
        return;
    }
    if (d->kind == FRAME_THREAD) {
        snprintf(out, cap, "rgb(170,180,220)");
        return;
    }
    if (d->kind == FRAME_SPECIAL) {
        snprintf(out, cap, "rgb(180,180,180)");
        return;
    }
    if (profile_frame_is_reason(d)) {
        snprintf(out, cap, "rgb(120,160,230)");
        return;
    }
    /* kernel functions orange, as FlameGraph draws "_[k]" frames */
    h = util_hash_bytes(d->name, strlen(d->name), 0);
    if (profile_frame_is_kernel(d)) {
        snprintf(out, cap, "rgb(%u,%u,0)", 220 + (unsigned)(h % 36),
                 130 + (unsigned)((h >> 16) % 40));
        return;
    }
    /* warm colours, stable per name */
    snprintf(out, cap, "rgb(%u,%u,%u)", 205 + (unsigned)(h % 51),
             (unsigned)((h >> 16) % 231), (unsigned)((h >> 32) % 56));
}

static void write_frame(struct svg_ctx *c, uint32_t id, uint64_t x)
{
    const struct profile_node *n = profile_node(c->p, id);
    const struct frame_desc *d =
        id == PROFILE_ROOT ? NULL : profile_frame(c->p, n->frame);
    const char *name = !d ? "all" : *d->name ? d->name : "[unknown]";
    double px = SVG_PAD + (double)x * c->scale;
    double pw = (double)n->total * c->scale;
    double y = SVG_TOP + (double)(c->max_depth - n->depth) * FRAME_H;
    long fit = (long)((pw - 6) / (FONT_SIZE * CHAR_W));
    char fill[32];

    if (c->diff)
        diff_color(c, id, fill, sizeof(fill));
    else
        color(d ? d : &(struct frame_desc){ .name = "all" }, n->depth, fill,
              sizeof(fill));
    fprintf(c->f, "<g class=\"f\" data-x=\"%" PRIu64 "\" data-w=\"%" PRIu64
                  "\" data-d=\"%" PRIu32 "\"><title>",
            x, n->total, n->depth);
    xml_text(c->f, name);
    if (d && d->kind == FRAME_FUNC) {
        putc('\n', c->f);
        xml_text(c->f, d->module ? d->module : "?");
        export_put_place(c->f, d, " ", "", xml_text);
    }
    fprintf(c->f, "\n%" PRIu64 " samples (%.2f%%), self %" PRIu64
                  "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
                  "height=\"%d\" fill=\"%s\" rx=\"2\" ry=\"2\"/>"
                  "<text x=\"%.2f\" y=\"%.1f\">",
            n->total, 100.0 * (double)n->total / (double)c->all, n->self, px,
            y, pw, FRAME_H - 1, fill, px + 3, y + FRAME_H - 4.5);
    if (fit >= 3) {
        size_t chars = util_utf8_count(name, strlen(name));

        if (chars <= (size_t)fit) {
            xml_text(c->f, name);
        } else {
            xml_text_n(c->f, name, (size_t)fit - 2);
            fputs("..", c->f);
        }
    }
    fputs("</text></g>\n", c->f);
}

/* One frame of the walk: measured (c->visit false: depth, largest
 * change) or written; frames narrower than min_w are left out with
 * their subtrees, in place (their siblings keep their x). */
static int svg_frame(void *arg, const struct tree_row *row)
{
    struct svg_ctx *c = arg;
    const struct profile_node *n = profile_node(c->p, row->node);

    if (n->total < c->min_w || n->total == 0)
        return TREE_DROP;
    if (n->depth > c->max_depth)
        c->max_depth = n->depth;
    if (!c->visit && c->diff) {
        double d = node_delta(c, row->node);

        if (d > c->maxdelta || -d > c->maxdelta)
            c->maxdelta = d > 0 ? d : -d;
    }
    if (c->visit)
        write_frame(c, row->node, row->offset);
    return TREE_ON;
}

/* Depth-first over frames wide enough to draw, children by name (the
 * model's one walker); `visit` false only measures. */
static int walk(struct svg_ctx *c, bool visit)
{
    const struct tree_walk w = {
        .tree = c->p, .start = PROFILE_ROOT, .with_start = true,
        .cmp = cmp_child, .cmp_arg = (void *)c->p,
    };

    c->visit = visit;
    return tree_walk(&w, svg_frame, c) < 0 ? -1 : 0;
}

static void write_subtitle(FILE *f, const struct profile *p)
{
    const struct profile_meta *m = profile_meta(p);

    if (m->cmdline || m->comm) {
        xml_text(f, m->cmdline ? m->cmdline : m->comm);
        fputs(" ", f);
    }
    char pids[256];
    size_t np = profile_pid_list(p, pids, sizeof pids);
    if (np)
        fprintf(f, "(%s %s) ", np > 1 ? "pids" : "pid", pids);
    fprintf(f, "- %" PRIu64 " samples, %" PRIu32 " thread%s",
            profile_samples(p), profile_thread_count(p),
            profile_thread_count(p) == 1 ? "" : "s");
    if (m->interval_ns)
        fprintf(f, ", every %.3f ms", (double)m->interval_ns / 1e6);
    if (m->duration_ns)
        fprintf(f, " over %.2f s", (double)m->duration_ns / 1e9);
    fputs(m->idle ? ", wall clock" : ", on CPU", f);
}

/* The graph of c->p (set up by export_svg_write). */
static int write_graph(struct svg_ctx *c, FILE *f);

static int write_svg(const struct profile *p, const struct export_opts *o,
                     FILE *f)
{
    struct svg_ctx c = { .p = p, .f = f };
    struct diff_pair d;
    int rc;

    if (!o || !o->baseline)
        return write_graph(&c, f);
    if (diff_pair_new(&d, p, o->baseline) < 0)
        return -1;
    c.p = d.cur;
    c.diff = &d;
    c.ball = profile_node(d.base, PROFILE_ROOT)->total;
    rc = write_graph(&c, f);
    diff_pair_free(&d);
    return rc;
}

static int write_graph(struct svg_ctx *cp, FILE *f)
{
    struct svg_ctx c = *cp;
    const struct profile *p = c.p;
    uint32_t height;

    c.all = profile_node(p, PROFILE_ROOT)->total;
    c.scale = c.all ? (double)(SVG_WIDTH - 2 * SVG_PAD) / (double)c.all : 0;
    c.min_w = c.all ? (uint64_t)(MIN_WIDTH_PX / c.scale) : 1;
    if (c.min_w == 0)
        c.min_w = 1;
    if (walk(&c, false) != 0)
        goto fail;
    height = SVG_TOP + (c.max_depth + 1) * FRAME_H + SVG_BOTTOM;

    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", f);
    fprintf(f, "<svg version=\"1.1\" width=\"%d\" height=\"%" PRIu32
               "\" viewBox=\"0 0 %d %" PRIu32 "\" onload=\"init(evt)\" "
               "xmlns=\"http://www.w3.org/2000/svg\">\n",
            SVG_WIDTH, height, SVG_WIDTH, height);
    fputs("<!-- Flame graph written by sproftop. -->\n", f);
    fprintf(f, "<style type=\"text/css\"><![CDATA[\n%s]]></style>\n", STYLE);
    fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n",
            SCRIPT);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%" PRIu32
               "\" fill=\"rgb(248,248,240)\"/>\n",
            SVG_WIDTH, height);
    fprintf(f, "<text id=\"title\" x=\"%d\" y=\"24\">%s</text>\n",
            SVG_WIDTH / 2, c.diff ? "Differential Flame Graph" : "Flame Graph");
    fprintf(f, "<text id=\"subtitle\" x=\"%d\" y=\"44\">", SVG_WIDTH / 2);
    write_subtitle(f, p);
    if (c.diff)
        fputs("; red: a larger share than in the baseline, blue: smaller", f);
    fputs("</text>\n", f);
    fprintf(f, "<text id=\"unzoom\" class=\"btn hidden\" x=\"%d\" y=\"24\">"
               "Reset Zoom</text>\n",
            SVG_PAD);
    fprintf(f, "<text id=\"search\" class=\"btn\" x=\"%d\" y=\"24\">"
               "Search</text>\n",
            SVG_WIDTH - SVG_PAD - 60);
    fprintf(f, "<text id=\"details\" x=\"%d\" y=\"%" PRIu32 "\"> </text>\n",
            SVG_PAD, height - 14);
    fprintf(f, "<text id=\"matched\" x=\"%d\" y=\"%" PRIu32 "\"> </text>\n",
            SVG_WIDTH - SVG_PAD - 240, height - 14);
    if (c.all == 0)
        fprintf(f, "<text x=\"%d\" y=\"%d\">no samples</text>\n", SVG_PAD,
                SVG_TOP + FRAME_H);
    fputs("<g id=\"frames\">\n", f);
    if (c.all && walk(&c, true) != 0)
        goto fail;
    fputs("</g>\n</svg>\n", f);
    if (!ferror(f))
        return 0;
fail:
    return -1;
}

EXPORT_COUNTS_WRITER(export_svg_write, write_svg)
