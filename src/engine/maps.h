/* maps.h - a parsed snapshot of /proc/PID/maps.
 *
 * The sampler reads the target's mappings to find the stack to copy and the
 * unwinder uses them to find ELF objects and to check every address it
 * reads.  The raw text travels on to the symbolizer unchanged, so both sides
 * see the same generation of mappings.
 */
#ifndef SPROFTOP_MAPS_H
#define SPROFTOP_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct map_entry {
    uint64_t start;     /* first address */
    uint64_t end;       /* one past the last address */
    uint64_t offset;    /* file offset of start */
    bool r, w, x;       /* permissions */
    const char *path;   /* file path, "[stack]", "[vdso]"...; "" if anon */
};

struct maps {
    struct map_entry *v; /* sorted by start, non-overlapping */
    size_t n;
    char *text;          /* the raw text the entries were parsed from */
    char *strings;       /* copy of text split into lines; paths point here */
    size_t text_len;
};

/* Read and parse /proc/PID/maps.  NULL on failure (errno set: ESRCH when
 * the process is gone).  Free with maps_free. */
struct maps *maps_read(pid_t pid);

/* The same through a given thread, /proc/PID/task/TID/maps: needed when
 * the leader is a zombie (main called pthread_exit), whose own maps file
 * is empty while the other threads run on. */
struct maps *maps_read_task(pid_t pid, pid_t tid);

/* Parse maps text (copied).  Unparseable lines are skipped.  NULL on OOM. */
struct maps *maps_parse(const char *text, size_t len);

void maps_free(struct maps *m);

/* The entry containing addr, or NULL. */
const struct map_entry *maps_find(const struct maps *m, uint64_t addr);

/* True when both snapshots have the same text. */
bool maps_same(const struct maps *a, const struct maps *b);

#endif
