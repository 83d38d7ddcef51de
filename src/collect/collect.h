/* collect.h - the live source: sampler -> ingest -> fold -> profile.
 *
 * collect_start starts the sampler (which attaches) and a collector thread
 * that every 200 ms swaps the ingest buffer and folds the raw stacks of
 * each process into the profile, through that process's fold (fold.h:
 * symbolized through a pc cache, so libdwfl is asked once per address
 * and maps generation).  The sampler never waits on the
 * collector.
 *
 * The result is a `struct source` (source.h) for the TUI and batch mode;
 * everything after collect_start goes through the source's ops (finish,
 * print_stats and close included).
 *
 * Threads: collect_start and the source ops are called from one
 * controlling thread (main or UI); the sampler and collector threads are
 * collect.c's own.
 */
#ifndef SPROFTOP_COLLECT_H
#define SPROFTOP_COLLECT_H

#include <stdbool.h>
#include <stddef.h>

#include "sampler.h"
#include "source.h"

/* Start sampling per cfg (cfg->ingest, on_process, on_maps and ctx are
 * filled in here).
 * Returns the live source, or NULL with a one-line reason in err and the
 * exit code to use in *code. */
struct source *collect_start(const struct sampler_config *cfg, char *err,
                             size_t errlen, int *code);

/* collect_start for several processes at once (-p PID,PID...): one
 * sampler for all (cfg with its pids, or cfg->argv to launch when npids
 * is 0), one profile for all, each process with its own fold (maps,
 * symbolizer) marking its threads.  With children (--children), every
 * process any of them forks from now on is sampled too: the sampler
 * announces the child (on_process); it keeps its samples when it exits.
 * sampler_start chooses a backend that can (SAMPLER_CAP_MANY,
 * SAMPLER_CAP_CHILDREN) and refuses, exit code 2, a --sampler that
 * cannot.  pids[0] names the session (meta, the header).  Fails, naming
 * the PID, when any one cannot be attached; the ones already attached
 * are let go. */
struct source *collect_start_pids(const struct sampler_config *cfg,
                                  const pid_t *pids, size_t npids,
                                  bool children, char *err, size_t errlen,
                                  int *code);

/* -a: every user process (not sproftop, not kernel threads), now and
 * started later, on every CPU (cfg->all, SAMPLER_CAP_ALL).  A process
 * gets its fold at its first sample.  Needs the privilege the backend
 * names (sampler_about(SAMPLER_ABOUT_ALL)): otherwise NULL and one line
 * in err saying which is missing.  The session is named "all". */
struct source *collect_start_all(const struct sampler_config *cfg, char *err,
                                 size_t errlen, int *code);

#endif
