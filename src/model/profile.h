/* profile.h - the aggregate: interned frames, one call tree, derived views.
 *
 * This is the profile model every other part reads or writes:
 *   - the collector (src/collect/collect.c) adds symbolized stacks to it;
 *   - the TUI (ui/, through view_model.h) and the writers
 *     (src/formats/export_*.c) read it, always through a private copy
 *     (profile_clone) or a derived profile (profile_derive), never while
 *     the collector writes it.
 * Its queries (flat table, caller->callee edges, first-use numbering)
 * are the one copy every view and writer uses.  Implemented by
 * profile.c, profile_tree.c and profile_query.c (see profile_impl.h).
 *
 * Layers: this module includes libc only (no curses, ptrace, libunwind or
 * libdw), so tests/unit/ links it alone.  A profile is not thread-safe;
 * whoever shares one guards it with their own lock.
 *
 * Model
 *   Frames are interned: a frame is (kind, name, module, file, build_id)
 *   and gets a dense id from 0.  Strings are copied into the profile.
 *   Code named before its module's debug info was at hand carries the
 *   module's build-id and the function's file offset, so it can be
 *   renamed later (profile_rename_frames), as pprof keys a Location by
 *   its Mapping's build-id and address.
 *
 *   There is one call tree.  Node 0 (PROFILE_ROOT) is the root of all
 *   threads; its children are thread nodes (frame kind FRAME_THREAD, one
 *   per thread); below a thread node the tree is rooted at the bottom of
 *   the stack (thread -> _start -> main -> ... -> leaf).  Children are
 *   keyed by frame id: two calls of f from the same path share a node
 *   whatever their call-site line.
 *
 *   node.total = weight of the samples whose stack passes through it;
 *   node.self  = weight of the samples whose leaf is the node.
 *   Memory grows with the number of unique stacks, not with samples.
 *
 *   Weights.  Every sample carries its weight, the time it stands for
 *   (the interval of an on-CPU sample, the length of an off-CPU
 *   stretch), as perf weights by period; every count of the model (node
 *   self and total, line and address counts, the per-second buckets of
 *   window.h, the flat table, the edges) sums weights, in units of
 *   profile_weight_unit ns.  A live profile weighs in nanoseconds (unit
 *   1), so a rate changed mid-run leaves every share true.  A file that
 *   holds only counts keeps them as they are: unit 0, a sample weighs
 *   one interval (meta.interval_ns, unknown when 0).  Shares are
 *   ratios of weights; times come from profile_weight_ns; counts, as
 *   views and count formats show them, from profile_weight_count: the
 *   weight in units of the nominal interval (meta.interval_ns), which
 *   is the sample count itself for a profile sampled at one rate.  The
 *   number of samples taken is kept beside (profile_sample_count).
 *
 *   Per function, weights are also summed per source line and per
 *   sampled address (self and total), for the source view and for
 *   line-aware exporters.  These counts are global (not per thread).
 */
#ifndef SPROFTOP_PROFILE_H
#define SPROFTOP_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define PROFILE_NONE UINT32_MAX  /* "no frame/node/thread" */
#define PROFILE_ROOT 0u          /* node id of the all-threads root */
/* A profile's total weight stays below PROFILE_COUNT_LIMIT: exact in a
 * double, as the writers need, and the readers refuse more (a live
 * profile in ns reaches it after 104 days of CPU time).  Its
 * duration is at most PROFILE_DURATION_MAX ns: pprof stores it signed. */
#define PROFILE_COUNT_LIMIT (1ull << 53)
#define PROFILE_DURATION_MAX ((uint64_t)INT64_MAX)
#define PROFILE_MERGE_REFUSED (-2)  /* profile_merge: past those limits */

enum frame_kind {
    FRAME_FUNC = 0,     /* a function (possibly inlined) */
    FRAME_THREAD = 1,   /* a thread root; name is "comm-TID" */
    FRAME_SPECIAL = 2,  /* "[truncated]", "[unknown]", "[idle]"... */
    FRAME_PROCESS = 3,  /* a process root of a derived tree (struct
                           profile_filter's process_roots): name "COMM
                           (pid PID)", or "COMM (N processes)" for the
                           processes profile_merge_commands merged; addr is
                           the PID, the node's key (profile_node_key) */
    FRAME_REASON = 4,   /* why a thread was off its CPU (--idle): a
                           synthetic leaf, "[off-CPU: disk I/O]" (see
                           PROFILE_REASON_PREFIX), below the stack the
                           thread left its CPU with */
};

/* Where a frame's code runs: part of the frame's identity.  Views and
 * writers ask profile_frame_is_kernel, profile_frame_is_python or
 * profile_frame_is_script, never a module's name.  A frame has one:
 * native, kernel or script (Python, Ruby). */
enum frame_origin {
    FRAME_ORIGIN_NATIVE = 0, /* user-space machine code */
    FRAME_ORIGIN_KERNEL = 1, /* a kernel function (module PROFILE_KERNEL_
                                MODULE, or "[MOD]" for a module's) */
    FRAME_ORIGIN_PYTHON = 2, /* a Python function: name its qualified
                                name, file its .py file, module that
                                file's name, line its first line */
    FRAME_ORIGIN_RUBY = 3,   /* a Ruby method or block: name its label
                                ("rb_sixty", "block in <main>"; a C
                                method "Array#sort"), file its .rb file
                                ("<cfunc>" for a C method), module that
                                file's name, line its first line */
};

/* With -a, kernel threads and interrupt work are threads of one pseudo
 * process: this PID (above any real one, PID_MAX_LIMIT), this name. */
#define PROFILE_KERNEL_PID 4194304
#define PROFILE_KERNEL_PROCESS "[kernel]"

/* The module of the kernel's own functions, as perf names it. */
#define PROFILE_KERNEL_MODULE "[kernel.kallsyms]"
/* Kernel addresses start here on x86-64 (the upper half). */
#define PROFILE_KERNEL_ADDR 0xffff800000000000ull
/* A reason frame's name: the prefix, the reason, "]". */
#define PROFILE_REASON_PREFIX "[off-CPU: "

/* What a frame is.  Strings are NUL-terminated; NULL means unknown. */
struct frame_desc {
    const char *name;   /* demangled function name; never NULL */
    const char *module; /* module basename ("libc.so.6"), or NULL */
    const char *file;   /* source file of the function, or NULL */
    uint64_t addr;      /* symbol start address in the target, 0 if unknown
                           (not part of the frame's identity) */
    uint32_t line;      /* first line of the function, 0 if unknown (not
                           part of the identity) */
    uint8_t kind;       /* enum frame_kind */
    bool inlined;       /* an inlined instance (not part of the identity) */
    const char *build_id; /* GNU build-id (lowercase hex) of the module of
                           code named without its debug info ("[module+
                           0xOFFSET]", or an exported symbol), so that it
                           can be named again when the debug info
                           arrives; NULL otherwise.  Part of the
                           identity. */
    uint64_t offset;    /* with build_id: the function's start as a file
                           offset in its module (not part of the
                           identity) */
    uint8_t origin;     /* enum frame_origin; part of the identity */
};

/* Whether a frame is a level of the tree (a thread or process root)
 * rather than code: views list it as a row but not as a function. */
static inline bool profile_frame_is_level(const struct frame_desc *d)
{
    return d && (d->kind == FRAME_THREAD || d->kind == FRAME_PROCESS);
}

/* Whether a frame is a kernel function (drawn with the [k] tag, written
 * with the kernel's markers, hidden by profile_filter.hide_kernel). */
static inline bool profile_frame_is_kernel(const struct frame_desc *d)
{
    return d && d->origin == FRAME_ORIGIN_KERNEL;
}

/* Whether a frame is a Python function (an interpreter's frame, not the
 * interpreter's own C code). */
static inline bool profile_frame_is_python(const struct frame_desc *d)
{
    return d && d->origin == FRAME_ORIGIN_PYTHON;
}

/* Whether a frame is an interpreter's frame of any language (Python,
 * Ruby): what P (--python-only) keeps. */
static inline bool profile_frame_is_script(const struct frame_desc *d)
{
    return d && (d->origin == FRAME_ORIGIN_PYTHON ||
                 d->origin == FRAME_ORIGIN_RUBY);
}

/* Whether a frame is an off-CPU reason (FRAME_REASON). */
static inline bool profile_frame_is_reason(const struct frame_desc *d)
{
    return d && d->kind == FRAME_REASON;
}

/* The kind a frame read back from a file has, by its name: FRAME_REASON
 * for "[off-CPU: ...]", FRAME_SPECIAL for any other "[...]" ("[unknown]",
 * "[truncated]"), else FRAME_FUNC.  The readers' one rule for a name. */
enum frame_kind profile_name_kind(const char *name);

/* The origin of a frame read back from a file by its module and file
 * (either may be NULL): a kernel function when its module is the
 * kernel's own, PROFILE_KERNEL_MODULE (a kernel module's "[MOD]" cannot
 * be told from a user mapping's "[vdso]" by its name); a Python function
 * when its module is its own file's name and that file is Python's
 * (".py", or an interpreter's own "<frozen ...>"), as sproftop and py-spy
 * write Python frames; a Ruby one likewise for ".rb", "<cfunc>" and
 * Ruby's "<internal:...>"; else native.  The readers' one rule for an
 * origin. */
enum frame_origin profile_origin_of(const char *module, const char *file);

/* The reason a reason frame names ("disk I/O" for "[off-CPU: disk
 * I/O]"), into buf (n bytes); buf, or NULL when d is not a reason. */
const char *profile_reason_label(const struct frame_desc *d, char *buf,
                                 size_t n);

/* One frame of a stack handed to profile_add_stack. */
struct stack_frame {
    uint32_t frame; /* interned frame id */
    uint32_t line;  /* source line of this frame's sampled address or call
                       site, 0 if unknown */
    uint64_t addr;  /* sampled address (leaf) or return address (callers),
                       0 if unknown */
};

/* A node of the call tree.  Children form a singly linked list. */
struct profile_node {
    uint32_t frame;        /* frame id (PROFILE_NONE for PROFILE_ROOT) */
    uint32_t parent;       /* parent node, PROFILE_NONE for the root */
    uint32_t first_child;  /* PROFILE_NONE when a leaf */
    uint32_t next_sibling; /* PROFILE_NONE when last */
    uint32_t depth;        /* 0 for the root, 1 for thread nodes, ... */
    uint64_t self;         /* weight of the samples ending here */
    uint64_t total;        /* weight of the samples passing through */
};

/* A thread of the profile. */
struct profile_thread {
    int64_t tid;      /* OS thread id (or a synthetic id for loaded files) */
    const char *name; /* comm; owned by the profile */
    uint32_t node;    /* its thread node in the tree */
    uint32_t frame;   /* its FRAME_THREAD frame id */
    int64_t pid;      /* its process (profile_thread_set_process), 0 if
                         unknown */
    const char *process; /* the process's command name, NULL if unknown */
    uint32_t processes; /* in a profile_merge_commands result: how many
                           processes of its command merged into its
                           process; 0 otherwise */
    uint32_t exited;  /* the exited processes of its command folded into
                         it (profile_fold_processes): how many, for every
                         thread of that command's aggregate; 0 for a
                         thread of one process */
    uint64_t serial;  /* its creation's place in the profile's order,
                         from 1 (profile_thread_serial), kept by copies
                         and folds: which of two processes of one PID a
                         thread is (profile_process_thread) */
};

/* Metadata carried to exporters and the TUI header. */
struct profile_meta {
    int64_t pid;            /* target PID, 0 if unknown */
    const char *cmdline;    /* target command line (spaces between args) */
    const char *comm;       /* target command name */
    uint64_t interval_ns;   /* nominal sampling interval: the unit of
                               profile_weight_count (a live profile: the
                               shortest interval asked); 0 unknown */
    uint64_t start_ns;      /* wall-clock time of the first sample (Unix ns) */
    uint64_t duration_ns;   /* wall-clock span covered */
    bool idle;              /* wall-clock (--idle) rather than on-CPU */
};

struct profile;

/* Create an empty profile (only the root node).  Returns NULL on OOM.
 * Free with profile_free. */
struct profile *profile_new(void);

/* Free a profile and everything it owns.  NULL is a no-op. */
void profile_free(struct profile *p);

/* Deep copy: an independent profile with the same ids for frames, nodes
 * and threads.  O(size) memcpy-like work; meant to be called under the
 * owner's lock to take an immutable snapshot.  NULL on OOM. */
struct profile *profile_clone(const struct profile *p);

/* Forget all samples: the tree, threads' counts and line/address counts
 * go back to empty.  Interned frames and threads are kept, so ids stay
 * valid.  Metadata is kept. */
void profile_reset(struct profile *p);

/* --- metadata ---------------------------------------------------------- */

/* Current metadata.  The pointer is valid until the next
 * profile_set_meta or profile_free; strings are owned by the profile. */
const struct profile_meta *profile_meta(const struct profile *p);

/* Replace the metadata; strings are copied.  0 on success, -1 on OOM. */
int profile_set_meta(struct profile *p, const struct profile_meta *m);

/* --- frames -------------------------------------------------------------- */

/* Intern a frame: return the id of the frame with the same (kind, name,
 * module, file, build_id, origin), creating it with d's other fields if
 * new.
 * Strings are copied.  Returns PROFILE_NONE on OOM. */
uint32_t profile_intern_frame(struct profile *p, const struct frame_desc *d);

/* The frame with the given id, or NULL if out of range.  Strings point
 * into the profile and live as long as it (across profile_reset too). */
const struct frame_desc *profile_frame(const struct profile *p, uint32_t id);

/* Number of interned frames (ids are 0 .. count-1). */
uint32_t profile_frame_count(const struct profile *p);

/* One frame to rename (profile_rename_frames). */
struct profile_rename {
    uint32_t frame;        /* the frame to rename */
    struct frame_desc to;  /* what it is, now that it is known */
};

/* Late names: frame r[i].frame becomes r[i].to, for i < n.  When no
 * other frame has r[i].to's identity the frame is renamed in place: its
 * id, and every node and count that uses it, stay (so do views keyed by
 * frame ids).  Otherwise its samples, line and address counts merge into
 * the frame that has that identity, and it keeps its old description and
 * no samples.  Frames of another kind than r[i].to, and bad ids, are
 * left alone.  Strings are copied.  0, or -1 on OOM: renames done in
 * place stay done, and no sample is lost. */
int profile_rename_frames(struct profile *p, const struct profile_rename *r,
                          size_t n);

/* --- threads ------------------------------------------------------------- */

/* Find the thread with this tid, or create it (with its FRAME_THREAD
 * frame named "NAME-TID" and its thread node).  A different non-NULL
 * name renames the thread and its frame (same frame id, new name; kept
 * when the new name would clash with another frame).  Returns the thread
 * index, or PROFILE_NONE on OOM. */
uint32_t profile_thread(struct profile *p, int64_t tid, const char *name);

/* The serial the newest thread has (0: none yet): a process that begins
 * now owns the threads made after it (profile_process_thread's since). */
uint64_t profile_thread_serial(const struct profile *p);

/* profile_thread for a thread of process pid (0: unknown, then it is
 * profile_thread) that began when the profile's newest thread had serial
 * `since`: the thread of this tid that belongs to pid (or to no process
 * yet) and is newer than that, else a new one, even when another
 * thread has that tid: a thread of another process, or of an earlier
 * process of the same PID (TIDs and PIDs are reused within a session;
 * that one keeps its samples, process and tid, and a sample of either
 * finds its own).  By the tid alone (profile_thread) either may be
 * found: whoever knows the process asks here.  The collector's thread of
 * every sample.  Returns the thread index, or PROFILE_NONE on OOM
 * (nothing changed). */
uint32_t profile_process_thread(struct profile *p, int64_t pid,
                                uint64_t since, int64_t tid,
                                const char *name);

/* Say which process thread idx belongs to: its PID and command name
 * (copied; NULL keeps the name it has).  Exporters write the process
 * level from it ("comm-PID" above the thread in folded files, labels pid
 * and process_name in pprof).  0, or -1 on OOM or a bad index. */
int profile_thread_set_process(struct profile *p, uint32_t idx, int64_t pid,
                               const char *name);

/* The name a process goes by in the views, into buf (n bytes): its
 * command ("nginx", the thread's name when unknown), then with_pid "
 * (pid 102)", or after profile_merge_commands " (3 processes)" either
 * way, or for the aggregate of its exited processes " (1,040 exited)"
 * either way; "[unknown process]" for a thread of no known process.
 * Returns buf.  The process roots of a derived tree are named so. */
const char *profile_process_label(const struct profile_thread *th,
                                  bool with_pid, char *buf, size_t n);

/* Whether the threads belong to more than one known process: the
 * O(threads) question profile_process_count answers slowly. */
bool profile_several_processes(const struct profile *p);

/* The processes a profile is of, as exporters and the header name them:
 * the distinct PIDs of its threads, ascending, as "3011,3012" into buf
 * (n bytes; a list that does not fit ends in ",..."), or meta.pid when
 * no thread has one, or "" when no PID is known.  Returns how many PIDs
 * there are (0, 1: "pid N", more: "pids A,B").  O(threads log threads);
 * allocates (on OOM: meta.pid only).  Any thread, p not changing. */
size_t profile_pid_list(const struct profile *p, char *buf, size_t n);

/* Number of distinct processes the threads belong to (threads with no
 * process known count as none).  O(threads^2) worst case: for exporters
 * and headers, not per sample. */
uint32_t profile_process_count(const struct profile *p);

/* --- exited processes --------------------------------------------------
 *
 * A long session meets thousands of short processes (a build: a compiler
 * per file).  Each keeps its own threads and stacks while it runs; once
 * it has exited, its samples can join those of the other exited
 * processes of its command, so the profile grows with the distinct
 * commands and stacks, not with the processes seen.
 *
 * An aggregate is one thread per (command, thread name), marked with
 * `exited` (how many processes of the command it holds) and a pid and
 * tid of its own (negative: no process has them); the views name its
 * process "cc1 (1,040 exited)".  Folding moves every weight as it is:
 * the total, every function's self and total, the line and address
 * counts and the per-second buckets are the same before and after; only
 * the split by process and thread changes.  Thread indexes move (views
 * keep threads and processes by tid and pid); frame ids stay, but those
 * of the folded threads' FRAME_THREAD frames and of the functions no
 * stack uses any more, which new frames reuse.
 * The strings, the tree and the sample trie are rebuilt from what is
 * left, so what the folded processes held alone is freed.
 *
 * A live process's exited threads (a thread pool's churn) fold the same
 * way into one thread per thread name of that process: its pid, a tid
 * of its own (negative), `exited` 0, its frame named as an aggregate's
 * ("NAME (exited)"); when the process exits, it folds with the rest. */

/* Whether thread th is an aggregate of exited processes. */
static inline bool profile_thread_is_exited(const struct profile_thread *th)
{
    return th && th->exited > 0;
}

/* Aggregates' pids and tids are below this: no process or thread has
 * one. */
#define PROFILE_AGG_ID_TOP (-(INT64_C(1) << 40))

/* Whether thread th stands for exited threads: an aggregate of exited
 * processes, or a live process's exited threads (no tid of its own). */
static inline bool profile_thread_is_folded(const struct profile_thread *th)
{
    return th && (th->exited > 0 || th->tid < PROFILE_AGG_ID_TOP);
}

/* The key of thread tid of process pid in profile_fold_processes's
 * list of exited threads (both fit in 32 bits on Linux). */
static inline int64_t profile_thread_key(int64_t pid, int64_t tid)
{
    return (int64_t)((uint64_t)(uint32_t)pid << 32 | (uint32_t)tid);
}

/* Rare stacks of folded threads.  The distinct stacks of a command's
 * processes keep coming for hours (a compiler's: four in five are seen
 * once), so the nodes below folded threads (profile_thread_is_folded)
 * are held to a budget: when a fold would leave more than `budget` of
 * them, it cuts (in up to two more passes over its result) every such
 * node whose total is under min_total, with all below it, into one
 * "[rare stacks]" child (FRAME_SPECIAL) of its parent, below which each
 * function's self weight in what was cut stays as a leaf of its own
 * (the frames between are left out), but a leaf whose total is under
 * min_total too, whose weight ends in "[rare stacks]" itself (so the
 * leaves there stay few).  min_total is chosen so that the nodes above
 * it are at most half the budget, and only grows.  `nodes` counts twice
 * a leaf below "[rare stacks]" that a later pass cuts again.  The total,
 * the nodes kept, the line and address counts and the per-second ring
 * stay as they were; live threads are never cut. */
struct profile_cut {
    uint64_t min_total;    /* weight a folded node needs to stay; 0: none */
    uint64_t folded_nodes; /* nodes below folded threads after the last fold */
    uint64_t nodes;        /* nodes cut, in all */
    uint64_t weight;       /* weight moved into "[rare stacks]", in all */
    uint64_t cuts;         /* times min_total was raised */
};
#define PROFILE_RARE_STACKS "[rare stacks]"

/* p's cut so far (all 0 when nothing was ever cut).  Any thread, with p
 * not changing under it. */
void profile_cut_get(const struct profile *p, struct profile_cut *out);

/* A new profile: p with the threads of the processes pids[0..n) (which
 * have exited) folded into the aggregates of their commands (created
 * when new; a pid with no thread in p, or an aggregate's, is ignored),
 * and the threads keyed threads[0..m) (profile_thread_key; exited
 * threads of processes that live on) into their process's thread of
 * exited threads of their name, and everything else as it was, but the
 * rare stacks of folded threads cut as struct profile_cut says (budget:
 * the nodes below folded threads to keep at most; 0: no limit).  Frames
 * that nothing uses any more (no node, thread or sample of the ring,
 * nor keep[0..nkeep): the ids the caller holds, such as a cache of
 * addresses' frames) are freed, with their line and address counts: an
 * id freed stays unnamed until the next fold, then a new frame may take
 * it.  p is unchanged.  NULL on OOM, or when p holds a call graph
 * (nothing to fold).  The collector builds it and swaps it in with
 * profile_replace, under its lock. */
struct profile *profile_fold_processes(const struct profile *p,
                                       const int64_t *pids, size_t n,
                                       const int64_t *threads, size_t m,
                                       uint64_t budget, const uint32_t *keep,
                                       size_t nkeep);

/* p takes q's contents and q p's old ones (so pointers to p stay
 * valid); the caller frees q. */
void profile_replace(struct profile *p, struct profile *q);

/* For the readers of files that name aggregates (export_folded's process
 * and thread roots, pprof's labels): the aggregate thread of command cmd
 * named name in p, made when p has none, holding `exited` processes
 * (every aggregate of cmd then holds at least that many).  Its index,
 * or PROFILE_NONE on OOM. */
uint32_t profile_exited_thread(struct profile *p, const char *cmd,
                               const char *name, uint32_t exited);

/* Whether proc and thread are the process and thread roots the writers
 * give an aggregate: proc "COMMAND (1,040 exited)", thread "NAME
 * (exited)" or "COMMAND: NAME (exited)" (then maybe "#K", as frames are
 * made unique).  Fills cmd, name (truncated to their sizes) and *exited
 * when they are. */
bool profile_exited_parse(const char *proc, const char *thread, char *cmd,
                          size_t ncmd, char *name, size_t nname,
                          uint32_t *exited);

/* Number of threads (indexes 0 .. count-1, in creation order). */
uint32_t profile_thread_count(const struct profile *p);

/* Thread by index, NULL if out of range. */
const struct profile_thread *profile_thread_at(const struct profile *p,
                                               uint32_t idx);

/* Thread index owning a node (the thread node above it, also under a
 * process root); PROFILE_NONE for the root, a bad id, or a node of a
 * tree without thread nodes (merged threads). */
uint32_t profile_node_thread(const struct profile *p, uint32_t node);

/* --- ingest -------------------------------------------------------------- */

/* Add `samples` samples of one stack to thread `thread`, weighing
 * `weight` units of profile_weight_unit in all.  frames[0] is the bottom
 * of the stack (outermost, e.g. _start), frames[n-1] the leaf.  n may be
 * 0 (the samples land on the thread node itself).  Updates node
 * self/total, and per-function line and address counts (total counted
 * once per stack per distinct function/line/address, self for the leaf).
 * A weight of 0 adds nothing.  Returns 0, or -1 on OOM or a bad
 * thread/frame id (then nothing is added). */
int profile_add_weighted(struct profile *p, uint32_t thread,
                         const struct stack_frame *frames, size_t n,
                         uint64_t samples, uint64_t weight);

/* profile_add_weighted of `count` samples weighing one unit each: what a
 * file of counts adds (unit 0: one interval each). */
int profile_add_stack(struct profile *p, uint32_t thread,
                      const struct stack_frame *frames, size_t n,
                      uint64_t count);

/* Total weight (the root's total: the sum of all node self weights), in
 * profile_weight_unit units; the sample count for a unit of 0. */
uint64_t profile_samples(const struct profile *p);

/* Samples added, whatever they weigh.  A profile derived from another
 * (profile_derive, profile_window, diff_align) knows only weights: its
 * count is profile_weight_count of its total weight. */
uint64_t profile_sample_count(const struct profile *p);

/* What a profile holds and the bytes its tables take (allocated, not
 * just used): the tree, the frames, the threads, the strings, the line
 * and address counters, and the per-second ring's sample trie and
 * entries.  For --stats, so a long session can tell what grew.  Any
 * thread, with the profile not changing under it (prof_lock). */
struct profile_footprint {
    uint64_t nodes, frames, threads, strings;
    uint64_t free_frames;           /* of frames: freed, for new ones */
    uint64_t lines, addrs;          /* (frame, line/address) counters */
    uint64_t trie, ring_entries;    /* the ring's samples and entries */
    uint64_t tree_bytes, frame_bytes, thread_bytes, string_bytes;
    uint64_t counter_bytes, ring_bytes;
    uint64_t bytes;                 /* all of the above */
};
void profile_footprint(const struct profile *p, struct profile_footprint *out);

/* Nanoseconds per unit of weight; 0 when weights are counts of samples
 * of the nominal interval (a file of counts). */
uint64_t profile_weight_unit(const struct profile *p);

/* Weigh in units of `ns` (1: nanoseconds; 0: counts).  Only while p has
 * no sample: 0, or -1 (nothing changed) once it has some. */
int profile_set_weight_unit(struct profile *p, uint64_t ns);

/* Weight w of p in nanoseconds (saturating at UINT64_MAX), or 0 when p
 * does not know the time a sample stands for (counts without an
 * interval). */
uint64_t profile_weight_ns(const struct profile *p, uint64_t w);

/* Whether p's weights convert to time (profile_weight_ns is known). */
bool profile_weight_timed(const struct profile *p);

/* Weight w of p as a count of nominal intervals (meta.interval_ns),
 * rounded to the nearest, and at least 1 when w is not 0: the sample
 * count of a profile sampled at one rate.  w itself for a unit of 0 or
 * an unknown interval. */
uint64_t profile_weight_count(const struct profile *p, uint64_t w);

/* For the writers of counts (folded, callgrind, ...): p when its weights
 * are counts already (a unit of 0, or an unknown interval, or a unit
 * equal to the interval); else, in *own, a copy whose every weight (tree,
 * line and address counts, per-second buckets) is profile_weight_count
 * of p's, with a unit of 0, so a profile sampled at one rate is written
 * as before weights were kept.  NULL on OOM.  The caller frees *own
 * (NULL when p is returned). */
const struct profile *profile_counts(const struct profile *p,
                                     struct profile **own);

/* Merge all of src into dst: weights in different units are first put
 * in a common one (the greatest common divisor of both sides' ns per
 * unit, counts without a known interval taking the other side's
 * interval), frames are interned by identity, threads
 * matched by tid, name and process (the same thread), else by name (a
 * src thread whose name no dst thread has is added with its tid, or
 * with an unused tid when dst has that tid already),
 * stacks added with their counts, line/address counts summed.  Metadata
 * of dst kept (fields dst never set, 0 or NULL, are taken from src),
 * duration summed.  dst may be src.  0; PROFILE_MERGE_REFUSED, dst
 * unchanged, when the sum would pass PROFILE_COUNT_LIMIT or
 * PROFILE_DURATION_MAX (profile_merge_refusal says which); or -1 on OOM
 * (dst may then hold part of src). */
int profile_merge(struct profile *dst, const struct profile *src);

/* Merge the processes that run the same command (all nginx workers): a
 * new profile in which the threads of p with the same process command and
 * thread name are one thread (the first one's tid), its counts the
 * sum of theirs; threads of no known process merge by name alone.
 * Each thread of a known process gets `processes`: how many processes
 * of its command p has, and the PID of the first of them (one command,
 * one process).  Frames are re-interned, metadata copied, per-second
 * counts dropped.  NULL on OOM.  Free with profile_free. */
struct profile *profile_merge_commands(const struct profile *p);
/* The modules whose code p names without their debug info (frames that
 * carry a build_id: "[module+0xOFF]" or a symbol table's name) and that
 * take at least min_share (0..1) of p's self weight: the hottest first,
 * up to max of their names into mods (strings of p).  Returns how many
 * there are.  O(nodes + frames x such modules). */
size_t profile_hot_nodebug(const struct profile *p, double min_share,
                           const char **mods, size_t max);

/* What profile_merge_commands merged into one process of command
 * `process` (a thread's `process`): the PIDs of p's processes of that
 * command, the first `max` of them into pids (in thread order), and
 * through *threads how many threads they have in p.  Returns how many
 * processes (0 when process is NULL).  O(threads^2) worst case: for a
 * view's refresh, not per sample. */
size_t profile_command_members(const struct profile *p, const char *process,
                               int64_t *pids, size_t max, uint32_t *threads);
/* Why merging src into dst would pass a limit of the sums, as a phrase
 * ("the total sample count would reach 2^53"), or NULL when it would
 * not.  A static string. */
const char *profile_merge_refusal(const struct profile *dst,
                                  const struct profile *src);

/* --- tree access --------------------------------------------------------- */

/* Number of nodes (ids 0 .. count-1; node 0 is PROFILE_ROOT). */
uint32_t profile_node_count(const struct profile *p);

/* Node by id, NULL if out of range.  Valid until the profile changes. */
const struct profile_node *profile_node(const struct profile *p, uint32_t id);

/* Child of `parent` with frame `frame`, or PROFILE_NONE. */
uint32_t profile_child(const struct profile *p, uint32_t parent,
                       uint32_t frame);

/* Fill out[] with the frame ids from the first node below the process
 * and thread nodes (the root's child in a tree without them) down to
 * `node` (bottom of stack first, process and thread frames excluded).
 * Returns the path length; writes at most cap entries. */
size_t profile_node_path(const struct profile *p, uint32_t node,
                         uint32_t *out, size_t cap);

/* Stable 64-bit key of a node: a hash of the frame ids on its path from
 * the root (thread frame included; a process frame by its PID, as its id
 * depends on the derived profile).  The same stack in another snapshot
 * or derived profile with the same frame ids gets the same key; used by
 * the UI to keep nodes expanded across refreshes. */
uint64_t profile_node_key(const struct profile *p, uint32_t node);

/* Call fn for every unique stack (every node with self > 0), in
 * depth-first order: thread index, frames bottom first (thread frame
 * excluded), depth, and the self weight.  Threads come in index order,
 * a thread's own samples (depth 0) first, children in the order they
 * were first added.  `frames` is valid only during the call.  Stops
 * early and returns fn's value when it returns non-zero; returns 0
 * otherwise, or -1 when the path buffer for stacks deeper than 64
 * frames cannot be allocated. */
typedef int (*profile_stack_fn)(void *ctx, uint32_t thread,
                                const uint32_t *frames, size_t n,
                                uint64_t count);
int profile_foreach_stack(const struct profile *p, profile_stack_fn fn,
                          void *ctx);

/* --- derived views ------------------------------------------------------- */

/* Restrict and reshape: a new profile with the same frame ids and
 * threads, whose tree holds only the selected stacks. */
struct profile_filter {
    uint32_t thread;   /* thread index, or PROFILE_NONE for all */
    uint32_t focus;    /* frame id: keep only stacks through it; or NONE */
    bool inverted;     /* bottom-up: below each thread node, roots are the
                          leaf functions and children are their callers */
    bool merge_threads; /* drop the thread level: every thread's stacks
                          hang from the root itself, so one path taken by
                          several threads is one node (what perf top and
                          py-spy top show).  The thread nodes stay, empty.
                          Such a tree is for reading (profile_node, child
                          walks, keys): per-thread walks (foreach_stack,
                          and so edges, merge, the exporters and a further
                          derive) find no stack in it */
    int64_t pid;       /* keep only the threads of this process; 0: all */
    bool process_roots; /* a process level above the thread level (above
                          the stacks with merge_threads): root -> process
                          (a FRAME_PROCESS node per PID) -> thread ->
                          stack.  Like merge_threads, a tree for reading:
                          the stacks hang below new nodes, the thread
                          nodes of depth 1 stay, empty */
    bool python_only;  /* a stack with script (Python, Ruby) frames
                          keeps only them (and its special frames,
                          "[truncated]", and its off-CPU reason): the
                          time of native frames goes to their script
                          caller, as py-spy shows it; other stacks stay
                          whole */
    bool hide_kernel;  /* leave the kernel frames out of every stack: a
                          kernel sample's time goes to the user frame that
                          made the system call (its leaf then), an
                          off-CPU reason hangs below that frame */
    uint8_t cpu;       /* enum profile_cpu_filter: keep every stack, or
                          only the on-CPU ones (no reason leaf), or only
                          the off-CPU ones */
};

/* Which samples of a wall-clock (--idle) profile a derived tree keeps. */
enum profile_cpu_filter {
    PROFILE_CPU_BOTH = 0, /* on and off CPU: wall-clock time */
    PROFILE_CPU_ON,       /* on CPU only: stacks without a reason leaf */
    PROFILE_CPU_OFF,      /* off CPU only: stacks with a reason leaf */
};

/* Intern the process frame of every thread of p (FRAME_PROCESS, named by
 * profile_process_label), in thread order.  A tree derived from p with
 * process_roots uses these ids; two profiles with the same frames and
 * threads get the same ids, so their derived trees pair (a diff).  0, or
 * -1 on OOM. */
int profile_intern_process_frames(struct profile *p);

/* Build a derived profile (see struct profile_filter).  Frames, threads
 * and metadata are copied; line/address counts are copied unfiltered.
 * NULL on OOM.  Free with profile_free. */
struct profile *profile_derive(const struct profile *p,
                               const struct profile_filter *f);

/* The samples of one off-CPU reason in one thread. */
struct profile_reason_count {
    uint32_t frame;    /* its FRAME_REASON frame */
    uint64_t samples;  /* samples that ended in it */
};

/* The reasons thread idx was off its CPU for: the samples of each reason
 * frame in its part of the tree, most first (then by frame id), at most
 * cap of them (the first cap met, when it has more).  Returns how many
 * were written.  O(nodes of the thread), no allocation. */
size_t profile_thread_reasons(const struct profile *p, uint32_t idx,
                              struct profile_reason_count *out, size_t cap);

/* Per-function totals. */
struct profile_flat {
    uint32_t frame;  /* frame id (FRAME_FUNC and FRAME_SPECIAL only) */
    uint32_t first;  /* rank of the function's first use: the order in
                        which profile_foreach_stack first meets it (a
                        stable tie-break for views and reports) */
    uint64_t self;   /* weight of the samples with this function as leaf */
    uint64_t total;  /* weight of the samples with this function anywhere
                        in the stack, counted once per sample even under
                        recursion */
    double leaf_time; /* Racket's leaf -> "*" edge callee_time: the weight
                        of each sample with this function as leaf, divided
                        by its occurrences in that sample's stack (the
                        edge's caller_time is self) */
};

/* Flat table over all threads of p, one entry per frame that has
 * samples, sorted by self descending then total descending then frame
 * id.  *out is malloc'd (caller frees); returns the count, or -1 on OOM
 * (then *out is NULL). */
long profile_flat(const struct profile *p, struct profile_flat **out);

/* The functions with samples numbered by first use (profile_flat's
 * `first`): (*order)[i] is the frame id of the i-th function met, and
 * (*index)[frame], when index is not NULL, its number or PROFILE_NONE.
 * Writers number their records so.  Both malloc'd (caller frees);
 * returns the count, or -1 on OOM (then both are NULL). */
long profile_first_use(const struct profile *p, uint32_t **order,
                       uint32_t **index);

/* Re-sort a flat table (as from profile_flat) by total descending, then
 * self descending, then frame id: the order of "top by total" views. */
void profile_flat_sort_total(struct profile_flat *v, size_t n);

/* A caller -> callee edge of the call graph, the one edge builder every
 * view and exporter reads.  Times are Racket's (profile-lib analyzer.rkt
 * connect): a sample of `count` adds count/k to caller_time, k the
 * callee's occurrences in its stack, and count/k' to callee_time, k' the
 * caller's occurrences (1 for the stack bottom), so Local% stays at most
 * 100% under recursion:
 *   - a caller line above function F shows caller_time / total(F);
 *   - a callee line below F shows callee_time / total(F). */
struct profile_edge {
    uint32_t caller;     /* frame id, or PROFILE_NONE for the stack bottom
                            (Racket's "*" node) */
    uint32_t callee;     /* frame id */
    uint32_t seq;        /* first-use order, Racket's: per stack the bottom
                            edge, then the pairs from the leaf down */
    uint64_t samples;    /* weight of the samples containing this edge,
                            once per sample */
    uint64_t outer;      /* weight of the samples in which this edge
                            enters the callee's
                            outermost occurrence: a function's outer sums
                            to its total (callgrind's inclusive calls) */
    double caller_time;  /* sum of count / occurrences of the callee */
    double callee_time;  /* sum of count / occurrences of the caller */
};

/* All caller->callee edges over all threads of p (thread frames are not
 * callers: edges from the thread node have caller PROFILE_NONE; Racket's
 * leaf -> "*" edges are not listed, their caller_time is the leaf's self),
 * sorted by caller then callee.  *out malloc'd; count or -1 on OOM. */
long profile_edges(const struct profile *p, struct profile_edge **out);

/* Which threads each function has samples in: for frame id f, threads
 * (*threads)[(*off)[f] .. (*off)[f + 1]), ascending thread indexes (off
 * has profile_frame_count + 1 entries).  Both malloc'd (caller frees); 0,
 * or -1 on OOM (then both are NULL). */
int profile_frame_threads(const struct profile *p, uint32_t **off,
                          uint32_t **threads);

/* The samples of thread idx (its thread node's total, or the call
 * graph's count for it); 0 for a bad index. */
uint64_t profile_thread_samples(const struct profile *p, uint32_t idx);

/* --- a call graph without stacks --------------------------------------------
 *
 * Some files hold a call graph, not stacks: Racket's JSON profile keeps,
 * per function, its self and total time, per caller -> callee edge
 * Racket's times, and per thread its time (weights, as in the tree).  A profile holds such a graph
 * beside an empty tree (the root and the thread nodes, no samples in
 * them), never turned into stacks it does not have:
 *   - profile_samples, profile_thread_samples, profile_flat,
 *     profile_edges and profile_frame_threads answer from the graph, so
 *     what reads only those (the flat table and callers views, the hide
 *     rule, the text, dot and Racket JSON writers) works unchanged;
 *   - profile_has_stacks is false, and what needs stacks (the tree,
 *     flame, threads, processes and source views, the stack formats,
 *     filters, merging, baselines) asks it first and says
 *     PROFILE_NO_STACKS instead;
 *   - tree walks (profile_foreach_stack, derive, windows) find nothing. */
#define PROFILE_NO_STACKS "this file holds a call graph, not stacks"

/* False when p holds a call graph (profile_set_graph) instead of stacks. */
bool profile_has_stacks(const struct profile *p);

/* What profile_set_graph copies in. */
struct profile_graph_desc {
    const struct profile_flat *flat; /* one row per function with samples
                                        (frame ids of p, FRAME_FUNC or
                                        FRAME_SPECIAL, each once): self,
                                        total, leaf_time, and `first`, the
                                        function's rank (0..nflat-1, each
                                        once) for ties */
    size_t nflat;
    const struct profile_edge *edges; /* one per (caller, callee): frames
                                         of flat, caller PROFILE_NONE for
                                         the stack bottom ("*"); seq the
                                         edge's rank (each once) */
    size_t nedges;
    const uint64_t *thread_samples;   /* per thread of p: its weight */
    uint64_t sample_count;            /* the samples taken
                                         (profile_sample_count) */
    const uint32_t *frame_threads_off; /* as profile_frame_threads */
    const uint32_t *frame_threads;
};

/* Make p, a profile with frames and threads but no samples, hold the
 * call graph g (copied), its weights in p's unit (profile_weight_unit,
 * set before).  Checks what the model relies on: frame and thread ids
 * in range, one row per function, one edge per pair, ranks a
 * permutation, self <= total <= all, finite non-negative edge times, the
 * total weight (sum of the threads') below PROFILE_COUNT_LIMIT.  0; -1 with
 * errno EINVAL when g breaks one of those (p unchanged), or ENOMEM. */
int profile_set_graph(struct profile *p, const struct profile_graph_desc *g);

/* Per-line or per-address counts of one function. */
struct profile_linecount {
    uint64_t key;    /* line number, or address */
    uint64_t self;
    uint64_t total;
};

/* Counts of function `frame` per source line (by_addr false) or per
 * sampled address (by_addr true), sorted by key ascending.  Unknown
 * lines and addresses (0) are not counted.  *out malloc'd (NULL when
 * none); count (0 when none) or -1 on OOM. */
long profile_lines(const struct profile *p, uint32_t frame, bool by_addr,
                   struct profile_linecount **out);

/* The samples of machine code [lo, hi) of module `module` (a basename;
 * NULL: any), per sampled address, whatever frame names it (the
 * function, or code inlined into it), as perf annotate counts an
 * instruction: self, the weight of the samples whose leaf was at the
 * address (summed over the frames there); total, self plus those of
 * which it was a return address (the least total - self of the frames
 * there: the innermost of an inline chain counts only the calls through
 * it).  Sorted by address; *out malloc'd (NULL when none); count, or -1
 * on OOM. */
long profile_code_counts(const struct profile *p, const char *module,
                         uint64_t lo, uint64_t hi,
                         struct profile_linecount **out);

#endif
