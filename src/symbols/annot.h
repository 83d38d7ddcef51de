/* annot.h - a function's machine code from its module's file: the
 * engine's side of the sources' annotate op (source.h; the description
 * handed out is annotate.h's, plain).
 *
 * The module is opened as the symbolizer opens it, into a symbol store
 * of its own (sym_store_open: a live process's file through its
 * /proc/PID/root, else its map_files; a saved profile's from the
 * directories below), so its separate debug info is found the same way
 * (sym_debug.h).  The function is its ELF symbol, else its DWARF
 * subprogram, else its unwind entry (the unnamed code of a stripped
 * binary, sym_fde.h); its bytes come from the file's section, decoded
 * by disasm.h (at most ANNOT_MAX_BYTES; a bigger function is shown in
 * a window around its hottest address); each instruction gets its
 * source line from the line table and its innermost inlined function
 * from sym_dwarf.h, which names the tree's inline frames.  Nothing is
 * read from the target's memory.
 *
 * One thread at a time (the UI's, or batch mode's main thread); no
 * lock, nothing kept between calls.
 */
#ifndef SPROFTOP_ANNOT_H
#define SPROFTOP_ANNOT_H

#include <stddef.h>
#include <sys/types.h>

struct annot_request;
struct annotation;
struct profile;

/* A sampled process: its PID, and the text of the last maps seen of it
 * (NULL: none), which stand for its mappings once it has exited. */
struct annot_proc {
    pid_t pid;
    const char *maps;
    size_t len;
};

/* The code of rq's function in the first of the processes procs[0..n)
 * whose mappings (its /proc/PID/maps, else the last seen) hold it in a
 * file of its module: at its file offset when the frame has one and a
 * start (a live profile's addresses of a function are those of the
 * process it was first sampled in, the others' moved there: fold.c; the
 * annotation's addresses are the profile's), else at its address.  A
 * file changed on disk since it was mapped is read through map_files,
 * or refused.  A new annotation (why set when not all could be shown),
 * or NULL on OOM. */
struct annotation *annot_live(const struct annot_proc *procs, size_t n,
                              const struct annot_request *rq);

/* The same for a function of saved profile p (source_annotate_fn): its
 * module is looked for by name beside the command the profile names
 * (meta.cmdline), in $LD_LIBRARY_PATH, the system library directories
 * and $PATH; a frame that carries a build-id refuses a file with
 * another.  The load address a saved profile lacks is the one page
 * multiple that puts its addresses of the function inside it. */
struct annotation *annot_file(const struct profile *p,
                              const struct annot_request *rq);

#endif
