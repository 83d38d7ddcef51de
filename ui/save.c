/* save.c - the save dialog: 's' writes a snapshot in a chosen format.
 *
 * See save.h.  The prompt
 * proposes sproftop-COMM-PID-YYYYmmdd-HHMMSS.EXT in --snapshot-dir, in
 * pprof (the richest format -i reads back); Tab and BackTab cycle the
 * formats and the default name, or the extension of a typed one,
 * follows; a typed name with a known extension picks its format, as -o
 * does, and one with an extension no format has is refused (".json" is
 * speedscope's, and the message says so).  It saves the view (the time window, the thread and focus
 * filters) unless Up or Down asks for every sample.  The file gets the
 * newest data, not the screen's copy.
 */
#include "save.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "feed.h"
#include "profile.h"
#include "scope.h"
#include "view.h"
#include "view_model.h"
#include "window.h"

/* Number of formats the save prompt offers. */
static size_t format_count(const struct save_dialog *d)
{
    size_t n = 0;

    while (d->ops && d->ops->name(n))
        n++;
    return n;
}

void save_init(struct save_dialog *d, const struct ui_options *o)
{
    const char *want = o->export_format ? o->export_format : "pprof";

    *d = (struct save_dialog){ .ops = o->save, .dir = o->snapshot_dir };
    for (size_t i = 0; i < format_count(d); i++)
        if (strcmp(d->ops->name(i), want) == 0) {
            d->fmt = i;
            break;
        }
}

/* The first file name word of format i: a suffix (".folded"), or a
 * prefix when the word ends with '.' ("callgrind.out."). */
static void first_ext(const struct save_dialog *d, size_t i, char *buf,
                      size_t n)
{
    const char *exts = d->ops->exts(i);
    size_t len = strcspn(exts ? exts : "", " ");

    if (len >= n)
        len = n - 1;
    memcpy(buf, exts ? exts : "", len);
    buf[len] = '\0';
}

/* The default name for the current format, into d->default_name. */
static void default_name(struct save_dialog *d, const struct save_env *e)
{
    const struct source_status *st = &e->feed->status;
    char comm[64], stamp[32], ext[64];
    struct tm tm;
    const char *dir = d->dir;

    snprintf(comm, sizeof(comm), "%s", st->comm[0] ? st->comm : "profile");
    for (char *c = comm; *c; c++)
        if (*c == '/' || *c == ' ' || (unsigned char)*c < 32)
            *c = '_';
    /* A loaded file's "comm" is its basename: drop its suffix so the name
     * does not read "x.folded-0-...folded". */
    char *dot = st->is_file ? strchr(comm, '.') : NULL;
    if (dot && dot != comm)
        *dot = '\0';
    localtime_r(&d->time, &tm);
    strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
    first_ext(d, d->fmt, ext, sizeof(ext));
    size_t el = strlen(ext);
    bool prefix = el && ext[el - 1] == '.';
    snprintf(d->default_name, sizeof(d->default_name),
             "%s%s%ssproftop-%s-%d-%s%s", dir ? dir : "",
             dir && dir[0] && dir[strlen(dir) - 1] != '/' ? "/" : "",
             prefix ? ext : "", comm, (int)st->pid, stamp, prefix ? "" : ext);
}

/* Whether the views show part of the time (the recent window, a range). */
static bool view_windowed(const struct save_env *e)
{
    return e->scope->time != SCOPE_ALL && e->feed->snap &&
           profile_time_enabled(e->feed->snap);
}

/* Whether the view leaves samples out (a window, a process, thread or
 * focus filter). */
static bool view_filtered(const struct save_env *e)
{
    const struct model *m = e->feed->model;

    return m && (m->thread != PROFILE_NONE || m->pid ||
                 m->focus != PROFILE_NONE || view_windowed(e));
}

/* "Save view as pprof (Up: all; Tab: format): ": what is saved, how. */
static void save_label(const struct save_dialog *d, const struct save_env *e)
{
    const char *fmt = d->ops->name(d->fmt);
    struct prompt *p = e->prompt;

    if (!view_filtered(e))
        snprintf(p->label, sizeof(p->label), "Save as %s (Tab: format): ",
                 fmt);
    else
        snprintf(p->label, sizeof(p->label),
                 "Save %s as %s (Up: %s; Tab: format): ",
                 d->all ? "all" : "view", fmt, d->all ? "view" : "all");
}

/* Append PART to buf (n bytes), after ", " unless *first. */
static void add_part(char *buf, size_t n, const char *part, bool *first)
{
    size_t o = strlen(buf);

    if (!part[0] || o >= n)
        return;
    snprintf(buf + o, n - o, "%s%s", *first ? "" : ", ", part);
    *first = false;
}

/* " of the view (last 5s, process nginx (pid 102), thread parser (101),
 * focus f)", or "". */
static void view_text(const struct save_env *e, char *buf, size_t n)
{
    const struct model *m = e->feed->model;
    char part[256] = "";
    bool first = true;

    buf[0] = '\0';
    if (!view_filtered(e))
        return;
    snprintf(buf, n, " of the view (");
    if (view_windowed(e))
        scope_label(e->scope, e->feed->snap, part, sizeof(part));
    add_part(buf, n, part, &first);
    for (uint32_t i = 0; m->pid && i < profile_thread_count(m->snap); i++) {
        const struct profile_thread *t = profile_thread_at(m->snap, i);
        char name[200];

        if (t->pid != m->pid)
            continue;
        snprintf(part, sizeof(part), "process %s",
                 profile_process_label(t, true, name, sizeof(name)));
        add_part(buf, n, part, &first);
        break;
    }
    if (m->thread != PROFILE_NONE) {
        const struct profile_thread *t = profile_thread_at(m->snap, m->thread);
        snprintf(part, sizeof(part), "thread %s (%lld)",
                 t->name ? t->name : "?", (long long)t->tid);
        add_part(buf, n, part, &first);
    }
    if (m->focus != PROFILE_NONE) {
        snprintf(part, sizeof(part), "focus %s",
                 model_frame_name(m, m->focus));
        add_part(buf, n, part, &first);
    }
    add_part(buf, n, ")", &(bool){ true });
}

void save_open(struct save_dialog *d, const struct save_env *e, int purpose)
{
    if (format_count(d) == 0) {
        ctx_message(e->ctx, true, "no export formats");
        return;
    }
    d->time = time(NULL);
    d->all = false;
    default_name(d, e);
    prompt_open(e->prompt, purpose, "", d->default_name, false);
    save_label(d, e);
}

/* Switch to the format the name's extension asks for; returns what
 * for_path said (note: what to tell the user). */
static long follow_name(struct save_dialog *d, const struct save_env *e,
                        const char *name, char *note, size_t n)
{
    long i = d->ops->for_path ? d->ops->for_path(name, note, n) : -1;

    if (i >= 0 && (size_t)i < format_count(d) && (size_t)i != d->fmt) {
        d->fmt = (size_t)i;
        default_name(d, e);
        save_label(d, e);
    }
    return i;
}

void save_follow_name(struct save_dialog *d, const struct save_env *e)
{
    char note[512];

    follow_name(d, e, e->prompt->buf, note, sizeof(note));
}

void save_toggle_scope(struct save_dialog *d, const struct save_env *e)
{
    if (!view_filtered(e))
        return;
    d->all = !d->all;
    save_label(d, e);
}

void save_cycle(struct save_dialog *d, const struct save_env *e, int step)
{
    struct prompt *p = e->prompt;
    char old_ext[64], new_ext[64], name[PROMPT_MAX];
    bool was_default = strcmp(p->buf, d->default_name) == 0;

    first_ext(d, d->fmt, old_ext, sizeof(old_ext));
    size_t n = format_count(d);
    d->fmt = (d->fmt + (step < 0 ? n - 1 : 1)) % n;
    first_ext(d, d->fmt, new_ext, sizeof(new_ext));
    default_name(d, e);
    save_label(d, e);
    if (was_default) {
        bool sel = p->selected;
        prompt_set(p, d->default_name);
        if (sel)
            prompt_select(p);
        return;
    }
    size_t bl = strlen(p->buf), ol = strlen(old_ext);
    if (ol && old_ext[ol - 1] != '.' && bl > ol &&
        strcmp(p->buf + bl - ol, old_ext) == 0 &&
        new_ext[0] && new_ext[strlen(new_ext) - 1] != '.') {
        snprintf(name, sizeof(name), "%.*s%s", (int)(bl - ol), p->buf,
                 new_ext);
        prompt_set(p, name);
    }
}

/* The full path of a written file, for the message: from / (symbolic
 * links resolved), with the home directory as "~" as shells show it. */
static const char *full_path(const char *path, char *buf, size_t n)
{
    char abs[PATH_MAX], home[PATH_MAX];
    const char *h = getenv("HOME");

    if (!realpath(path, abs)) {
        snprintf(buf, n, "%s", path);
        return buf;
    }
    size_t hl = h && h[0] && realpath(h, home) ? strlen(home) : 0;
    if (hl > 1 && strncmp(abs, home, hl) == 0 && abs[hl] == '/')
        snprintf(buf, n, "~%s", abs + hl);
    else
        snprintf(buf, n, "%s", abs);
    return buf;
}

/* A new snapshot to save: the view as it is now (its window, merged
 * commands and filters), or every sample; NULL on OOM.  *view says
 * which. */
static struct profile *snapshot_to_save(const struct save_dialog *d,
                                        const struct save_env *e, bool *view)
{
    struct source *src = e->feed->src;
    /* The newest data, not the screen's copy: sampling went on while the
     * user typed the name. */
    struct profile *p = src->ops->snapshot(src);

    *view = !d->all && view_filtered(e);
    if (p && *view)
        p = scope_apply(e->scope, p);  /* the window on screen, as it is */
    if (p && *view && e->scope->merge_commands) {
        /* processes merged by command, as on screen (a process filter
         * then names a command's processes) */
        struct profile *merged = profile_merge_commands(p);
        profile_free(p);
        p = merged;
    }
    if (!p || !*view)
        return p;
    struct profile *out = model_filter_profile(p, &e->ctx->filter);
    profile_free(p);
    return out;
}

void save_write(struct save_dialog *d, const struct save_env *e,
                const char *path)
{
    char err[512], what[300], full[PATH_MAX + 1], note[512] = "";
    bool view;

    if (!path[0]) {
        ctx_message(e->ctx, true, "no file name: nothing saved");
        return;
    }
    /* an extension no format has is refused, as -o refuses it; one that
     * several formats end with (".json") is said aloud */
    if (follow_name(d, e, path, note, sizeof(note)) == -2) {
        ctx_message(e->ctx, true, "nothing saved: %s: %s", path, note);
        return;
    }
    uint64_t gen = e->feed->src->ops->generation(e->feed->src);
    struct profile *out = snapshot_to_save(d, e, &view);
    if (!out) {
        ctx_message(e->ctx, true, "out of memory taking a snapshot");
        return;
    }
    if (d->ops->write(d->fmt, out, path, e->ctx->hide_self,
                      e->ctx->hide_subs, err, sizeof(err)) < 0) {
        ctx_message(e->ctx, true, "%s", err);
    } else {
        if (!view) {
            d->saved = true;
            d->saved_generation = gen;
        }
        what[0] = '\0';
        if (view)
            view_text(e, what, sizeof(what));
        ctx_message(e->ctx, false, "saved %llu samples%s as %s to %s%s%s",
                    (unsigned long long)profile_sample_count(out), what,
                    d->ops->name(d->fmt), full_path(path, full, sizeof(full)),
                    note[0] ? "; " : "", note);
    }
    profile_free(out);
}

bool save_unsaved(const struct save_dialog *d, const struct feed *f)
{
    if (f->status.is_file || f->status.samples == 0)
        return false;
    return !d->saved ||
           f->src->ops->generation(f->src) != d->saved_generation;
}
