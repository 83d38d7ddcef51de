/* collect.h - the live source: sampler -> ingest -> fold -> profile.
 *
 * collect_start starts the sampler (which attaches) and a collector thread
 * that every 50 ms swaps the ingest buffer and folds the raw stacks into
 * the profile (fold.h: symbolized through a pc cache, so libdwfl is asked
 * once per address and maps generation).  The sampler never waits on the
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

#include <stddef.h>

#include "sampler.h"
#include "source.h"

/* Start sampling per cfg (cfg->ingest and cfg->on_maps are filled in here).
 * Returns the live source, or NULL with a one-line reason in err and the
 * exit code to use in *code. */
struct source *collect_start(const struct sampler_config *cfg, char *err,
                             size_t errlen, int *code);

#endif
