/* pywalk.h - the one walk of a CPython thread's frame chain, written once
 * for two readers: pyread.c (user space, through rmem.h: the ptrace
 * backend, tests and the fuzz harness) and the BPF program the perf
 * backend attaches to its sampling events (it walks at sample time, in
 * the target's own context).  So it is plain C with no library call: the
 * includer defines PYWALK_READ(ctx, dst, len, addr) (0 on success, any
 * other value on failure) and PYWALK_INLINE before including it.
 *
 * The walk: _PyRuntime -> interpreters -> thread states, the one whose
 * native_thread_id is the sampled TID -> its current frame (through its
 * _PyCFrame up to 3.12) -> `previous` from frame to frame.  For each
 * frame it keeps the code object's address, the instruction pointer
 * (3.11/3.12 prev_instr, 3.13 instr_ptr) and whether a native
 * _PyEval_EvalFrameDefault call began there (3.11: is_entry; 3.12 on:
 * the next frame is a shim the C stack owns).  Names and lines are read
 * later from the code objects, by pyread.c, through a cache.
 *
 * Each walk is a start and a step function over a small state, run in a
 * bounded loop: user space with `for` (pywalk_thread, pywalk_frames),
 * the BPF program with bpf_loop, so its verifier checks a step once.
 * Bounded: PYWALK_MAX_INTERPS x PYWALK_MAX_THREADS thread states,
 * PYWALK_MAX_DEPTH frames; a cycle in the chain (torn memory) is found by
 * Brent's method in constant space; a frame whose owner is out of range
 * ends the walk as torn.  Every offset comes from struct py_walk, filled
 * from a version's table row (pylayout.h), and is bounds-checked against
 * the buffer the frame was copied into.
 */
#ifndef SPROFTOP_PYWALK_H
#define SPROFTOP_PYWALK_H

#ifndef __bpf__
#include <stdint.h>
#endif

#define PYWALK_MAX_DEPTH 128   /* Python frames kept per sample */
#define PYWALK_MAX_THREADS 64  /* thread states looked at per interpreter */
#define PYWALK_MAX_INTERPS 4   /* interpreters looked at */
#define PYWALK_FRAME_BYTES 96  /* bytes of a frame copied: every field the
                                  walk uses lies below this in 3.11-3.13 */
#define PYWALK_NONE 0xffffffffu /* an offset or value a version lacks */

/* The offsets of one CPython version that the walk needs (a table row of
 * pylayout.c, or read from the target's _Py_DebugOffsets).  Fixed-size
 * fields only: the BPF program gets this struct through a map. */
struct py_walk {
    uint32_t runtime_interp_head; /* _PyRuntimeState.interpreters.head */
    uint32_t interp_next;         /* PyInterpreterState.next */
    uint32_t interp_threads_head; /* PyInterpreterState.threads.head */
    uint32_t tstate_next;         /* PyThreadState.next */
    uint32_t tstate_native_tid;   /* PyThreadState.native_thread_id */
    uint32_t tstate_cframe;       /* PyThreadState.cframe; PYWALK_NONE when
                                     the frame hangs off the thread
                                     state (3.13) */
    uint32_t current_frame;       /* _PyCFrame.current_frame, or
                                     PyThreadState.current_frame */
    uint32_t frame_code;          /* _PyInterpreterFrame.f_code
                                     (f_executable in 3.13) */
    uint32_t frame_previous;      /* .previous */
    uint32_t frame_instr;         /* .prev_instr (instr_ptr in 3.13) */
    uint32_t frame_owner;         /* .owner (a char) */
    uint32_t frame_is_entry;      /* .is_entry (a char, 3.11); PYWALK_NONE
                                     from 3.12 */
    uint32_t owner_cstack;        /* FRAME_OWNED_BY_CSTACK (3.12 on: a
                                     shim below each entry frame); or
                                     PYWALK_NONE */
    uint32_t owner_max;           /* largest owner value a frame has */
};

/* One Python frame as the walk saw it. */
struct pywalk_frame {
    uint64_t code;   /* the code object's address (not checked yet) */
    uint64_t instr;  /* the instruction pointer into its bytecode */
};

/* pywalk_frames's result. */
enum pywalk_status {
    PYWALK_OK = 0,     /* reached the bottom frame */
    PYWALK_DEPTH = 1,  /* cut at the depth asked for */
    PYWALK_TORN = 2,   /* a read failed, an owner was out of range, or
                          the chain looped: the frames so far stand */
    PYWALK_NONE_THREAD = 3, /* no thread state has this TID: not a
                          Python thread (or not one yet) */
};

/* What a walk learned of the thread besides its frames (a bit set). */
#define PYWALK_F_GVL 1u  /* Ruby: the thread waits for the GVL (it is in
                            its ractor's queue of waiters) */

/* The state of a thread-state search, one step per thread state (so the
 * BPF program can run it with bpf_loop: a verifier checks a step once). */
struct pywalk_find {
    uint64_t tid;      /* wanted */
    uint64_t interp;   /* interpreter being searched */
    uint64_t ts;       /* next thread state to look at (0: the interp's
                          first) */
    uint32_t seen;     /* thread states of this interpreter looked at */
    uint32_t interps;  /* interpreters started */
    uint64_t found;    /* the answer, once done */
    int done;
};

/* The state of a walk along the frame chain, one step per frame. */
struct pywalk_chain {
    uint64_t frame;    /* the next frame to read (0: done) */
    uint64_t tortoise; /* Brent's cycle check */
    uint32_t power, lam;
    uint32_t k;        /* frames written */
    uint32_t max;      /* at most this many (<= PYWALK_MAX_DEPTH) */
    int status;        /* enum pywalk_status, once done */
    int done;
};

/* A little-endian word of buf at off (buf has len bytes); 0 when the
 * offset does not fit (the caller treats 0 as "none" or torn). */
static inline uint64_t pywalk_word(const uint8_t *buf, uint32_t len,
                                   uint32_t off)
{
    if (off > len - 8 || len < 8)
        return 0;
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | buf[off + (uint32_t)i];
    return v;
}

#endif /* SPROFTOP_PYWALK_H */

/* The functions, once the includer has said how to read (a header that
 * includes this one for the types alone comes first, without it). */
#if defined(PYWALK_READ) && !defined(SPROFTOP_PYWALK_FUNCS)
#define SPROFTOP_PYWALK_FUNCS

PYWALK_INLINE int pywalk_read_u64(void *ctx, uint64_t addr, uint64_t *out)
{
    uint64_t v = 0;
    if (!addr || PYWALK_READ(ctx, &v, sizeof v, addr) != 0)
        return -1;
    *out = v;
    return 0;
}

/* Start a search for tid's thread state, trying hint first (a thread
 * state this TID had before; 0: none).  Returns 1 when already done
 * (found, or unreadable), 0 when pywalk_find_step must run. */
PYWALK_INLINE int pywalk_find_start(void *ctx, const struct py_walk *o,
                                    uint64_t runtime, uint64_t tid,
                                    uint64_t hint, struct pywalk_find *w)
{
    uint64_t v;
    w->tid = tid;
    w->ts = 0;
    w->seen = 0;
    w->interps = 1;
    w->found = 0;
    w->done = 0;
    if (hint && pywalk_read_u64(ctx, hint + o->tstate_native_tid, &v) == 0 &&
        v == tid) {
        w->found = hint;
        return w->done = 1;
    }
    if (pywalk_read_u64(ctx, runtime + o->runtime_interp_head, &w->interp) < 0
        || !w->interp)
        return w->done = 1;
    return 0;
}

/* Look at one thread state.  Returns 1 when the search is over. */
PYWALK_INLINE int pywalk_find_step(void *ctx, const struct py_walk *o,
                                   struct pywalk_find *w)
{
    uint64_t v;
    if (w->done)
        return 1;
    if (!w->ts && w->seen == 0 &&
        pywalk_read_u64(ctx, w->interp + o->interp_threads_head, &w->ts) < 0)
        return w->done = 1;
    if (!w->ts || w->seen >= PYWALK_MAX_THREADS) {
        /* this interpreter's threads are done: the next interpreter */
        if (w->interps >= PYWALK_MAX_INTERPS ||
            pywalk_read_u64(ctx, w->interp + o->interp_next, &w->interp) < 0
            || !w->interp)
            return w->done = 1;
        w->interps++;
        w->ts = 0;
        w->seen = 0;
        return 0;
    }
    w->seen++;
    if (pywalk_read_u64(ctx, w->ts + o->tstate_native_tid, &v) < 0)
        return w->done = 1;
    if (v == w->tid) {
        w->found = w->ts;
        return w->done = 1;
    }
    if (pywalk_read_u64(ctx, w->ts + o->tstate_next, &w->ts) < 0)
        return w->done = 1;
    if (!w->ts)
        w->seen = PYWALK_MAX_THREADS; /* end of the list */
    return 0;
}

/* Steps a search may take: every interpreter's threads and its end. */
#define PYWALK_FIND_STEPS (PYWALK_MAX_INTERPS * (PYWALK_MAX_THREADS + 2))

/* The frame thread state ts runs now (0: none, between Python calls), in
 * *frame.  0, or -1 when unreadable. */
PYWALK_INLINE int pywalk_current(void *ctx, const struct py_walk *o,
                                 uint64_t ts, uint64_t *frame)
{
    uint64_t at = ts;
    if (o->tstate_cframe != PYWALK_NONE) {
        if (pywalk_read_u64(ctx, ts + o->tstate_cframe, &at) < 0)
            return -1;
    }
    *frame = 0;
    if (!at)
        return 0;
    uint64_t v = 0;
    if (PYWALK_READ(ctx, &v, sizeof v, at + o->current_frame) != 0)
        return -1;
    *frame = v;
    return 0;
}

PYWALK_INLINE void pywalk_chain_start(struct pywalk_chain *w, uint64_t frame,
                                      uint32_t max)
{
    w->frame = frame;
    w->tortoise = frame;
    w->power = 1;
    w->lam = 0;
    w->k = 0;
    w->max = max < PYWALK_MAX_DEPTH ? max : PYWALK_MAX_DEPTH;
    w->status = PYWALK_OK;
    w->done = frame ? 0 : 1;
}

/* Read one frame into out[w->k] (and entry[]): out and entry have
 * PYWALK_MAX_DEPTH slots.  Returns 1 when the walk is over (w->status
 * says why). */
PYWALK_INLINE int pywalk_chain_step(void *ctx, const struct py_walk *o,
                                    struct pywalk_chain *w,
                                    struct pywalk_frame *out, uint8_t *entry)
{
    uint8_t buf[PYWALK_FRAME_BYTES];
    if (w->done)
        return 1;
    if (PYWALK_READ(ctx, buf, sizeof buf, w->frame) != 0) {
        w->status = PYWALK_TORN;
        return w->done = 1;
    }
    uint32_t owner = o->frame_owner < sizeof buf ? buf[o->frame_owner]
                                                  : PYWALK_NONE;
    uint32_t k = w->k;
    if (owner > o->owner_max || k > PYWALK_MAX_DEPTH) {
        w->status = PYWALK_TORN;
        return w->done = 1;
    }
    if (owner == o->owner_cstack) {
        /* a shim: the frame above it began a native call */
        if (k > 0 && k <= PYWALK_MAX_DEPTH)
            entry[k - 1] = 1;
    } else {
        if (k >= w->max || k >= PYWALK_MAX_DEPTH) {
            w->status = PYWALK_DEPTH;
            return w->done = 1;
        }
        out[k].code = pywalk_word(buf, sizeof buf, o->frame_code);
        out[k].instr = pywalk_word(buf, sizeof buf, o->frame_instr);
        entry[k] = o->frame_is_entry < sizeof buf &&
                   buf[o->frame_is_entry] ? 1 : 0;
        w->k = k + 1;
    }
    uint64_t next = pywalk_word(buf, sizeof buf, o->frame_previous);
    /* Brent: a chain that comes back to a frame loops */
    if (next && next == w->tortoise) {
        w->status = PYWALK_TORN;
        return w->done = 1;
    }
    if (++w->lam == w->power) {
        w->tortoise = next;
        w->power *= 2;
        w->lam = 0;
    }
    w->frame = next;
    if (!next)
        return w->done = 1;
    return 0;
}

/* Steps a chain walk may take: every frame, and a shim below each. */
#define PYWALK_CHAIN_STEPS (PYWALK_MAX_DEPTH * 2)

#ifndef __bpf__
/* User space drives the steps with plain loops. */

/* The thread state of native thread tid, or 0 (none, or unreadable). */
PYWALK_INLINE uint64_t pywalk_thread(void *ctx, const struct py_walk *o,
                                     uint64_t runtime, uint64_t tid,
                                     uint64_t hint)
{
    struct pywalk_find w;
    if (!pywalk_find_start(ctx, o, runtime, tid, hint, &w))
        for (int i = 0; i < PYWALK_FIND_STEPS; i++)
            if (pywalk_find_step(ctx, o, &w))
                break;
    return w.found;
}

/* Walk from `frame` at most `max` frames into out[] and entry[] (both of
 * PYWALK_MAX_DEPTH), leaf first.  *n gets the count.  Returns an enum
 * pywalk_status. */
PYWALK_INLINE int pywalk_frames(void *ctx, const struct py_walk *o,
                                uint64_t frame, struct pywalk_frame *out,
                                uint8_t *entry, uint32_t max, uint32_t *n)
{
    struct pywalk_chain w;
    pywalk_chain_start(&w, frame, max);
    int i;
    for (i = 0; i < PYWALK_CHAIN_STEPS; i++)
        if (pywalk_chain_step(ctx, o, &w, out, entry))
            break;
    if (i == PYWALK_CHAIN_STEPS)
        w.status = PYWALK_DEPTH; /* more shims than frames: cut */
    *n = w.k;
    return w.status;
}
#endif

#endif /* PYWALK_READ */
