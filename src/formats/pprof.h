/* pprof.h - the pprof reader's state and its first pass, shared by the
 * two files of the reader and nothing else:
 *   pprof.c       sniffing and gunzip, and pass 1: the Profile message
 *                 read into records (samples and strings kept as spans);
 *   load_pprof.c  passes 2 to 4: strings and ids, frames, samples, then
 *                 the metadata; the entry point load_pprof (load.h).
 * The records mirror profile.proto's messages (pb.h numbers the fields).
 */
#ifndef SPROFTOP_PPROF_H
#define SPROFTOP_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "idtab.h"
#include "pb.h"
#include "profile.h"

/* Gunzipped bytes: at most PPROF_MAX_INFLATED, and past
 * PPROF_INFLATE_FLOOR at most PPROF_INFLATE_RATIO times the compressed
 * size.  Profiles compress 2 to 10 times; a string table of empty
 * strings, 1,000 times (100 KB of gzip for 104 MB). */
#define PPROF_MAX_INFLATED (1024ull * 1024 * 1024)
#define PPROF_INFLATE_FLOOR (64ull << 20)
#define PPROF_INFLATE_RATIO 64

/* Budgets tied to the size of the Profile message (after gunzip), so a
 * small crafted file cannot make the reader take gigabytes or hours:
 *   - memory for the records: every record costs at least 2 bytes of
 *     input and up to 48 bytes here (a string table of 52 million empty
 *     strings is 104 MB of message, 100 KB of gzip); real profiles need
 *     under 3 bytes a byte (pprof_mem_budget's comment);
 *   - frames the samples expand to: a Location of 4,096 lines named by
 *     8,000 samples is 33 million frames from 251 bytes of gzip; real
 *     profiles name each frame with at least one byte of location id,
 *     and inline a few lines per location. */
#define PPROF_MEM_BASE (64ull << 20)        /* bytes allowed any profile */
#define PPROF_MEM_PER_BYTE 4                /* and per byte of message */
#define PPROF_FRAMES_BASE (1ull << 20)      /* frames allowed any profile */
#define PPROF_FRAMES_PER_BYTE 4             /* and per byte of message */
#define PPROF_FRAMES_MAX (1ull << 26)       /* and never more */
#define NONE UINT32_MAX

struct span {
    const uint8_t *data;  /* payload (points into the decoded buffer) */
    size_t len;
    size_t off;           /* absolute offset of the payload */
};

struct vtype {
    uint64_t type, unit;  /* string indexes */
    size_t off;
};

struct comment {
    uint64_t str;         /* string index */
    size_t off;
};

struct mapping {
    uint64_t id;
    uint64_t memory_start, memory_limit, file_offset;
    uint64_t filename;    /* string index */
    uint64_t build_id;    /* string index, 0 for none */
    size_t off;
};

struct function {
    uint64_t id;
    uint64_t name, filename; /* string indexes */
    uint64_t start_line;
    size_t off;
};

struct line {
    uint64_t function_id;
    uint64_t line;
    uint32_t fn;          /* resolved function index */
    uint32_t key;         /* resolved frame key index */
};

struct location {
    uint64_t id;
    uint64_t mapping_id;
    uint64_t address;
    uint32_t line0, nlines;  /* slice of lines[] */
    uint32_t map;            /* resolved mapping index, NONE for none */
    uint32_t frame0;         /* first frame in frames[] (bottom first) */
    size_t off;
};

/* A frame key: (function, mapping) as one aggregate frame. */
struct fkey {
    uint32_t fn;          /* function index */
    uint32_t map;         /* mapping index or NONE */
    uint64_t addr;        /* address of a location it is outermost in */
    bool inlined;         /* a non-outermost line somewhere */
    uint32_t frame;       /* interned frame id */
};

struct loader {
    const char *name;      /* file name for errors */
    char *err;             /* the caller's error buffer */
    size_t errlen;
    bool failed;           /* err holds the first error */
    size_t msg_len;        /* bytes of the Profile message */
    size_t mem_used, mem_budget;       /* record bytes: pprof_charge */
    uint64_t frames_used, frames_budget; /* frames the samples expand to */

    /* Pass 1: the Profile's repeated fields as read (arrays, count, cap). */
    struct vtype *types;   size_t ntypes, types_cap;       /* sample_type */
    struct span *samples;  size_t nsamples, samples_cap;   /* unparsed */
    struct mapping *maps;  size_t nmaps, maps_cap;
    struct function *fns;  size_t nfns, fns_cap;
    struct location *locs; size_t nlocs, locs_cap;
    struct line *lines;    size_t nlines, lines_cap;       /* of all locs */
    struct span *strs;     size_t nstrs, strs_cap;         /* string_table */
    struct comment *comments; size_t ncomments, comments_cap;
    struct vtype period_type;
    bool has_period_type;
    uint64_t time_nanos, duration_nanos, period;

    /* Pass 2 and 3: resolved strings and frames. */
    char **str;            /* NUL-terminated UTF-8 copies of strs */
    char *str_arena;       /* their storage */
    struct fkey *keys;     size_t nkeys, keys_cap;         /* frame keys */
    struct idtab key_ix;   /* key_hash(fn, map), a bijection -> key */
    uint32_t *frames;      /* per location: its frames, bottom first */
    uint32_t *frame_lines; /* and their line numbers */

    /* Pass 4: the result.  The samples are added as counts (their
     * value_index value) while the time values (time_index, time_ns ns
     * each) agree with count x period; when some does not (a live run
     * whose rate changed), they are added again weighing their time. */
    uint32_t time_index;   /* a sample type in units of time, or NONE */
    uint64_t period_ns;    /* the period in ns, 0 when not known */
    uint64_t time_ns;      /* ns per unit of that type */
    bool weigh;            /* adding with the time values as weights */
    bool times_agree;      /* every time value is count x period */
    bool times_known;      /* every sample counted has a time value */
    uint64_t time_total;   /* sum of the time values in ns (saturating) */
    struct profile *p;
    struct stack_frame *stack;  /* one sample's stack, LOAD_MAX_DEPTH */
    uint32_t *loc_scratch;      /* its location indexes, leaf first */
};

/* Report the first problem: "NAME: byte OFF: why" in ld's error buffer
 * (later ones are dropped).  Returns -1. */
__attribute__((format(printf, 3, 4)))
int pprof_fail(struct loader *ld, size_t off, const char *fmt, ...);

/* Report running out of memory; -1. */
int pprof_oom(struct loader *ld);

/* Report r's decoding error; -1. */
int pprof_reader_fail(struct loader *ld, const struct pb_reader *r);

/* Report field f's wrong wire type (`what` names the field); -1. */
int pprof_wrong_wire(struct loader *ld, const struct pb_field *f,
                     const char *what);

/* Read a varint field into *v, checking its wire type; 0 or -1. */
int pprof_get_varint(struct loader *ld, const struct pb_field *f,
                     const char *what, uint64_t *v);

/* Finish reading a submessage (rc from its last pb_next): 0 at its clean
 * end, -1 with the error set. */
int pprof_sub_end(struct loader *ld, struct pb_reader *r, int rc);

/* Set ld's budgets for a Profile message of len bytes. */
void pprof_budgets(struct loader *ld, size_t len);

/* Count `bytes` more of memory for records, first met at byte off of the
 * message: 0, or -1 with the error set once past the budget. */
int pprof_charge(struct loader *ld, size_t bytes, size_t off);

/* Append one zeroed element to a growable array, charged to the budget;
 * NULL on OOM or past the budget (reported). */
void *pprof_push(struct loader *ld, void **arr, size_t *n, size_t *cap,
                 size_t elem, size_t off);
#define PUSH(ld, arr, n, cap, off) \
    pprof_push(ld, (void **)&(arr), &(n), &(cap), sizeof(*(arr)), off)

/* Inflate a gzip file (one or more members, within the bounds of
 * PPROF_MAX_INFLATED) into *out (malloc'd, caller frees).  0, or -1 with
 * the error set. */
int pprof_gunzip(struct loader *ld, const uint8_t *in, size_t len,
                 uint8_t **out, size_t *outlen);

/* Pass 1: read the Profile message data[0..len) into ld's records.  0, or
 * -1 with the error set. */
int pprof_parse(struct loader *ld, const uint8_t *data, size_t len);

#endif
