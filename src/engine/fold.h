/* fold.h - the collector's work: raw stacks from the ingest buffer become
 * symbolized stacks in the profile.
 *
 * The sampler thread hands over the maps text of each generation
 * (fold_add_maps) before any sample of it; the collector thread folds
 * swapped ingest buffers (fold_records): a sample's pcs are symbolized
 * with the maps of its generation, through a cache of frames per
 * (pc, is-return-address) that lasts one generation, and its stack is
 * added to the profile.
 *
 * Locks: the maps hand-over takes `maps_lock` for an O(1) link and
 * unlink; every malloc and free happens outside it, so symbolization
 * never delays the sampler (which also takes it).  The profile is
 * guarded by `prof_lock`, which only the collector thread and the
 * readers below take; the sampler never does.
 *
 * The symbolizer is reached through symbols.h only, so a test can link a
 * fake one in its place (tests/unit/engine/test_collect.c).
 */
#ifndef SPROFTOP_FOLD_H
#define SPROFTOP_FOLD_H

#include <stddef.h>
#include <stdint.h>

struct fold;
struct profile;
struct profile_meta;
struct symbols;

/* A fold into a new, empty profile.  NULL on OOM.  Any thread, before
 * the sampler and the collector start. */
struct fold *fold_new(void);

/* Free the fold, its profile, its pending maps and its symbolizer.  Only
 * once the sampler and the collector have stopped.  NULL is a no-op. */
void fold_free(struct fold *f);

/* The symbolizer to use (taken over: fold_free frees it).  Before the
 * first fold_records. */
void fold_set_symbols(struct fold *f, struct symbols *sym);

/* Sampler thread (sampler_config.on_maps): the maps text of generation
 * gen (copied).  A generation that cannot be copied (OOM) is skipped:
 * its samples are symbolized with the newest older one. */
void fold_add_maps(struct fold *f, uint64_t gen, const char *text,
                   size_t len);

/* Collector thread: fold one swapped ingest buffer (ingest_swap) into the
 * profile.  Samples whose stack cannot be symbolized (OOM) are dropped. */
void fold_records(struct fold *f, const uint8_t *data, size_t len);

/* --- readers: any thread (they take prof_lock) --- */

/* A copy of the profile (profile_clone), owned by the caller; NULL on
 * OOM. */
struct profile *fold_snapshot(struct fold *f);

/* Samples in the profile. */
uint64_t fold_samples(struct fold *f);

/* A counter that changes whenever the profile does. */
uint64_t fold_generation(struct fold *f);

/* Drop every sample (frames and threads stay). */
void fold_reset(struct fold *f);

/* Replace the profile's metadata (profile_set_meta). */
void fold_set_meta(struct fold *f, const struct profile_meta *m);

#endif
