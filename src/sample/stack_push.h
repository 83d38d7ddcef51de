/* stack_push.h - push one sampled stack into the ingest buffer, with the
 * interpreter frames of its process spliced in.
 *
 * Both backends push every sample through here: the interpreter readers
 * (src/frames/script_frames.h) resolve and splice a stack and hand out
 * the code objects it names; this module pushes those code objects
 * (INGEST_CODE, before the first sample that names them), then the
 * sample, and counts both in the backend's statistics.  The readers
 * push nothing and know no ingest buffer.
 *
 * All calls: the sampler thread that owns the process.
 */
#ifndef SPROFTOP_STACK_PUSH_H
#define SPROFTOP_STACK_PUSH_H

#include <stdbool.h>
#include <stdint.h>

struct ingest;
struct ingest_rec;
struct sampler_stats;
struct script_proc;
struct script_stack;

/* Splice py into the native stack pcs[0..n) (leaf first; script_splice)
 * and push the sample with header hdr (its flags get INGEST_F_SCRIPT_TORN
 * when py could not be read, INGEST_F_GVL when the thread waits for the
 * GVL); code objects the collector has not seen go first.  sp NULL or py
 * not walked: pushed as it is (a stack kept from an earlier push holds
 * its interpreter frames already).  The kernel's part of the stack,
 * kpcs[0..nk) (leaf first; NULL, 0: none), goes above it
 * (ingest_rec.kernel); the words left in *words are the user part's
 * alone.  Counts it in *st: samples, and script_samples (with script
 * frames) or script_torn; lost when the ingest buffer is full, and then
 * returns false.  The words pushed are left in *words, *nwords (when
 * words is not NULL; valid until the next call with sp), for a backend
 * that keeps a blocked thread's last stack. */
bool stack_push(struct script_proc *sp, struct ingest *in,
                struct sampler_stats *st, const struct ingest_rec *hdr,
                const uint64_t *pcs, int n, const struct script_stack *py,
                const uint64_t *kpcs, int nk, const uint64_t **words,
                int *nwords);

#endif
