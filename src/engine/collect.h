/* collect.h - the live source: sampler -> ingest -> symbolizer -> profile.
 *
 * collect_start starts the sampler (which attaches) and a collector thread
 * that every 50 ms swaps the ingest buffer, symbolizes the raw stacks
 * (through a pc cache, so libdwfl is asked once per address and maps
 * generation) and adds them to the profile under a lock that only the
 * collector and snapshot() take; the sampler never waits on it.
 *
 * The result is a `struct source` (source.h) for the TUI and batch mode.
 */
#ifndef SPROFTOP_COLLECT_H
#define SPROFTOP_COLLECT_H

#include <stdio.h>

#include "sampler.h"
#include "source.h"

/* Start sampling per cfg (cfg->ingest and cfg->on_maps are filled in here).
 * Returns the live source, or NULL with a one-line reason in err and the
 * exit code to use in *code. */
struct source *collect_start(const struct sampler_config *cfg, char *err,
                             size_t errlen, int *code);

/* Stop sampling (detaching from the target) and fold every pending sample
 * into the profile.  The source stays readable.  Idempotent. */
void collect_finish(struct source *src);

/* The sampler's figures (valid until the source is closed). */
void collect_sampler_stats(struct source *src, struct sampler_stats *out);

/* Print the --stats report to f. */
void collect_print_stats(struct source *src, FILE *f);

#endif
