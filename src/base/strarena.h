/* strarena.h - the one string arena: interned, NUL-terminated strings.
 *
 * Each distinct string is stored once, in chunks that never move, so a
 * returned pointer stays valid until strarena_free and equal strings
 * compare equal by id (or by pointer).  Ids are dense, from 0, in the
 * order strings were first interned.  Used by the profile (names, files,
 * modules) and the symbolizer (names it builds).
 *
 * Not thread-safe: one owner, or the owner's lock.  libc only.
 */
#ifndef SPROFTOP_STRARENA_H
#define SPROFTOP_STRARENA_H

#include <stddef.h>
#include <stdint.h>

#include "idtab.h"

struct strarena_chunk;

struct strarena {
    struct strarena_chunk *chunks; /* newest first */
    char **str;                    /* string by id */
    size_t nstr, capstr;
    struct idtab ids;              /* hash -> id */
    size_t bytes;                  /* bytes of string data held */
};

/* An empty arena needs no allocation: struct strarena a = {0}. */

/* The id of p[0..n) (which need not be NUL-terminated, and may hold no
 * NUL), interning a copy if it is new.  UINT32_MAX on OOM. */
uint32_t strarena_intern_id(struct strarena *a, const char *p, size_t n);

/* The interned copy of p[0..n): strarena_str of its id.  NULL on OOM. */
const char *strarena_intern(struct strarena *a, const char *p, size_t n);

/* The string with this id (id < a->nstr). */
const char *strarena_str(const struct strarena *a, uint32_t id);

/* The id of p[0..n) if it is interned, else UINT32_MAX.  No allocation. */
uint32_t strarena_lookup(const struct strarena *a, const char *p, size_t n);

/* Make dst (uninitialised or empty) an independent copy of src with the
 * same ids, its strings in one allocation: a snapshot's copy costs a few
 * memcpy calls, no hashing.  0, or -1 on OOM (dst is then empty). */
int strarena_copy(struct strarena *dst, const struct strarena *src);

/* Drop every string (ids restart at 0), keeping nothing. */
void strarena_free(struct strarena *a);

/* Bytes the arena takes: its chunks, the id array and the index.  Any
 * thread that may read a. */
size_t strarena_footprint(const struct strarena *a);

#endif
