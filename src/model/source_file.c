/* source_file.c - a source over a fixed, loaded profile (sproftop -i).
 *
 * The TUI reads a file exactly as it reads a live target, through
 * struct source: snapshots are clones of the one profile, the status
 * describes the file, and the controls that only make sense for a live
 * target (pause, interval, reset) report that they cannot apply.
 */
#include "source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate.h"
#include "profile.h"
#include "util.h"

struct file_source {
    struct source base;  /* what callers hold */
    struct profile *p;   /* the loaded profile, owned */
    char *path;          /* as given, for the header */
    source_annotate_fn *annotate; /* its machine code, NULL: none */
};

static struct profile *file_snapshot(struct source *s)
{
    const struct file_source *fs = s->impl;

    return profile_clone(fs->p);
}

static void file_status(struct source *s, struct source_status *out)
{
    const struct file_source *fs = s->impl;
    const struct profile_meta *m = profile_meta(fs->p);

    memset(out, 0, sizeof(*out));
    out->state = TARGET_NONE;
    out->is_file = true;
    out->idle = m->idle;
    snprintf(out->comm, sizeof(out->comm), "%s", util_basename(fs->path));
    snprintf(out->cmdline, sizeof(out->cmdline), "%s", fs->path);
    out->threads = profile_thread_count(fs->p);
    out->interval_ns = m->interval_ns;
    out->samples = profile_sample_count(fs->p);
    out->elapsed_ns = m->duration_ns;
}

/* The profile never changes, so one value forever. */
static uint64_t file_generation(struct source *s)
{
    (void)s;
    return 1;
}

static int file_set_paused(struct source *s, bool paused)
{
    (void)s;
    (void)paused;
    return -1;
}

static int file_set_interval(struct source *s, uint64_t interval_ns)
{
    (void)s;
    (void)interval_ns;
    return -1;
}

static int file_reset(struct source *s)
{
    (void)s;
    return -1;
}

static void file_close(struct source *s)
{
    struct file_source *fs = s->impl;

    profile_free(fs->p);
    free(fs->path);
    free(fs);
}

static struct annotation *file_annotate(struct source *s,
                                        const struct annot_request *rq)
{
    const struct file_source *fs = s->impl;
    struct annotation *a;

    if (fs->annotate)
        return fs->annotate(fs->p, rq);
    if ((a = annotation_new()))
        annotation_why(a, "no module files are read for this profile");
    return a;
}

static const struct source_ops file_ops = {
    .snapshot = file_snapshot,
    .status = file_status,
    .generation = file_generation,
    .set_paused = file_set_paused,
    .set_interval = file_set_interval,
    .reset = file_reset,
    .close = file_close,
    .annotate = file_annotate,
};

struct source *source_file_new(struct profile *p, const char *path)
{
    struct file_source *fs = calloc(1, sizeof(*fs));

    if (!fs || !p || !(fs->path = strdup(path ? path : "-"))) {
        free(fs);
        profile_free(p);
        return NULL;
    }
    fs->p = p;
    fs->base.ops = &file_ops;
    fs->base.impl = fs;
    return &fs->base;
}

void source_file_set_annotate(struct source *s, source_annotate_fn *fn)
{
    struct file_source *fs = s->impl;

    fs->annotate = fn;
}
