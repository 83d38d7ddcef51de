/* load.h - reading saved profiles back (sproftop -i FILE).
 *
 * load_file reads a whole file, picks a reader from the format table
 * (format.h) by sniffing the content (then by the file name's suffix)
 * and returns a new profile.  Readers
 * take untrusted bytes: every length is bounded and any malformed input
 * gives a one-line error naming the file and, for text formats, the line.
 * Called by main.c for -i; the result is usually wrapped in
 * source_file_new.  libc only.
 */
#ifndef SPROFTOP_LOAD_H
#define SPROFTOP_LOAD_H

#include <stdbool.h>
#include <stddef.h>

struct frame_desc;
struct profile;

#define LOAD_MAX_FILE (1024ull * 1024 * 1024) /* bytes read from a file */
#define LOAD_MAX_LINE (1024u * 1024)          /* bytes in one text line */
#define LOAD_MAX_DEPTH 4096u                  /* frames in one stack */

/* Load `path` in whatever supported format it holds.  Returns a new
 * profile (caller frees with profile_free), or NULL with a one-line
 * reason in err (e.g. "x.folded:3: expected a count after the stack"). */
struct profile *load_file(const char *path, char *err, size_t errlen);

/* Load a profile from buf[0..len) (any supported format), as load_file
 * does after reading the file: the content picks the reader, then the
 * suffix of `name`, which also prefixes errors.  buf is not modified and
 * need not be NUL-terminated.  Returns a new profile or NULL with err
 * filled.  The fuzz targets enter here. */
struct profile *load_buffer(const char *buf, size_t len, const char *name,
                            char *err, size_t errlen);

/* A reader's error: "NAME: why" (why from fmt) into err (errlen bytes).
 * Returns -1, for `return load_error(...)`. */
int load_error(char *err, size_t errlen, const char *name, const char *fmt,
               ...) __attribute__((format(printf, 4, 5)));

/* A frame a reader met with a source file and no module (folded's
 * "NAME (FILE:LINE)", speedscope's "file"): when FILE is Python's or
 * Ruby's, d becomes the Python or Ruby frame sproftop and py-spy write
 * that way (its module FILE's base name, the origin profile_origin_of
 * gives); otherwise d is left as it is. */
void load_python_origin(struct frame_desc *d);

/* --- readers: one per src/formats/load_NAME.c, named in its row of the
 * format table (format.h), each declared by these two types (as the
 * writers are by export_write_fn) */

/* Whether buf[0..len) (the start of a file, len > 0) holds the format. */
typedef bool load_sniff_fn(const char *buf, size_t len);

/* Parse buf[0..len) into a new profile, or NULL with a one-line reason
 * in err; `name` (the file's) prefixes errors. */
typedef struct profile *load_fn(const char *buf, size_t len,
                                const char *name, char *err, size_t errlen);

/* True when buf (the first bytes of a file, len > 0) looks like folded
 * stacks: its first non-blank line ends in whitespace and a count. */
load_sniff_fn load_folded_sniff;

/* Parse folded stacks ("a;b;c 12" per line, FORMATS.md section 1) from
 * buf[0..len).  When the first frame of every line reads NAME-TID (as
 * export_folded writes it), those frames become threads; otherwise all
 * stacks go to one thread "all" with tid 0.  `name` prefixes errors.
 * Returns a new profile or NULL with err filled ("NAME:LINE: ..."). */
load_fn load_folded;

/* True when buf starts with the gzip magic, or holds a raw protobuf
 * whose every top-level field is a profile.proto Profile field with the
 * right wire type, string table included. */
load_sniff_fn load_pprof_sniff;

/* Parse a pprof profile (FORMATS.md section 3), gzip-compressed or raw,
 * from buf[0..len).  Threads come from the thread_id / thread_name
 * labels (one thread "all" without them), the count from the
 * samples/count value (else the first).  Returns a new profile or NULL
 * with err filled as "NAME: byte N: why", N counting bytes of the
 * gunzipped message (of the gzip stream for gzip errors). */
load_fn load_pprof;

/* True when buf starts with "@supersamplerV1.0\n". */
load_sniff_fn load_apple_sniff;

/* Parse an Apple Sampler "@supersamplerV1.0" file (FORMATS.md section 5)
 * from buf[0..len), as export_apple writes it: frames of a stack line
 * root first, one line per sample, 16-bit thread ids as tids.  Returns a
 * new profile or NULL with err filled as "NAME: byte N: why" (N from 0). */
load_fn load_apple;

/* True when buf starts (after white space) with '{' and names
 * www.speedscope.app (its "$schema") in its first 4 KiB. */
load_sniff_fn load_speedscope_sniff;

/* Parse a speedscope JSON file (FORMATS.md section 4) from buf[0..len):
 * one thread per sampled profile, counts from the weights (unit none) or
 * from times divided by the interval ("sproftop_interval_ns", else the
 * weights' common divisor).  Returns a new profile or NULL with err
 * filled as "NAME: why" ("NAME: byte N: why" for bad JSON). */
load_fn load_speedscope;

/* True when buf starts (after white space) with '{' and has a
 * "sample_number" or "caller_time" key in its first 64 KiB. */
load_sniff_fn load_racket_sniff;

/* Parse Racket's JSON profile (profile->json; docs/FORMATS.md) from
 * buf[0..len): a profile that holds a call graph, not stacks (profile.h),
 * in samples of total_time / sample_number.  Returns a new profile or
 * NULL with err filled as "NAME: why" ("NAME: byte N: why" for bad JSON,
 * "NAME: node N: why" for a bad node). */
load_fn load_racket;

#endif
