/* save.c - the save dialog: 's' writes a snapshot in a chosen format.
 *
 * See ui_state.h.  The formats come from main.c through struct
 * ui_save_ops (ui.h), so the UI includes no formats header.  The prompt
 * proposes sproftop-COMM-PID-YYYYmmdd-HHMMSS.EXT in --snapshot-dir, in
 * pprof (the richest format -i reads back); Tab and BackTab cycle the
 * formats and the default name, or the extension of a typed one,
 * follows; a typed name with a known extension picks its format, as -o
 * does.  It saves the view (the time window, the thread and focus
 * filters) unless Up or Down asks for every sample.  The file gets the
 * newest data, not the screen's copy.
 */
#include "ui_state.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "profile.h"
#include "view_model.h"
#include "window.h"

/* Number of formats the save prompt offers. */
static size_t format_count(const struct ui *ui)
{
    size_t n = 0;

    while (ui->opt.save && ui->opt.save->name(n))
        n++;
    return n;
}

size_t save_initial_format(const struct ui *ui)
{
    const char *want = ui->opt.export_format ? ui->opt.export_format
                                             : "pprof";

    for (size_t i = 0; i < format_count(ui); i++)
        if (strcmp(ui->opt.save->name(i), want) == 0)
            return i;
    return 0;
}

/* The first file name word of format i: a suffix (".folded"), or a
 * prefix when the word ends with '.' ("callgrind.out."). */
static void first_ext(const struct ui *ui, size_t i, char *buf, size_t n)
{
    const char *exts = ui->opt.save->exts(i);
    size_t len = strcspn(exts ? exts : "", " ");

    if (len >= n)
        len = n - 1;
    memcpy(buf, exts ? exts : "", len);
    buf[len] = '\0';
}

static void save_default_name(struct ui *ui, char *buf, size_t n)
{
    char comm[64], stamp[32], ext[64];
    struct tm tm;
    const char *dir = ui->opt.snapshot_dir;

    snprintf(comm, sizeof(comm), "%s", ui->status.comm[0] ? ui->status.comm
                                                          : "profile");
    for (char *c = comm; *c; c++)
        if (*c == '/' || *c == ' ' || (unsigned char)*c < 32)
            *c = '_';
    /* A loaded file's "comm" is its basename: drop its suffix so the name
     * does not read "x.folded-0-...folded". */
    char *dot = ui->status.is_file ? strchr(comm, '.') : NULL;
    if (dot && dot != comm)
        *dot = '\0';
    localtime_r(&ui->save_time, &tm);
    strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
    first_ext(ui, ui->fmt_index, ext, sizeof(ext));
    size_t el = strlen(ext);
    bool prefix = el && ext[el - 1] == '.';
    snprintf(buf, n, "%s%s%ssproftop-%s-%d-%s%s", dir ? dir : "",
             dir && dir[0] && dir[strlen(dir) - 1] != '/' ? "/" : "",
             prefix ? ext : "", comm, (int)ui->status.pid, stamp,
             prefix ? "" : ext);
}

/* Whether the views show part of the time (the recent window, a range). */
static bool view_windowed(const struct ui *ui)
{
    return ui->scope.time != SCOPE_ALL && ui->snap &&
           profile_time_enabled(ui->snap);
}

/* Whether the view leaves samples out (a window, a process, thread or
 * focus filter). */
static bool view_filtered(const struct ui *ui)
{
    return ui->model && (ui->model->thread != PROFILE_NONE ||
                         ui->model->pid ||
                         ui->model->focus != PROFILE_NONE ||
                         view_windowed(ui));
}

/* "Save view as pprof (Up: all; Tab: format): ": what is saved, how. */
static void save_label(struct ui *ui)
{
    const char *fmt = ui->opt.save->name(ui->fmt_index);

    if (!view_filtered(ui))
        snprintf(ui->prompt.label, sizeof(ui->prompt.label),
                 "Save as %s (Tab: format): ", fmt);
    else
        snprintf(ui->prompt.label, sizeof(ui->prompt.label),
                 "Save %s as %s (Up: %s; Tab: format): ",
                 ui->save_all ? "all" : "view", fmt,
                 ui->save_all ? "view" : "all");
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
static void view_text(const struct ui *ui, char *buf, size_t n)
{
    const struct model *m = ui->model;
    char part[256] = "";
    bool first = true;

    buf[0] = '\0';
    if (!view_filtered(ui))
        return;
    snprintf(buf, n, " of the view (");
    if (view_windowed(ui))
        scope_label(&ui->scope, ui->snap, part, sizeof(part));
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

void save_open(struct ui *ui)
{
    if (format_count(ui) == 0) {
        ctx_message(&ui->ctx, true, "no export formats");
        return;
    }
    ui->save_time = time(NULL);
    ui->save_all = false;
    save_default_name(ui, ui->save_default, sizeof(ui->save_default));
    prompt_open(&ui->prompt, ASK_SAVE, "", ui->save_default, false);
    save_label(ui);
}

void save_follow_name(struct ui *ui)
{
    long i = ui->opt.save->for_path ? ui->opt.save->for_path(ui->prompt.buf)
                                    : -1;

    if (i >= 0 && (size_t)i < format_count(ui) && (size_t)i != ui->fmt_index) {
        ui->fmt_index = (size_t)i;
        save_default_name(ui, ui->save_default, sizeof(ui->save_default));
        save_label(ui);
    }
}

void save_toggle_scope(struct ui *ui)
{
    if (!view_filtered(ui))
        return;
    ui->save_all = !ui->save_all;
    save_label(ui);
}

void save_cycle(struct ui *ui, int step)
{
    char old_ext[64], new_ext[64], name[PROMPT_MAX];
    bool was_default = strcmp(ui->prompt.buf, ui->save_default) == 0;

    first_ext(ui, ui->fmt_index, old_ext, sizeof(old_ext));
    size_t n = format_count(ui);
    ui->fmt_index = (ui->fmt_index + (step < 0 ? n - 1 : 1)) % n;
    first_ext(ui, ui->fmt_index, new_ext, sizeof(new_ext));
    save_default_name(ui, ui->save_default, sizeof(ui->save_default));
    save_label(ui);
    if (was_default) {
        bool sel = ui->prompt.selected;
        prompt_set(&ui->prompt, ui->save_default);
        if (sel)
            prompt_select(&ui->prompt);
        return;
    }
    size_t bl = strlen(ui->prompt.buf), ol = strlen(old_ext);
    if (ol && old_ext[ol - 1] != '.' && bl > ol &&
        strcmp(ui->prompt.buf + bl - ol, old_ext) == 0 &&
        new_ext[0] && new_ext[strlen(new_ext) - 1] != '.') {
        snprintf(name, sizeof(name), "%.*s%s", (int)(bl - ol), ui->prompt.buf,
                 new_ext);
        prompt_set(&ui->prompt, name);
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

void save_write(struct ui *ui, const char *path)
{
    char err[512], what[300], full[PATH_MAX + 1];

    if (!path[0]) {
        ctx_message(&ui->ctx, true, "no file name: nothing saved");
        return;
    }
    save_follow_name(ui);
    /* The newest data, not the screen's copy: sampling went on while the
     * user typed the name. */
    uint64_t gen = ui->src->ops->generation(ui->src);
    struct profile *p = ui->src->ops->snapshot(ui->src);
    bool view = !ui->save_all && view_filtered(ui);
    if (p && view)
        p = scope_apply(ui, p);  /* the window on screen, as it is now */
    if (p && view && ui->scope.merge_commands) {
        /* processes merged by command, as on screen (a process filter
         * then names a command's processes) */
        struct profile *merged = profile_merge_commands(p);
        profile_free(p);
        p = merged;
    }
    struct profile *out = p && view ? model_filter_profile(p, &ui->ctx.filter)
                                    : p;
    if (!out) {
        profile_free(p);
        ctx_message(&ui->ctx, true, "out of memory taking a snapshot");
        return;
    }
    if (ui->opt.save->write(ui->fmt_index, out, path, ui->ctx.hide_self,
                            ui->ctx.hide_subs, err, sizeof(err)) < 0) {
        ctx_message(&ui->ctx, true, "%s", err);
    } else {
        if (!view) {
            ui->saved = true;
            ui->saved_generation = gen;
        }
        what[0] = '\0';
        if (view)
            view_text(ui, what, sizeof(what));
        ctx_message(&ui->ctx, false, "saved %llu samples%s as %s to %s",
                    (unsigned long long)profile_sample_count(out), what,
                    ui->opt.save->name(ui->fmt_index),
                    full_path(path, full, sizeof(full)));
    }
    if (out != p)
        profile_free(out);
    profile_free(p);
}
