/* maps.h - the one /proc/PID/maps parser: a sorted snapshot of mappings.
 *
 * The sampler reads the target's mappings to find the stack to copy, the
 * unwinder uses them to find ELF objects and to check every address it
 * reads, and the symbolizer parses the same text (which travels to it
 * unchanged, so both sides see the same generation of mappings) for the
 * [vdso], anonymous JIT code and each file's offset and inode.
 *
 * A snapshot is immutable once parsed: any thread may read it; whoever
 * parsed it frees it.  libc only (no ptrace).
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
    uint64_t inode;     /* 0 for anonymous memory */
    bool r, w, x;       /* permissions */
    const char *path;   /* file path (may end in " (deleted)"), "[stack]",
                           "[vdso]"...; "" if anonymous */
};

/* One allocation: the arrays point into the same block. */
struct maps {
    struct map_entry *v; /* sorted by start, non-overlapping */
    size_t n;
    char *text;          /* the raw text the entries were parsed from,
                            NUL-terminated */
    size_t text_len;
    char *strings;       /* copy of text split into lines; paths point here */
};

/* Read and parse /proc/PID/maps.  NULL on failure (errno set: ESRCH when
 * the process is gone).  Free with maps_free. */
struct maps *maps_read(pid_t pid);

/* The same through a given thread, /proc/PID/task/TID/maps: needed when
 * the leader is a zombie (main called pthread_exit), whose own maps file
 * is empty while the other threads run on. */
struct maps *maps_read_task(pid_t pid, pid_t tid);

/* Parse len bytes of maps text (copied; need not be NUL-terminated).
 * Lines that are not "start-end perms offset dev inode [path]" with
 * start < end are skipped.  NULL on OOM. */
struct maps *maps_parse(const char *text, size_t len);

/* The mappings of `base` (NULL: none) with `add` mapped over them, as
 * the kernel's MMAP2 record of a new mapping says: what add covers of
 * an older mapping is gone (a mapping it covers in part keeps the rest,
 * with its file offset moved on).  The text is rebuilt in /proc's
 * format (device 00:00, every mapping private).  NULL on OOM. */
struct maps *maps_with(const struct maps *base, const struct map_entry *add);

/* The mappings of `m` that `now` still shows, each kept whole where an
 * entry of `now` overlaps it with the same inode and path; and the
 * mappings `now` has of those same files where `m` has nothing (an
 * object's read-only segments, that MMAP2 records of executable memory
 * never tell).  No other mapping of `now` is taken in.  The records tell
 * new mappings but no unmap: this drops what was unmapped (a dlclose'd
 * library) without taking in what `now` may have of a later exec.
 * segments false: nothing of `now` is added (maps built from the records
 * alone, whose objects the unwinder reads from their files).  At worst
 * O(n k) for n and k mappings.  NULL on OOM. */
struct maps *maps_still_mapped(const struct maps *m, const struct maps *now,
                               bool segments);

/* Whether m lists some file's segments other than code (read from
 * /proc, which shows them all), rather than code alone (built from
 * MMAP2 records of executable memory).  NULL: false.  Any thread. */
bool maps_has_data_segments(const struct maps *m);

/* NULL is a no-op. */
void maps_free(struct maps *m);

/* The entry containing addr, or NULL (m may be NULL). */
const struct map_entry *maps_find(const struct maps *m, uint64_t addr);

/* The first entry whose path is `path`, or NULL. */
const struct map_entry *maps_find_path(const struct maps *m, const char *path);

/* True when both snapshots have the same text. */
bool maps_same(const struct maps *a, const struct maps *b);

#endif
