/* late_names.h - names for a loaded profile's code that was named without
 * its debug info.
 *
 * A profile saved by sproftop (or any pprof producer that fills
 * Mapping.build_id) keeps, for each frame of a module that had no debug
 * info, the module's build-id and the frame's file offset (load_pprof.c).
 * Here each such build-id's debug file is looked for in the debug root's
 * build-id tree (sym_debug.h), else fetched from the servers in
 * $DEBUGINFOD_URLS (dbgfetch.h), and the frames are renamed to the
 * functions at their offsets (profile_rename_frames), as a live session
 * renames them when the debug info arrives.
 *
 * Called by the app once after loading files (-i), before the profile is
 * shown or converted, on the main thread with nothing else running.  It
 * waits for the fetches, at most their time bound ($DEBUGINFOD_MAXTIME,
 * default 30 s) in all.
 */
#ifndef SPROFTOP_LATE_NAMES_H
#define SPROFTOP_LATE_NAMES_H

#include <stdint.h>

struct profile;

struct late_names_stats {
    uint32_t modules;  /* build-ids the frames carry */
    uint32_t found;    /* ...whose debug info was found or fetched */
    uint32_t renamed;  /* frames given a name */
};

/* Rename what can be renamed in p; st (may be NULL) says how it went.
 * 0, or -1 on OOM (p keeps the names it had). */
int late_names_resolve(struct profile *p, struct late_names_stats *st);

#endif
