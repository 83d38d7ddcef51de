/* idtab.h - the one hash table: 64-bit hash -> dense 32-bit id.
 *
 * The project's tables (frames by description, nodes by (parent, frame),
 * strings, pc caches...) all map a key to a small integer id that indexes
 * an array the caller owns.  idtab stores only (hash, id) pairs, linearly
 * probed, at most half full; the caller keeps the keys and says whether a
 * candidate id matches (so keys of any shape work, with no copy).
 *
 *     uint64_t h = util_hash_bytes(s, n, 0);
 *     uint32_t id = idtab_find(&t, h, eq_fn, ctx);  // eq_fn(ctx, id)
 *     if (id == IDTAB_NONE) { id = add_key(...); idtab_insert(&t, h, id); }
 *
 * Hashes should be well mixed (util_mix64 / util_hash_bytes).  Not
 * thread-safe: one owner, or the owner's lock.  libc only.
 */
#ifndef SPROFTOP_IDTAB_H
#define SPROFTOP_IDTAB_H

#include <stddef.h>
#include <stdint.h>

#define IDTAB_NONE UINT32_MAX

struct idtab_slot {
    uint64_t hash;
    uint32_t id;     /* IDTAB_NONE: empty */
};

struct idtab {
    struct idtab_slot *slots; /* mask + 1 of them, or NULL when empty */
    size_t mask;
    size_t n;                 /* ids stored */
};

/* An empty table needs no allocation: struct idtab t = {0}. */

/* The id stored under hash h for which eq(ctx, id) is true, or
 * IDTAB_NONE.  eq may be NULL when the hash alone identifies the key. */
uint32_t idtab_find(const struct idtab *t, uint64_t h,
                    int (*eq)(void *ctx, uint32_t id), void *ctx);

/* Store id under hash h (no check for an equal key: find first).  Grows
 * the table to keep it at most half full.  0, or -1 on OOM (the table is
 * unchanged). */
int idtab_insert(struct idtab *t, uint64_t h, uint32_t id);

/* Forget the id stored under hash h (the one insert stored: same hash,
 * same id), closing its gap so later finds probe no further than before
 * (backward-shift deletion; no tombstones).  0, or -1 when it is not
 * there. */
int idtab_remove(struct idtab *t, uint64_t h, uint32_t id);

/* Make room for `n` ids in all without a further allocation (so inserts
 * can happen under a lock).  0 or -1 on OOM. */
int idtab_reserve(struct idtab *t, size_t n);

/* Make dst (uninitialised or empty) an independent copy of src: the same
 * ids under the same hashes.  0, or -1 on OOM (dst is then empty). */
int idtab_copy(struct idtab *dst, const struct idtab *src);

/* Forget every id, keeping the memory. */
void idtab_clear(struct idtab *t);

/* Free the slots; the table is empty again. */
void idtab_free(struct idtab *t);

/* Bytes the slots take (0 when empty).  Any thread that may read t. */
size_t idtab_bytes(const struct idtab *t);

#endif
