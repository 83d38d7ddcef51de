/* annotate.h - a function's machine code, described plainly, and its
 * samples per instruction (perf annotate's view of a function).
 *
 * The engine fills a struct annotation from the module's file
 * (src/symbols/annot.c; the disassembler is src/disasm/): each
 * instruction's address in the target, length, text, jump or call
 * target, source file:line and innermost inlined function.  A source
 * hands one out through its annotate op (source.h).  Here it is plain
 * data, and the one place its samples are counted and laid out:
 *   - annot_count puts a function's per-address weights (profile_lines
 *     by address) on its instructions;
 *   - annot_rows lays the instructions out, each run of instructions of
 *     one source line under a row for that line;
 *   - annot_hot_order ranks them by self weight.
 * The code view's annotate mode (ui/code_view.c), the text export's
 * --annotate and the callgrind export's per-instruction costs
 * (src/formats/) all read these, so they cannot disagree.
 *
 * Pure: libc only.  Not thread-safe: one owner.
 */
#ifndef SPROFTOP_ANNOTATE_H
#define SPROFTOP_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"
#include "strarena.h"

/* Largest function shown whole; past it, ANNOT_WINDOW bytes around its
 * hottest address (a profiler's listing is no object dump, and one
 * keypress must not decode megabytes). */
#define ANNOT_MAX_BYTES (128u << 10)
#define ANNOT_WINDOW (64u << 10)

enum annot_kind {
    ANNOT_OTHER = 0,  /* any other instruction */
    ANNOT_JUMP,       /* a jump, conditional or not */
    ANNOT_CALL,       /* a call */
    ANNOT_RET,        /* a return */
    ANNOT_BAD,        /* bytes the disassembler could not decode */
};

/* One instruction.  Strings live in the annotation's arena. */
struct annot_insn {
    uint64_t addr;           /* in the target: the profile's addresses */
    uint32_t len;            /* bytes */
    uint32_t line;           /* source line of the address, 0: unknown */
    uint8_t kind;            /* enum annot_kind */
    const char *text;        /* "mov    -0x8(%rbp),%rax"; never NULL */
    const char *file;        /* source file of that line, NULL: unknown */
    const char *inlined;     /* the innermost inlined function the
                                instruction belongs to, NULL: the
                                function's own code */
    uint64_t target;         /* a direct jump's or call's target in the
                                target, 0: none (or computed) */
    const char *target_name; /* the function a call's target starts,
                                NULL: unknown */
};

/* A function's code.  `why`, when not empty, says in one line what
 * could not be shown (the whole function when n is 0). */
struct annotation {
    const char *name;        /* the function */
    const char *module;      /* its module's basename, NULL: unknown */
    const char *path;        /* the file the code was read from */
    uint64_t start, end;     /* the function in the target: [start, end) */
    uint64_t from, to;       /* the part decoded: [from, to) */
    struct annot_insn *insn; /* by address */
    size_t n, cap;
    uint64_t bad;            /* bytes that could not be decoded */
    bool unplaced;           /* the profile knows the function's samples
                                but not where in it they fell (a saved
                                profile keeps one address per function):
                                annot_count puts them on no instruction */
    char why[256];
    struct strarena strings;
};

/* What to annotate: a function of a profile, or a call's target. */
struct annot_request {
    struct frame_desc frame; /* name, module, build_id and offset as the
                                profile has them; addr: an address in
                                the function (in the target) */
    bool at_start;           /* frame.addr is its first instruction (a
                                call's target), not any address in it */
    const uint64_t *addrs;   /* its sampled addresses, ascending (may be
                                NULL): a saved profile's code is placed
                                by them, a big function shown around */
    size_t naddrs;
    uint64_t focus;          /* the address to show first: the hottest;
                                0: the function's start */
};

/* The request for function `frame` of p, whose per-address weights are
 * c[0..n) (profile_lines by address): its description, its sampled
 * addresses (in *addrs, malloc'd: the caller frees it after rq's use)
 * and the hottest of them as the focus.  0, or -1 on OOM. */
int annot_request_init(struct annot_request *rq, const struct profile *p,
                       uint32_t frame, const struct profile_linecount *c,
                       size_t n, uint64_t **addrs);

/* An empty annotation (why ""), or NULL on OOM.  Free with
 * annotation_free (NULL is a no-op). */
struct annotation *annotation_new(void);
void annotation_free(struct annotation *a);

/* A copy of s in a's arena (NULL for NULL), for the fields above; NULL
 * on OOM. */
const char *annotation_str(struct annotation *a, const char *s);

/* Say in one line what could not be shown (printf-style; replaces what
 * was said before). */
void annotation_why(struct annotation *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Append an instruction (its strings copied; addresses must ascend).
 * 0, or -1 on OOM. */
int annotation_add(struct annotation *a, const struct annot_insn *in);

/* The index of the instruction holding address addr, or SIZE_MAX. */
size_t annotation_find(const struct annotation *a, uint64_t addr);

/* A function's weights on its instructions. */
struct annot_counts {
    uint64_t *self;      /* per instruction: samples it was the leaf of */
    uint64_t *total;     /* per instruction: self, and for a call the
                            samples taken below it (their return address
                            follows it) */
    uint64_t outside;    /* self weight at addresses no instruction
                            shown holds (past a window, or misplaced),
                            or all of it when a->unplaced */
    uint64_t fn_self;    /* the function's self weight, at every
                            address it was sampled at: what shares are
                            of */
};

/* Count the per-address weights c[0..n) (profile_lines by address) of
 * a's function on its instructions: an address's self on the
 * instruction that holds it, the rest of its total (it was a return
 * address) on the instruction before it, the call.  0, or -1 on OOM.
 * Free with annot_counts_free. */
int annot_count(const struct annotation *a, const struct profile_linecount *c,
                size_t n, struct annot_counts *out);
void annot_counts_free(struct annot_counts *k);

/* Share (0..1) of the function's self weight w is. */
double annot_share(const struct annot_counts *k, uint64_t w);

enum annot_row_kind {
    ANNOT_ROW_SOURCE = 0,  /* a source line over its instructions */
    ANNOT_ROW_INSN,        /* an instruction */
};

/* One row of a listing. */
struct annot_row {
    uint8_t kind;          /* enum annot_row_kind */
    uint32_t insn;         /* the instruction; a source row: the first
                              of the run under it */
    uint64_t self, total;  /* the instruction's weights; a source row:
                              its line's, all the function's instructions
                              of that file:line */
};

/* The rows of a listing: with `source`, a source row over every run of
 * instructions of one file:line (where the line is known), else the
 * instructions alone.  *out malloc'd (NULL when none); the count, or -1
 * on OOM. */
long annot_rows(const struct annotation *a, const struct annot_counts *k,
                bool source, struct annot_row **out);

/* The instructions with self weight, hottest first (ties: by address):
 * *out malloc'd; the count, or -1 on OOM. */
long annot_hot_order(const struct annotation *a, const struct annot_counts *k,
                     uint32_t **out);

/* A jump target in the function as the listing labels it: "+0x1c"
 * (from the function's start) into buf; NULL when t is outside it. */
const char *annot_offset(const struct annotation *a, uint64_t t, char *buf,
                         size_t n);

/* An instruction as a listing shows it, into buf (n bytes): the
 * mnemonic padded to 6, then a jump inside the function as an arrow
 * (`up` for a jump back, a loop; else `down`) and its target's offset
 * ("jne    ↑ +0x52"), a call by its callee's name when known ("call
 * malloc@plt"), else the operands; then the inlined function it belongs
 * to ("   inlined: hash_step").  Returns buf. */
const char *annot_insn_label(const struct annotation *a,
                             const struct annot_insn *in, const char *up,
                             const char *down, char *buf, size_t n);

/* The function of p named `name` (FRAME_FUNC) with the most samples (a
 * name in several modules), PROFILE_NONE when none has samples. */
uint32_t annot_function(const struct profile *p, const char *name);

#endif
