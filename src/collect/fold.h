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
 * When debug info arrives late (debuginfod), fold_update_names renames
 * the frames it covers in the profile (profile_rename_frames), so the
 * samples taken before are not left under "[module+0x...]".
 *
 * The symbolizer is reached through symbols.h only, so a test can link a
 * fake one in its place (tests/unit/engine/test_collect.c).
 */
#ifndef SPROFTOP_FOLD_H
#define SPROFTOP_FOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fold;
struct profile;
struct profile_meta;
struct symbols;

/* A fold into a new, empty profile.  NULL on OOM.  Any thread, before
 * the sampler and the collector start. */
struct fold *fold_new(void);

/* A fold for another process of the same session (-p with a list):
 * its own maps, symbolizer (on the session's symbol store) and pc cache, adding into base's profile
 * under base's lock, so base's readers see every process.  NULL on OOM.
 * Free every sibling before its base.  Same thread rules as fold_new. */
struct fold *fold_new_sibling(struct fold *base);

/* Free the fold, its profile, its pending maps and its symbolizer.  Only
 * once the sampler and the collector have stopped.  NULL is a no-op. */
void fold_free(struct fold *f);

/* The symbolizer to use (taken over: fold_free frees it).  Before the
 * first fold_records. */
void fold_set_symbols(struct fold *f, struct symbols *sym);

struct ksyms;
/* Kernel addresses (a sample's first ingest_rec.kernel pcs) are named
 * from k, the session's (ksyms.h; NULL: all "[kernel]+0x..."), which the
 * collector thread alone uses; show: they go into the stacks (else only
 * an off-CPU record's reason is read from them).  An off-CPU record
 * (INGEST_F_OFFCPU) ends in its reason frame ("[off-CPU: disk I/O]",
 * offcpu_reason.h) either way.  Before the first fold_records, on any
 * thread: k itself is not read until then. */
void fold_set_kernel(struct fold *f, struct ksyms *k, bool show);

/* The first file named in maps text[0..len) (the process's executable:
 * the lines are in address order and the program's code lies below its
 * libraries'), malloc'd; NULL when none or on OOM.  Any thread. */
char *fold_maps_exe(const char *text, size_t len);

/* The process this fold's samples come from: every thread it adds is
 * marked with it (profile_thread_set_process).  A process that begins
 * now: the profile's threads of its PID made before (an earlier process
 * of that PID) are not its (profile_process_thread).  Before the first
 * fold_records; any thread (takes no lock). */
void fold_set_process(struct fold *f, int64_t pid, const char *comm);

/* f is a new image of the process `before` is an image of (an exec):
 * that one's threads are f's too.  After fold_set_process, before the
 * first fold_records; before is not changed. */
void fold_same_process(struct fold *f, const struct fold *before);

/* Sampler thread (sampler_config.on_maps): the maps text of generation
 * gen (copied).  A generation that cannot be copied (OOM) is skipped:
 * its samples are symbolized with the newest older one. */
void fold_add_maps(struct fold *f, uint64_t gen, const char *text,
                   size_t len);

/* Collector thread: fold one swapped ingest buffer (ingest_swap) into the
 * profile.  Samples whose stack cannot be symbolized (OOM) are dropped. */
void fold_records(struct fold *f, const uint8_t *data, size_t len);

/* Collector thread: time has reached now_ns (CLOCK_MONOTONIC) with or
 * without samples, so the profile's recent window moves on
 * (profile_time_advance); a new second counts as a change. */
void fold_advance(struct fold *f, uint64_t now_ns);
/* Collector thread: attach the debug info that arrived since the last
 * call (symbols_update) and give the frames it covers their names.
 * Samples taken before merge into the named functions (their inlined
 * frames and lines are only known for samples taken after).  Cheap when
 * nothing arrived; never waits on a fetch. */
void fold_update_names(struct fold *f);

/* Collector thread: the processes pids[0..n), and the threads keyed
 * threads[0..m) (profile_thread_key) of processes that live on, have
 * exited and every record of theirs is folded: their threads join their
 * commands' aggregates, or their process's exited threads
 * (profile_fold_processes).  The new profile is built without prof_lock
 * (snapshots go on meanwhile; a reset waits) and swapped in under it.
 * The rare stacks of folded threads are cut to keep the nodes below them
 * near `budget` (struct profile_cut; 0: no limit).  Frame ids stay,
 * but frames nothing uses are freed: keep[0..nkeep) must hold every id
 * every fold of the profile holds (fold_frames_held), so that their
 * caches stay good.  Base fold.  On OOM nothing changes (they stay
 * separate). */
void fold_processes(struct fold *base, const int64_t *pids, size_t n,
                    const int64_t *threads, size_t m, uint64_t budget,
                    const uint32_t *keep, size_t nkeep);

/* Collector thread: append the frame ids f holds (its address cache's,
 * its interpreter code objects', its reasons' and "[truncated]") to *v
 * (*n used of *cap, grown), for fold_processes.  0 or -1 on OOM. */
int fold_frames_held(const struct fold *f, uint32_t **v, size_t *n,
                     size_t *cap);

/* --- readers: any thread (they take prof_lock) --- */

struct fold_stats {
    uint64_t renamed;         /* frames named late (fold_update_names) */
    uint64_t samples_before;  /* samples in the profile when the first
                                 late names came */
    uint64_t dropped;         /* samples not added: out of memory, or
                                 after the process's end */
    uint64_t kernel_unnamed;  /* samples with a kernel address outside
                                 every symbol ("[kernel]+0x...") */
    uint64_t idle_dropped;    /* -a: samples of the idle loop, left out */
};

/* Counters since fold_new. */
void fold_get_stats(struct fold *f, struct fold_stats *out);

struct profile_footprint;
struct profile_cut;
/* What the profile (the base's, shared by siblings) holds and takes
 * (profile_footprint), and its rare stacks cut (profile_cut_get, its
 * weights as sample counts: profile_weight_count).  Any thread; takes
 * prof_lock. */
void fold_get_footprint(struct fold *f, struct profile_footprint *out,
                        struct profile_cut *cut);

struct symbols_stats;
/* The symbolizer's counters (symbols_get_stats), also once the fold has
 * released it (its process exited: INGEST_EXIT).  Zeros before
 * fold_set_symbols.  Once the collector has stopped (--stats after
 * finish), like symbols_get_stats. */
void fold_get_symbols_stats(struct fold *f, struct symbols_stats *out);

/* A copy of the profile (profile_clone), owned by the caller; NULL on
 * OOM. */
struct profile *fold_snapshot(struct fold *f);

/* Samples in the profile, as stored at its last change: takes no lock,
 * so a status never waits for a snapshot's copy.  Any thread. */
uint64_t fold_samples(struct fold *f);

/* A counter that changes whenever the profile does. */
uint64_t fold_generation(struct fold *f);

/* Drop every sample (frames and threads stay).  Any thread (the UI's);
 * waits for a fold_processes being built. */
void fold_reset(struct fold *f);

/* Replace the profile's metadata (profile_set_meta). */
void fold_set_meta(struct fold *f, const struct profile_meta *m);

#endif
