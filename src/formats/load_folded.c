/* load_folded.c - the folded stacks reader (sproftop -i x.folded).
 *
 * Lines are "frame;frame;...;leaf COUNT", root first, as flamegraph.pl
 * and export_folded write them.  The input is untrusted: lines are bounded
 * by LOAD_MAX_LINE, stacks by LOAD_MAX_DEPTH frames, counts must be
 * positive integers below 2^53 (as must their sum), NUL bytes are
 * rejected, and the first error stops the load with "NAME:LINE: why".
 * Blank lines and a missing final newline are accepted.
 *
 * Threads: the writer puts a "comm-TID" root frame on every line.  We
 * cannot tell such a frame from a function until the whole file is read,
 * so stacks go into one thread first; if every line's first frame reads
 * NAME-DIGITS, the profile is rebuilt with those frames as threads.
 * When, besides, every line's second frame reads NAME-DIGITS and there
 * are at least two first frames, the file is one of several processes
 * (export_folded's "comm-PID;thread-TID;..."): the first frame is the
 * process, the second the thread.  An aggregate of exited processes,
 * "cc1 (1,040 exited);cc1 (exited);...", counts as such a pair, and is
 * read back as the aggregate (profile_exited_thread).
 */
#include "load.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "profile.h"
#include "util.h"
#include "vec.h"


static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

bool load_folded_sniff(const char *buf, size_t len)
{
    size_t lim = len < 65536 ? len : 65536;

    for (size_t i = 0; i < lim;) {
        const char *s = buf + i;
        const char *nl = memchr(s, '\n', lim - i);
        size_t l = nl ? (size_t)(nl - s) : lim - i, e;

        i += l + 1;
        while (l > 0 && is_blank(s[l - 1]))
            l--;
        if (l == 0)
            continue;
        if (memchr(s, '\0', l))
            return false;
        for (e = l; e > 0 && is_digit(s[e - 1]); e--)
            ;
        if (e == l || e == 0 || !is_blank(s[e - 1]))
            return false;
        while (e > 0 && is_blank(s[e - 1]))
            e--;
        return e > 0;
    }
    return false;
}

/* "NAME-TID" as export_folded writes thread frames: a non-empty name, a
 * dash, 1 to 18 digits.  Fills *name_len and *tid when it matches. */
static bool thread_root(const char *s, size_t *name_len, int64_t *tid)
{
    const char *dash = strrchr(s, '-');
    size_t digits;

    if (!dash || dash == s)
        return false;
    digits = strlen(dash + 1);
    if (digits == 0 || digits > 18)
        return false;
    for (size_t i = 1; i <= digits; i++)
        if (!is_digit(dash[i]))
            return false;
    *name_len = (size_t)(dash - s);
    *tid = strtoll(dash + 1, NULL, 10);
    return true;
}

/* Whether s ends with `tail` (the aggregate roots' shape; split_exited
 * checks them whole). */
static bool exited_root(const char *s, const char *tail)
{
    size_t l = strlen(s), t = strlen(tail);

    return l > t && strcmp(s + l - t, tail) == 0;
}

/* A Python function as py-spy and sproftop write it, "NAME (FILE:LINE)"
 * with FILE Python's (profile_origin_of): its parts into d, the name
 * copied into buf (cap bytes).  False when name is not one. */
static bool python_frame(const char *name, char *buf, size_t cap,
                         struct frame_desc *d)
{
    size_t len = strlen(name);
    const char *open = len > 4 && name[len - 1] == ')' ? strrchr(name, '(')
                                                       : NULL;
    const char *colon = open ? strrchr(open, ':') : NULL;

    if (!open || open == name || open[-1] != ' ' || !colon ||
        colon + 2 > name + len - 1 || (size_t)(open - name) >= cap)
        return false;
    for (const char *c = colon + 1; c < name + len - 1; c++)
        if (!is_digit(*c))
            return false;
    size_t file_len = (size_t)(colon - open - 1);
    char *file = buf + (open - name);
    if ((size_t)(open - name) + file_len + 1 >= cap)
        return false;
    memcpy(buf, name, (size_t)(open - 1 - name));
    buf[open - 1 - name] = '\0';
    memcpy(file, open + 1, file_len);
    file[file_len] = '\0';
    long line = strtol(colon + 1, NULL, 10);
    struct frame_desc py = { .name = buf, .file = file, .kind = FRAME_FUNC,
                             .line = line > 0 && line < INT32_MAX
                                         ? (uint32_t)line : 0 };
    load_python_origin(&py);
    if (py.origin == FRAME_ORIGIN_NATIVE || !buf[0])
        return false;
    *d = py;
    return true;
}

/* Intern a frame name; "[...]" names ("[unknown]", "[idle]") are the
 * special frames sproftop itself writes, "[off-CPU: ...]" its off-CPU
 * reasons (profile_name_kind), "NAME (FILE.py:LINE)" a Python function,
 * a name ending in "_[k]" a kernel function (FlameGraph's
 * stackcollapse-perf.pl --kernel marks them so, as export_folded does),
 * and an empty name is unknown.  name is writable: the "_[k]" is cut
 * off. */
static uint32_t intern_name(struct profile *p, char *name)
{
    struct frame_desc d = { .name = *name ? name : "[unknown]" };
    size_t len = strlen(name), mark = sizeof(FOLDED_KERNEL_MARK) - 1;
    char buf[512];

    if (python_frame(d.name, buf, sizeof(buf), &d))
        return profile_intern_frame(p, &d);
    if (len > mark && strcmp(name + len - mark, FOLDED_KERNEL_MARK) == 0) {
        name[len - mark] = '\0';
        d.origin = FRAME_ORIGIN_KERNEL;
        d.module = PROFILE_KERNEL_MODULE;
    }
    d.kind = (uint8_t)profile_name_kind(d.name);
    return profile_intern_frame(p, &d);
}

/* Rebuild: the first frame of every stack of `flat` becomes a thread. */
struct split {
    const struct profile *src;
    struct profile *dst;
    uint32_t *fmap;            /* src frame -> dst frame, lazily */
    uint32_t *tmap;            /* src frame -> dst thread, lazily */
    struct stack_frame *buf;   /* mapped stack */
    bool procs;                /* frames[0] is the process, [1] the thread */
};

/* The dst thread for src root frame `root`, created on first use. */
static uint32_t split_thread(struct split *s, uint32_t root)
{
    const char *name;
    size_t name_len = 0;
    int64_t tid = 0;
    char *copy;

    if (s->tmap[root] != PROFILE_NONE)
        return s->tmap[root];
    name = profile_frame(s->src, root)->name;
    (void)thread_root(name, &name_len, &tid);
    copy = strndup(name, name_len);
    if (!copy)
        return PROFILE_NONE;
    s->tmap[root] = profile_thread(s->dst, tid, copy);
    free(copy);
    return s->tmap[root];
}

/* Mark thread t as a thread of the process of root frame `proc`. */
static int split_process(struct split *s, uint32_t t, uint32_t proc)
{
    const char *name = profile_frame(s->src, proc)->name;
    size_t name_len = 0;
    int64_t pid = 0;
    char *copy;
    int rc;

    if (profile_thread_at(s->dst, t)->pid)
        return 0;
    (void)thread_root(name, &name_len, &pid);
    copy = strndup(name, name_len);
    if (!copy)
        return -1;
    rc = profile_thread_set_process(s->dst, t, pid, copy);
    free(copy);
    return rc;
}

/* The aggregate of exited processes whose roots are proc and thread
 * ("cc1 (3 exited);cc1 (exited)"), made on first use; PROFILE_NONE when
 * they are no aggregate's (or on OOM, *oom set). */
static uint32_t split_exited(struct split *s, uint32_t proc, uint32_t thread,
                             bool *oom)
{
    char cmd[256], name[256];
    uint32_t exited, t;

    *oom = false;
    if (!profile_exited_parse(profile_frame(s->src, proc)->name,
                              profile_frame(s->src, thread)->name, cmd,
                              sizeof(cmd), name, sizeof(name), &exited))
        return PROFILE_NONE;
    t = profile_exited_thread(s->dst, cmd, name, exited);
    *oom = t == PROFILE_NONE;
    return t;
}

static int split_stack(void *ctx, uint32_t thread, const uint32_t *frames,
                       size_t n, uint64_t count)
{
    struct split *s = ctx;
    size_t skip = s->procs ? 2 : 1;
    bool oom = false;
    uint32_t t = s->procs ? split_exited(s, frames[0], frames[1], &oom)
                          : PROFILE_NONE;

    (void)thread;
    if (oom)
        return -1;
    if (t == PROFILE_NONE &&
        ((t = split_thread(s, frames[skip - 1])) == PROFILE_NONE ||
         (s->procs && split_process(s, t, frames[0]) < 0)))
        return -1;
    for (size_t i = skip; i < n; i++) {
        uint32_t *m = &s->fmap[frames[i]];

        if (*m == PROFILE_NONE) {
            *m = profile_intern_frame(s->dst, profile_frame(s->src, frames[i]));
            if (*m == PROFILE_NONE)
                return -1;
        }
        s->buf[i - skip] = (struct stack_frame){ .frame = *m };
    }
    return profile_add_stack(s->dst, t, s->buf, n - skip, count);
}

/* roots[0..nroots) are the thread frames in the order the file names
 * them first, so threads keep that order. */
static struct profile *split_threads(const struct profile *flat,
                                     const uint32_t *roots, size_t nroots,
                                     bool procs)
{
    uint32_t nf = profile_frame_count(flat);
    struct split s = {
        .src = flat,
        .dst = profile_new(),
        .fmap = malloc(nf * sizeof(*s.fmap)),
        .tmap = malloc(nf * sizeof(*s.tmap)),
        .buf = malloc(LOAD_MAX_DEPTH * sizeof(*s.buf)),
        .procs = procs,
    };
    size_t i = 0;

    if (!s.dst || !s.fmap || !s.tmap || !s.buf)
        goto fail;
    memset(s.fmap, 0xff, nf * sizeof(*s.fmap));
    memset(s.tmap, 0xff, nf * sizeof(*s.tmap));
    /* threads in the order the file names them first (with processes,
     * in the order their stacks come) */
    while (!procs && i < nroots && split_thread(&s, roots[i]) != PROFILE_NONE)
        i++;
    if (procs)
        i = nroots;
    if (i < nroots || profile_foreach_stack(flat, split_stack, &s) != 0)
        goto fail;
    goto out;
fail:
    profile_free(s.dst);
    s.dst = NULL;
out:
    free(s.fmap);
    free(s.tmap);
    free(s.buf);
    return s.dst;
}

struct parser {
    const char *name;          /* file name for errors */
    char *err;
    size_t errlen;
    size_t lineno;             /* current line, from 1 */
    struct profile *p;         /* everything on one thread */
    uint32_t thread;           /* that thread */
    char *scratch;             /* the current stack, NUL-split */
    size_t scratch_cap;
    struct stack_frame *st;    /* its frames */
    bool all_roots;            /* every first frame so far is NAME-TID */
    bool all_second;           /* ...and every second one (processes) */
    uint32_t *roots;           /* distinct first frames, first-seen order */
    size_t nroots;
    size_t roots_cap;
    bool *seen;                /* by frame id: already in roots */
    size_t seen_cap;
};

/* Note first frame `id` in first-seen order (once per frame). */
static int note_root(struct parser *ps, uint32_t id)
{
    if (VEC_RESERVE_ZERO(ps->seen, ps->seen_cap, (size_t)id + 1) < 0)
        return -1;
    if (ps->seen[id])
        return 0;
    if (VEC_RESERVE(ps->roots, ps->roots_cap, ps->nroots + 1) < 0)
        return -1;
    ps->seen[id] = true;
    ps->roots[ps->nroots++] = id;
    return 0;
}

static int fail(struct parser *ps, const char *why)
{
    util_errf(ps->err, ps->errlen, "%s:%zu: %s", ps->name, ps->lineno, why);
    return -1;
}

/* Parse one line (no newline).  0, or -1 with the error set. */
static int parse_line(struct parser *ps, const char *s, size_t l)
{
    uint64_t count = 0;
    size_t e, k, n = 0;
    char *c;

    if (l > LOAD_MAX_LINE)
        return fail(ps, "line longer than 1 MiB");
    if (memchr(s, '\0', l))
        return fail(ps, "NUL byte in the line");
    while (l > 0 && is_blank(s[l - 1]))
        l--;
    if (l == 0)
        return 0;
    for (e = l; e > 0 && is_digit(s[e - 1]); e--)
        ;
    if (e == 0)
        return fail(ps, "expected a stack before the count");
    if (e == l || !is_blank(s[e - 1])) {
        if (e < l && (s[e - 1] == '.' || s[e - 1] == '-'))
            return fail(ps, "count must be a positive integer below 2^53");
        return fail(ps, "expected a count after the stack");
    }
    if (l - e > 16)
        return fail(ps, "count must be a positive integer below 2^53");
    for (size_t i = e; i < l; i++)
        count = count * 10 + (uint64_t)(s[i] - '0');
    if (count == 0 || count >= PROFILE_COUNT_LIMIT)
        return fail(ps, "count must be a positive integer below 2^53");
    if (profile_samples(ps->p) + count >= PROFILE_COUNT_LIMIT)
        return fail(ps, "total count reaches 2^53");
    for (k = e; k > 0 && is_blank(s[k - 1]); k--)
        ;
    if (k == 0)
        return fail(ps, "expected a stack before the count");
    if (VEC_RESERVE(ps->scratch, ps->scratch_cap, k + 1) < 0)
        return fail(ps, "out of memory");
    memcpy(ps->scratch, s, k);
    ps->scratch[k] = '\0';
    for (char *f = ps->scratch;; f = c + 1) {
        c = strchr(f, ';');
        if (c)
            *c = '\0';
        if (n == LOAD_MAX_DEPTH)
            return fail(ps, "stack deeper than 4096 frames");
        /* NAME-TID, or an aggregate's "cc1 (3 exited);cc1 (exited)" */
        if (n == 0 && ps->all_roots) {
            size_t name_len;
            int64_t tid;

            ps->all_roots = thread_root(f, &name_len, &tid) ||
                            exited_root(f, " exited)");
        }
        if (n == 1 && ps->all_second) {
            size_t name_len;
            int64_t tid;

            ps->all_second = thread_root(f, &name_len, &tid) ||
                             strstr(f, " (exited)") != NULL;
        }
        ps->st[n] = (struct stack_frame){ .frame = intern_name(ps->p, f) };
        if (ps->st[n].frame == PROFILE_NONE ||
            (n == 0 && ps->all_roots && note_root(ps, ps->st[0].frame)))
            return fail(ps, "out of memory");
        n++;
        if (!c)
            break;
    }
    if (n < 2)
        ps->all_second = false;
    if (profile_add_stack(ps->p, ps->thread, ps->st, n, count) != 0)
        return fail(ps, "out of memory");
    return 0;
}

struct profile *load_folded(const char *buf, size_t len, const char *name,
                            char *err, size_t errlen)
{
    struct parser ps = {
        .name = name ? name : "<folded>",
        .err = err,
        .errlen = errlen,
        .p = profile_new(),
        .st = malloc(LOAD_MAX_DEPTH * sizeof(*ps.st)),
        .all_roots = true,
        .all_second = true,
    };
    struct profile *res = NULL;
    size_t pos = 0;

    if (!ps.p || !ps.st) {
        util_errf(err, errlen, "%s: out of memory", ps.name);
        goto out;
    }
    ps.thread = profile_thread(ps.p, 0, "all");
    if (ps.thread == PROFILE_NONE) {
        util_errf(err, errlen, "%s: out of memory", ps.name);
        goto out;
    }
    while (pos < len) {
        const char *s = buf + pos;
        const char *nl = memchr(s, '\n', len - pos);
        size_t l = nl ? (size_t)(nl - s) : len - pos;

        ps.lineno++;
        pos += l + (nl != NULL);
        if (parse_line(&ps, s, l) != 0)
            goto out;
    }
    if (profile_samples(ps.p) == 0) {
        util_errf(err, errlen, "%s: no samples", ps.name);
        goto out;
    }
    if (!ps.all_roots) {
        res = ps.p;
        ps.p = NULL;
    } else {
        res = split_threads(ps.p, ps.roots, ps.nroots,
                            ps.all_second && ps.nroots >= 2);
        if (!res)
            util_errf(err, errlen, "%s: out of memory", ps.name);
    }
out:
    profile_free(ps.p);
    free(ps.st);
    free(ps.scratch);
    free(ps.roots);
    free(ps.seen);
    return res;
}
