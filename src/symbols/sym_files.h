/* sym_files.h - the target's binaries as the target sees them, for the
 * symbol store to load a module from (sym_store_open).
 *
 * A module is opened through /proc/PID/root/PATH (a target in a container
 * sees other files than we do), checked against the mapped inode, else
 * through /proc/PID/map_files/START-END (deleted or replaced files; needs
 * privilege).  The [vdso] has no file: its image is copied from the
 * target's memory.
 *
 * Part of the symbolizer (sym_store.c opens each module through the
 * process that first maps it), collector thread only.  libc only.
 */
#ifndef SPROFTOP_SYM_FILES_H
#define SPROFTOP_SYM_FILES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct map_entry;

/* "/proc/PID/root" in root when the target has another root than ours,
 * else "": host paths keep debuglink lookups working in the common case. */
void sym_files_root(pid_t pid, char *root, size_t size);

/* Open the file behind module `name` (an absolute path as in the maps) of
 * process pid whose root, seen from here, is `root` ("" when it shares
 * ours).  m is a mapping of it (NULL if unknown): its inode checks the
 * file found and its range names it in map_files.  A root path whose
 * inode differs is used only when nothing better opens: overlay
 * filesystems may show another inode number for the very same file.
 * Returns a read-only descriptor and the path opened (malloc'd, for
 * libdwfl) in *opened, or -1. */
int sym_files_open(pid_t pid, const char *root, const char *name,
                   const struct map_entry *m, char **opened);

/* A copy of the target's [vdso] image at [start, end) (malloc'd), or of
 * our own when the target's memory cannot be read (a 64-bit process on
 * the same kernel maps the same image).  NULL when neither works or the
 * range is not a plausible [vdso] (a few pages). */
char *sym_files_vdso(pid_t pid, uint64_t start, uint64_t end);

#endif
