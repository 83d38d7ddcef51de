/* rmem.h - the one way to read another process's memory: bounded copies
 * that return an error, never a crash, whatever the target holds.
 *
 * The interpreter frame readers (pyread.c and the ELF symbol lookup,
 * relf.c) read the target only through this module.  Every address comes
 * from the target and is trusted for nothing: a read either copies all
 * the bytes asked for or fails (the mapping went away, the pointer was
 * garbage, the page is not there), and every length is bounded by the
 * caller before it gets here (RMEM_MAX_READ at most).
 *
 * Two backends behind the same calls:
 *   - a live process: process_vm_readv, which never stops the target;
 *   - a memory image (segments of bytes at addresses): unit tests and the
 *     fuzz harness run the same readers over captured or random images.
 * Reads go through a small page cache that lasts until rmem_forget (one
 * sample's walk), so frames that sit next to each other on the target's
 * frame stack cost one system call, not one each.
 *
 * Not thread-safe: one owner (a sampler thread).  libc only.
 */
#ifndef SPROFTOP_RMEM_H
#define SPROFTOP_RMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define RMEM_MAX_READ (1u << 20) /* longest single copy accepted */

/* One segment of a memory image: len bytes that the target holds at addr. */
struct rmem_seg {
    uint64_t addr;
    const void *data;
    size_t len;
};

struct rmem_stats {
    uint64_t copies;   /* rmem_copy calls (cached or not) */
    uint64_t syscalls; /* reads past the page cache (process_vm_readv
                          calls; an image's are counted alike) */
    uint64_t failed;   /* copies that failed */
};

struct rmem;

/* Memory of process pid, read with process_vm_readv (which needs the
 * right to ptrace-read it, and never stops it).  NULL on OOM. */
struct rmem *rmem_open_pid(pid_t pid);

/* A memory image: the segments (copied) stand for the whole address
 * space; any byte outside them is unreadable.  Overlapping segments: the
 * first listed wins.  NULL on OOM. */
struct rmem *rmem_open_image(const struct rmem_seg *segs, size_t n);

/* NULL is a no-op. */
void rmem_free(struct rmem *m);

/* An image only: the target changed len bytes at addr (they must lie in
 * one segment): the tests' way to free, move or tear what a reader
 * cached.  As a live target's writes, it leaves m's cached pages as they
 * are: a reader sees it after its next rmem_forget.  0, or -1 when no
 * segment holds the range or m is live. */
int rmem_image_poke(struct rmem *m, uint64_t addr, const void *data,
                    size_t len);

/* An image only: the target ended.  Every read fails from now on, as a
 * live process's do once it has exited, and rmem_gone says so (the
 * tests' way to end a process under a reader).  0, or -1 when m is
 * live. */
int rmem_image_exit(struct rmem *m);

/* Whether the target has ended: a read of a live process failed because
 * the process no longer has memory (exited, or a zombie: ESRCH), or an
 * image was ended.  Then no read of it can succeed again, and a failed
 * read says nothing of what the memory held before. */
bool rmem_gone(const struct rmem *m);

/* The target has moved on: forget the cached pages.  Call at the start of
 * every walk of memory that changes (frames); what does not change (code
 * objects, ELF tables) may be read across calls, but is cached only until
 * the next rmem_forget too. */
void rmem_forget(struct rmem *m);

/* Copy len bytes at addr into buf.  0 when every byte was read; -1
 * otherwise (buf's content is then undefined), also for len 0 or above
 * RMEM_MAX_READ, and for a range that wraps. */
int rmem_copy(struct rmem *m, uint64_t addr, void *buf, size_t len);

/* A 64-bit little-endian word (a pointer, a size) at addr into *out.
 * 0, or -1 as rmem_copy. */
int rmem_u64(struct rmem *m, uint64_t addr, uint64_t *out);

/* A NUL-terminated string at addr into buf (cap bytes, cap >= 1): 0 when
 * the string, its NUL included, fits in cap bytes; -1 otherwise
 * (unreadable, or longer: a bounded string is never cut and passed off
 * as whole).  Reads a page at a time, never past the first NUL's page. */
int rmem_cstring(struct rmem *m, uint64_t addr, char *buf, size_t cap);

/* Call tap(ctx, addr, bytes, len) after every rmem_copy that succeeds
 * (also those rmem_u64 and rmem_cstring make): a test tool records what a
 * walk read, to replay it as an image.  NULL stops it. */
void rmem_set_tap(struct rmem *m,
                  void (*tap)(void *ctx, uint64_t addr, const void *buf,
                              size_t len),
                  void *ctx);

/* The counters since rmem_open_*. */
void rmem_get_stats(const struct rmem *m, struct rmem_stats *out);

#endif
