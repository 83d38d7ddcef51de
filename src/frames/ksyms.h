/* ksyms.h - kernel addresses -> kernel function names, from /proc/kallsyms.
 *
 * The kernel's call chain (perf_event's PERF_SAMPLE_CALLCHAIN) gives
 * addresses; /proc/kallsyms lists every kernel function's start address,
 * type and name, and for a loaded module's functions the module's name
 * ("ffffffffc0201000 t nf_hook\t[nf_conntrack]").  A table is that list
 * sorted by address; an address belongs to the text symbol at or below
 * it, unless that is more than KSYMS_MAX_FUNC bytes below (past a
 * region's last function, into padding or data), or not text at all:
 * then it is outside every symbol, and named "[kernel]+0xADDRESS".
 *
 * The text is untrusted (a test feeds odd ones, and under kptr_restrict
 * every address reads 0): lines that do not parse are skipped, names are
 * bounded (KSYMS_NAME_MAX), and a table whose addresses are all zero has
 * no symbol and says so (ksyms_hidden), so every lookup misses.
 *
 * A `struct ksyms` holds the current table of one source (a path,
 * /proc/kallsyms unless a test names another), read at its first lookup,
 * and replaces it when the source changes, so a module loaded while
 * sampling gets its names and an unloaded one's go: ksyms_check, called
 * on the collector's schedule, compares the source at most once a
 * second (for /proc/kallsyms, the text of /proc/modules; for another
 * file, its text) and reads it again if it changed.  A sample is named
 * by the table in effect when it was taken: the one read last before
 * its time (the first table for anything earlier), so a collector that
 * names samples seconds after they were taken (a loaded machine, a
 * sanitizer build) does not name a module's function in a sample taken
 * before it was loaded, or after it was unloaded.  The tables replaced
 * stay KSYMS_OLD_NS, at most KSYMS_KEEP in all.  Each reload bumps
 * ksyms_epoch: names handed out before stay valid only until then, and
 * table indexes (ksyms_table_at) change.
 *
 * Pure: libc only (the file is read with stdio), so the parser is fuzzed
 * (tests/fuzz/fuzz_kallsyms.c) and unit-tested without a kernel.  Not
 * thread-safe: the collector thread owns one (collect.c), or whoever
 * made it.
 */
#ifndef SPROFTOP_KSYMS_H
#define SPROFTOP_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KSYMS_PROC "/proc/kallsyms"
#define KSYMS_MAX_FUNC (64u << 10) /* no kernel function is longer (the
                                      longest here: 25 KiB) */
#define KSYMS_NAME_MAX 512         /* the kernel's KSYM_NAME_LEN */
#define KSYMS_KEEP 4               /* tables kept: the current one and
                                      the last ones it replaced */
#define KSYMS_OLD_NS (60ull * 1000000000ull) /* ...for this long after
                                      they were replaced */
#define KSYMS_FILE_MAX (256u << 20)/* a kallsyms text larger than this is
                                      refused (the real one: 5 MiB) */

/* A symbol an address falls in.  Strings live in the table until the
 * next reload (ksyms_epoch changes) or ksyms_free. */
struct ksym_hit {
    const char *name;    /* "read_zero" */
    const char *module;  /* "[kernel.kallsyms]", or "[MOD]" for a
                            module's function */
    uint64_t start;      /* the function's address */
};

struct ksyms_stats {
    uint64_t symbols;    /* symbols in the current table */
    uint64_t modules;    /* modules named by them */
    uint64_t lookups;    /* ksyms_lookup calls */
    uint64_t misses;     /* ...outside every symbol (or hidden) */
    uint64_t reloads;    /* tables read (the first one included) */
    uint64_t bad_lines;  /* lines of the text skipped as malformed */
    bool hidden;         /* the text has symbols, all at address 0
                            (kptr_restrict, or not privileged) */
    bool unreadable;     /* the source could not be read */
};

struct ksyms_table;

/* Parse kallsyms text (len bytes, no NUL needed).  Never fails on bad
 * content: malformed lines are skipped and counted.  NULL only on OOM.
 * Free with ksyms_table_free. */
struct ksyms_table *ksyms_table_parse(const char *text, size_t len);
void ksyms_table_free(struct ksyms_table *t);

/* The symbol addr falls in (see above): true and *out, or false. */
bool ksyms_table_lookup(const struct ksyms_table *t, uint64_t addr,
                        struct ksym_hit *out);

/* Figures of a table: symbols, modules, bad lines, hidden. */
void ksyms_table_stats(const struct ksyms_table *t, struct ksyms_stats *out);

struct ksyms;

/* A reloading table of `path` (NULL: /proc/kallsyms), read at the first
 * lookup.  NULL on OOM. */
struct ksyms *ksyms_new(const char *path);
void ksyms_free(struct ksyms *k);

/* Name a kernel address of a sample taken at at_ns, by the table in
 * effect then (the source is read at the first call, at now_ns; both
 * CLOCK_MONOTONIC).  true and *out, or false (outside every symbol,
 * hidden addresses, or the source unreadable). */
bool ksyms_lookup(struct ksyms *k, uint64_t addr, uint64_t at_ns,
                  uint64_t now_ns, struct ksym_hit *out);

/* Which table names a sample taken at at_ns: 0 the current one, up to
 * KSYMS_KEEP - 1 for the ones it replaced (0 before the first read).
 * Stable until the next reload (ksyms_epoch). */
unsigned ksyms_table_at(const struct ksyms *k, uint64_t at_ns);

/* Read the source now unless it was (else the first lookup does): the
 * collector does it as it starts, so the 0.1 s that /proc/kallsyms
 * takes is not spent in the middle of a session. */
void ksyms_load(struct ksyms *k, uint64_t now_ns);

/* Once the source has been read, at most once a second of now_ns: read
 * it again if it changed (a module loaded or unloaded).  true when the
 * table was replaced (ksyms_epoch changed). */
bool ksyms_check(struct ksyms *k, uint64_t now_ns);

/* Changes at every reload: names from an older epoch are gone. */
uint64_t ksyms_epoch(const struct ksyms *k);

/* Figures since ksyms_new (symbols, modules, hidden: of the current
 * table). */
void ksyms_get_stats(const struct ksyms *k, struct ksyms_stats *out);

/* Whether the names of kernel frames cannot be known here, and why, in
 * one line with the fix, into buf (n bytes): /proc/kallsyms reads every
 * address as 0 (kptr_restrict; "sysctl kernel.kptr_restrict=0 or run as
 * root").  Reads the first lines of `path` (NULL: /proc/kallsyms).
 * true and buf, or false when names are available. */
bool ksyms_refusal(const char *path, char *buf, size_t n);

/* The name of an address outside every symbol: "[kernel]+0xADDR", into
 * buf (n bytes); returns buf. */
const char *ksyms_unknown_name(uint64_t addr, char *buf, size_t n);

#endif
