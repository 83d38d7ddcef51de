/* export.c - the atomic file writer every output goes through.
 *
 * Batch mode (-o), the TUI's snapshot prompt and conversions all end in
 * export_to_file; where the bytes go (a descriptor, or a temporary file
 * renamed over the destination, so a reader never sees half a profile) is
 * outfile.c's business.
 */
#include "export.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "bounds.h"
#include "format.h"
#include "outfile.h"
#include "profile.h"
#include "util.h"

void export_opts_default(struct export_opts *o)
{
    *o = (struct export_opts){
        .no_thread_root = false,
        .hide_self = SP_HIDE_SELF_DEFAULT,
        .hide_subs = SP_HIDE_SUBS_DEFAULT,
    };
}

int export_check_path(const char *path, char *err, size_t errlen)
{
    return outfile_check(path, err, errlen);
}

int export_to_file(const struct format *e, const struct profile *p,
                   const struct export_opts *o, const char *path,
                   char *err, size_t errlen)
{
    struct export_opts defaults;
    struct outfile of;
    int rc, werr;

    if (!o) {
        export_opts_default(&defaults);
        o = &defaults;
    }
    if (!e->graph && !profile_has_stacks(p)) {
        char names[128] = "";

        for (size_t i = 0; i < format_count(); i++)
            if (format_at(i)->graph)
                snprintf(names + strlen(names), sizeof(names) - strlen(names),
                         "%s%s", names[0] ? ", " : "", format_at(i)->name);
        util_errf(err, errlen, "cannot write %s as %s: " PROFILE_NO_STACKS
                  " (write it as %s)", path ? path : "", e->name, names);
        return -1;
    }
    if (e->per_sample && profile_weight_count(p, profile_samples(p)) >
                             EXPORT_PER_SAMPLE_MAX) {
        util_errf(err, errlen, "cannot write %s: too many samples for the %s "
                  "format (write pprof instead)", path ? path : "", e->name);
        return -1;
    }
    struct profile *py = NULL;
    if (o->python_only) {
        struct profile_filter pf = { .thread = PROFILE_NONE,
                                     .focus = PROFILE_NONE,
                                     .python_only = true };
        if (!(py = profile_derive(p, &pf))) {
            util_errf(err, errlen, "cannot write %s: out of memory",
                      path ? path : "");
            return -1;
        }
        p = py;
    }
    if (outfile_open(&of, path, err, errlen) != 0) {
        profile_free(py);
        return -1;
    }
    /* The one place a failed write is explained: a writer sets errno
     * when it knows why (EOVERFLOW, a failed call's: EFBIG past a file
     * size limit); otherwise the stream's error flag tells an I/O error
     * from running out of memory. */
    errno = 0;
    rc = e->write(p, o, of.f);
    werr = rc == 0 ? 0 : errno ? errno : ferror(of.f) ? EIO : ENOMEM;
    profile_free(py);
    return outfile_finish(&of, werr, err, errlen);
}

void export_put_place(FILE *f, const struct frame_desc *d, const char *open,
                      const char *close,
                      void (*text)(FILE *f, const char *s))
{
    if (!d->file)
        return;
    fputs(open, f);
    text(f, d->file);
    if (d->line)
        fprintf(f, ":%" PRIu32, d->line);
    fputs(close, f);
}

int export_write_counts(const struct profile *p, const struct export_opts *o,
                        FILE *f, export_write_fn *write)
{
    struct profile *own = NULL, *own_base = NULL;
    const struct profile *q = profile_counts(p, &own);
    struct export_opts oc;
    int rc = -1;

    if (!o)
        export_opts_default(&oc);
    else
        oc = *o;
    if (q && oc.baseline &&
        !(oc.baseline = profile_counts(oc.baseline, &own_base)))
        q = NULL;
    o = &oc;
    if (q)
        rc = write(q, o, f);
    profile_free(own);
    profile_free(own_base);
    return rc;
}
