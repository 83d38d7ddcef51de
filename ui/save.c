/* save.c - the save dialog: 's' writes a snapshot in a chosen format.
 *
 * See ui_state.h.  The formats come from main.c through struct
 * ui_save_ops (ui.h), so the UI includes no formats header.  The prompt
 * proposes sproftop-COMM-PID-YYYYmmdd-HHMMSS.EXT in --snapshot-dir; Tab
 * cycles the formats and the default name, or the extension of a typed
 * one, follows.  The file gets the newest data, not the screen's copy.
 */
#include "ui_state.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "profile.h"

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
                                             : "folded";

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

static void save_label(struct ui *ui)
{
    snprintf(ui->prompt.label, sizeof(ui->prompt.label),
             "Save as %s (Tab: format): ", ui->opt.save->name(ui->fmt_index));
}

void save_open(struct ui *ui)
{
    if (format_count(ui) == 0) {
        ctx_message(&ui->ctx, true, "no export formats");
        return;
    }
    ui->save_time = time(NULL);
    save_default_name(ui, ui->save_default, sizeof(ui->save_default));
    prompt_open(&ui->prompt, ASK_SAVE, "", ui->save_default, false);
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

void save_write(struct ui *ui, const char *path)
{
    char err[512];

    if (!path[0]) {
        ctx_message(&ui->ctx, true, "no file name: nothing saved");
        return;
    }
    /* The newest data, not the screen's copy: sampling went on while the
     * user typed the name. */
    uint64_t gen = ui->src->ops->generation(ui->src);
    struct profile *p = ui->src->ops->snapshot(ui->src);
    if (!p) {
        ctx_message(&ui->ctx, true, "out of memory taking a snapshot");
        return;
    }
    if (ui->opt.save->write(ui->fmt_index, p, path, ui->ctx.hide_self,
                            ui->ctx.hide_subs, err, sizeof(err)) < 0)
        ctx_message(&ui->ctx, true, "%s", err);
    else {
        ui->saved = true;
        ui->saved_generation = gen;
        ctx_message(&ui->ctx, false, "saved %llu samples to %s",
                    (unsigned long long)profile_samples(p), path);
    }
    profile_free(p);
}
