/* jitmap.h - names for JIT code from the target's perf map.
 *
 * A JIT (V8, the JVM with perf-map-agent, LuaJIT...) writes
 * /tmp/perf-PID.map, one "START SIZE name" line (hex) per function it
 * emits, appending while it runs.  The symbolizer asks here for code that
 * is in no file mapping.  The file is believed only when it is a regular
 * file owned by the target's user: anyone can create /tmp/perf-PID.map
 * first.
 *
 * Owned by the symbolizer (collector thread).  libc only.
 */
#ifndef SPROFTOP_JITMAP_H
#define SPROFTOP_JITMAP_H

#include <stdint.h>
#include <sys/types.h>

struct strarena;
struct jitmap;

/* A perf map at `path` (as seen from here: through /proc/PID/root for a
 * target in a container), to be trusted when owned by `uid`.  Nothing is
 * read yet.  NULL on OOM. */
struct jitmap *jitmap_new(const char *path, uid_t uid);

/* NULL is a no-op. */
void jitmap_free(struct jitmap *j);

/* Forget every entry (the names were in an arena being freed); the next
 * jitmap_find reads the file again. */
void jitmap_clear(struct jitmap *j);

/* The name of the JIT function containing addr, interned in `names`, and
 * its start in *start; NULL when none.  Reads what the JIT appended since
 * last time first, looking at the file at most once a second (a JIT
 * without a map would otherwise cost a stat per unknown frame). */
const char *jitmap_find(struct jitmap *j, struct strarena *names,
                        uint64_t addr, uint64_t *start);

#endif
