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

#endif /* SPROFTOP_PYWALK_H */

/* The functions, once the includer has said how to read (a header that
 * includes this one for the types alone comes first, without it). */
#if defined(PYWALK_READ) && !defined(SPROFTOP_PYWALK_FUNCS)
#define SPROFTOP_PYWALK_FUNCS

/* A little-endian word of buf at off (buf has len bytes); 0 when the
 * offset does not fit (the caller treats 0 as "none" or torn). */
PYWALK_INLINE uint64_t pywalk_word(const uint8_t *buf, uint32_t len,
                                   uint32_t off)
{
    if (off > len - 8 || len < 8)
        return 0;
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | buf[off + (uint32_t)i];
    return v;
}

PYWALK_INLINE int pywalk_read_u64(void *ctx, uint64_t addr, uint64_t *out)
{
    uint64_t v = 0;
    if (!addr || PYWALK_READ(ctx, &v, sizeof v, addr) != 0)
        return -1;
    *out = v;
    return 0;
}

/* The thread state of native thread tid, or 0 (none, or unreadable).
 * hint: a thread state this TID had before, tried first (0: none). */
PYWALK_INLINE uint64_t pywalk_thread(void *ctx, const struct py_walk *o,
                                     uint64_t runtime, uint64_t tid,
                                     uint64_t hint)
{
    uint64_t v;
    if (hint && pywalk_read_u64(ctx, hint + o->tstate_native_tid, &v) == 0 &&
        v == tid)
        return hint;
    uint64_t interp;
    if (pywalk_read_u64(ctx, runtime + o->runtime_interp_head, &interp) < 0)
        return 0;
    for (int i = 0; i < PYWALK_MAX_INTERPS && interp; i++) {
        uint64_t ts;
        if (pywalk_read_u64(ctx, interp + o->interp_threads_head, &ts) < 0)
            return 0;
        for (int j = 0; j < PYWALK_MAX_THREADS && ts; j++) {
            if (pywalk_read_u64(ctx, ts + o->tstate_native_tid, &v) < 0)
                return 0;
            if (v == tid)
                return ts;
            if (pywalk_read_u64(ctx, ts + o->tstate_next, &ts) < 0)
                return 0;
        }
        if (pywalk_read_u64(ctx, interp + o->interp_next, &interp) < 0)
            return 0;
    }
    return 0;
}

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

/* Walk from `frame` (pywalk_current's) at most `max` frames (at most
 * PYWALK_MAX_DEPTH) into out[], leaf first; entry[i] is set to 1 when a
 * native _PyEval_EvalFrameDefault call began at out[i] (else 0).  *n gets
 * the count.  Returns an enum pywalk_status. */
PYWALK_INLINE int pywalk_frames(void *ctx, const struct py_walk *o,
                                uint64_t frame, struct pywalk_frame *out,
                                uint8_t *entry, uint32_t max, uint32_t *n)
{
    uint8_t buf[PYWALK_FRAME_BYTES];
    uint64_t tortoise = frame;
    uint32_t power = 1, lam = 0, k = 0;
    int status = PYWALK_OK;
    if (max > PYWALK_MAX_DEPTH)
        max = PYWALK_MAX_DEPTH;
    for (int i = 0; i < PYWALK_MAX_DEPTH * 2 && frame; i++) {
        if (PYWALK_READ(ctx, buf, sizeof buf, frame) != 0) {
            status = PYWALK_TORN;
            break;
        }
        uint32_t owner = o->frame_owner < sizeof buf ? buf[o->frame_owner]
                                                      : PYWALK_NONE;
        if (owner > o->owner_max) {
            status = PYWALK_TORN;
            break;
        }
        if (owner == o->owner_cstack) {
            /* a shim: the frame above it began a native call */
            if (k > 0)
                entry[k - 1] = 1;
        } else {
            if (k >= max) {
                status = PYWALK_DEPTH;
                break;
            }
            out[k].code = pywalk_word(buf, sizeof buf, o->frame_code);
            out[k].instr = pywalk_word(buf, sizeof buf, o->frame_instr);
            entry[k] = o->frame_is_entry < sizeof buf &&
                       buf[o->frame_is_entry] ? 1 : 0;
            k++;
        }
        uint64_t next = pywalk_word(buf, sizeof buf, o->frame_previous);
        /* Brent: a chain that comes back to a frame loops */
        if (next && next == tortoise) {
            status = PYWALK_TORN;
            break;
        }
        if (++lam == power) {
            tortoise = next;
            power *= 2;
            lam = 0;
        }
        frame = next;
    }
    if (status == PYWALK_OK && frame)
        status = PYWALK_DEPTH; /* more shims than frames: cut all the same */
    *n = k;
    return status;
}

#endif /* PYWALK_READ */
