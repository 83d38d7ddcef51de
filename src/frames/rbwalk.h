/* rbwalk.h - the one walk of a CRuby thread's control frames, written
 * once for two readers, as pywalk.h is for CPython: rbread.c (user space,
 * through rmem.h: the ptrace backend, tests and the fuzz harness) and the
 * BPF program the perf backend attaches to its sampling events.  The
 * includer defines PYWALK_READ and PYWALK_INLINE as for pywalk.h.
 *
 * The walk: ruby_current_vm_ptr -> the VM -> its main ractor -> the
 * ractor's list of threads, the one whose `tid` is the sampled TID ->
 * its execution context -> the control frames from ec->cfp up to the
 * end of its VM stack (vm_stack + vm_stack_size words), leaf first.  For
 * each frame: an iseq frame (Ruby code) keeps its iseq's address and its
 * pc; a C function's frame (VM_FRAME_MAGIC_CFUNC) keeps its method
 * entry's address (ep[-2]) with bit 0 set (RBWALK_CFUNC) and pc 0; other
 * frames (dummy, ifunc) are not kept.  A frame whose flags have
 * VM_FRAME_FLAG_FINISH is where a native vm_exec call began: it (or the
 * kept frame above it) is marked as an entry frame, as is_entry marks a
 * CPython frame.  Then whether the thread waits for the GVL (it is in its
 * ractor's queue of waiters: PYWALK_F_GVL).
 *
 * Bounded as pywalk.h: RBWALK_MAX_THREADS threads of the main ractor
 * (other ractors are not walked), PYWALK_MAX_DEPTH frames; a frame
 * pointer outside its thread's VM stack is torn.
 */
#ifndef SPROFTOP_RBWALK_H
#define SPROFTOP_RBWALK_H

#include "pywalk.h"

#define RBWALK_MAX_THREADS 256  /* threads of the main ractor looked at */
#define RBWALK_MAX_STACK (1u << 24) /* VM stack words accepted */
#define RBWALK_CFUNC 1ull       /* bit 0 of a frame's code: a C function's
                                   method entry, not an iseq */
#define RBWALK_CFP_BYTES 64     /* bytes of a control frame copied */
#define RBWALK_GVL_WAITERS 16   /* waiters of the GVL looked at */

/* The offsets of one CRuby version the walk needs (a row of
 * rblayout.c).  Fixed-size fields only: the BPF program gets it through
 * a map. */
struct rb_walk {
    uint32_t vm_main_ractor;   /* rb_vm_t.ractor.main_ractor */
    uint32_t ractor_threads;   /* rb_ractor_t.threads.set (a list_head) */
    uint32_t thread_node;      /* rb_thread_t.lt_node (its list_node) */
    uint32_t thread_tid;       /* rb_thread_t.tid (an int) */
    uint32_t thread_ec;        /* rb_thread_t.ec */
    uint32_t ec_vm_stack;      /* rb_execution_context_t.vm_stack */
    uint32_t ec_vm_stack_size; /* .vm_stack_size (in VALUEs) */
    uint32_t ec_cfp;           /* .cfp */
    uint32_t cfp_pc;           /* rb_control_frame_t.pc */
    uint32_t cfp_iseq;         /* .iseq */
    uint32_t cfp_ep;           /* .ep */
    uint32_t cfp_size;         /* sizeof(rb_control_frame_t) */
    uint32_t magic_mask;       /* VM_FRAME_MAGIC_MASK */
    uint32_t magic_cfunc;      /* VM_FRAME_MAGIC_CFUNC */
    uint32_t flag_finish;      /* VM_FRAME_FLAG_FINISH */
    uint32_t magic_dummy;      /* VM_FRAME_MAGIC_DUMMY: not kept */
    uint32_t ractor_gvl_waitq; /* rb_ractor_t.threads.gvl.waitq (a
                                  list_head of the threads waiting for
                                  the GVL) */
    uint32_t thread_gvl_node;  /* rb_thread_t.native_thread_data.node.gvl
                                  (its list_node in that queue) */
};

/* The state of a thread search, one step per thread. */
struct rbwalk_find {
    uint64_t tid;      /* wanted */
    uint64_t head;     /* the ractor's list head */
    uint64_t node;     /* next list node to look at */
    uint64_t ractor;   /* the ractor searched */
    uint32_t seen;
    uint64_t found;    /* the rb_thread_t, once done */
    int done;
};

/* The state of a walk along the control frames, one step per frame. */
struct rbwalk_chain {
    uint64_t cfp;      /* the next frame */
    uint64_t end;      /* the end of the VM stack */
    uint32_t k;        /* frames written */
    uint32_t max;
    int status;        /* enum pywalk_status, once done */
    int done;
};

#endif /* SPROFTOP_RBWALK_H */

#if defined(PYWALK_READ) && !defined(SPROFTOP_RBWALK_FUNCS)
#define SPROFTOP_RBWALK_FUNCS

/* Start a search for tid's rb_thread_t from vm (the value of
 * ruby_current_vm_ptr), trying hint first (the thread this TID had
 * before; 0: none).  Returns 1 when already done, 0 when
 * rbwalk_find_step must run. */
PYWALK_INLINE int rbwalk_find_start(void *ctx, const struct rb_walk *o,
                                    uint64_t vm, uint64_t tid, uint64_t hint,
                                    struct rbwalk_find *w)
{
    uint64_t v, ractor;
    w->tid = tid;
    w->seen = 0;
    w->found = 0;
    w->done = 0;
    w->ractor = 0;
    if (!vm || pywalk_read_u64(ctx, vm + o->vm_main_ractor, &ractor) < 0 ||
        !ractor)
        return w->done = 1;
    w->ractor = ractor;
    if (hint && pywalk_read_u64(ctx, hint + o->thread_tid, &v) == 0 &&
        (v & 0xffffffffu) == tid) {
        w->found = hint;
        return w->done = 1;
    }
    w->head = ractor + o->ractor_threads;
    if (pywalk_read_u64(ctx, w->head, &w->node) < 0)
        return w->done = 1;
    return 0;
}

/* Look at one thread.  Returns 1 when the search is over. */
PYWALK_INLINE int rbwalk_find_step(void *ctx, const struct rb_walk *o,
                                   struct rbwalk_find *w)
{
    uint64_t v;
    if (w->done)
        return 1;
    if (!w->node || w->node == w->head || w->seen >= RBWALK_MAX_THREADS)
        return w->done = 1;
    w->seen++;
    uint64_t th = w->node - o->thread_node;
    if (pywalk_read_u64(ctx, th + o->thread_tid, &v) < 0)
        return w->done = 1;
    if ((v & 0xffffffffu) == w->tid) {
        w->found = th;
        return w->done = 1;
    }
    if (pywalk_read_u64(ctx, w->node, &w->node) < 0) /* list_node.next */
        return w->done = 1;
    return 0;
}

#define RBWALK_FIND_STEPS (RBWALK_MAX_THREADS + 1)

/* Start the walk of thread th's control frames.  Returns 1 when already
 * done (w->status says why), 0 when rbwalk_chain_step must run. */
PYWALK_INLINE int rbwalk_chain_start(void *ctx, const struct rb_walk *o,
                                     uint64_t th, uint32_t max,
                                     struct rbwalk_chain *w)
{
    uint64_t ec, stack, size;
    w->k = 0;
    w->max = max < PYWALK_MAX_DEPTH ? max : PYWALK_MAX_DEPTH;
    w->status = PYWALK_OK;
    w->done = 0;
    w->cfp = w->end = 0;
    if (pywalk_read_u64(ctx, th + o->thread_ec, &ec) < 0 || !ec ||
        pywalk_read_u64(ctx, ec + o->ec_vm_stack, &stack) < 0 ||
        pywalk_read_u64(ctx, ec + o->ec_vm_stack_size, &size) < 0 ||
        pywalk_read_u64(ctx, ec + o->ec_cfp, &w->cfp) < 0) {
        w->status = PYWALK_TORN;
        return w->done = 1;
    }
    w->end = stack + size * 8;
    if (!stack || size > RBWALK_MAX_STACK || w->cfp < stack ||
        w->cfp > w->end) {
        w->status = PYWALK_TORN;
        return w->done = 1;
    }
    return 0;
}

/* Read one control frame into out[w->k] (and entry[]): both have
 * PYWALK_MAX_DEPTH slots.  Returns 1 when the walk is over. */
PYWALK_INLINE int rbwalk_chain_step(void *ctx, const struct rb_walk *o,
                                    struct rbwalk_chain *w,
                                    struct pywalk_frame *out, uint8_t *entry)
{
    uint8_t buf[RBWALK_CFP_BYTES];
    uint8_t env[24];                  /* ep[-2] (me or cref), ep[-1],
                                         ep[0] (the frame's flags) */
    if (w->done)
        return 1;
    if (w->cfp + o->cfp_size > w->end || o->cfp_size < 8)
        return w->done = 1;           /* the bottom of the stack */
    if (PYWALK_READ(ctx, buf, sizeof buf, w->cfp) != 0) {
        w->status = PYWALK_TORN;
        return w->done = 1;
    }
    uint64_t pc = pywalk_word(buf, sizeof buf, o->cfp_pc);
    uint64_t iseq = pywalk_word(buf, sizeof buf, o->cfp_iseq);
    uint64_t ep = pywalk_word(buf, sizeof buf, o->cfp_ep);
    if (ep < 16 || PYWALK_READ(ctx, env, sizeof env, ep - 16) != 0) {
        w->status = PYWALK_TORN;
        return w->done = 1;
    }
    uint64_t me = pywalk_word(env, sizeof env, 0);
    uint64_t flags = pywalk_word(env, sizeof env, 16);
    uint32_t k = w->k;
    int keep = 0;
    if (k > PYWALK_MAX_DEPTH) {
        w->status = PYWALK_TORN;
        return w->done = 1;
    }
    if ((flags & o->magic_mask) == o->magic_cfunc && me) {
        keep = 1;
        iseq = me | RBWALK_CFUNC;
        pc = 0;
    } else if (iseq && pc && (flags & o->magic_mask) != o->magic_dummy) {
        keep = 1;
    }
    if (keep) {
        if (k >= w->max || k >= PYWALK_MAX_DEPTH) {
            w->status = PYWALK_DEPTH;
            return w->done = 1;
        }
        out[k].code = iseq;
        out[k].instr = pc;
        entry[k] = (flags & o->flag_finish) ? 1 : 0;
        w->k = k + 1;
    } else if ((flags & o->flag_finish) && k > 0 && k <= PYWALK_MAX_DEPTH) {
        entry[k - 1] = 1;             /* a vm_exec began below it */
    }
    w->cfp += o->cfp_size;
    return 0;
}

#define RBWALK_CHAIN_STEPS (PYWALK_MAX_DEPTH * 2)

/* Whether thread th of ractor waits for the GVL: its node is in the
 * GVL's queue of waiters (at most RBWALK_GVL_WAITERS looked at).  Read
 * after the frames, racing the target like them. */
PYWALK_INLINE int rbwalk_gvl_waiting(void *ctx, const struct rb_walk *o,
                                     uint64_t ractor, uint64_t th)
{
    uint64_t head = ractor + o->ractor_gvl_waitq, node = 0;
    if (!ractor || pywalk_read_u64(ctx, head, &node) < 0)
        return 0;
    for (int i = 0; i < RBWALK_GVL_WAITERS; i++) {
        if (!node || node == head)
            return 0;
        if (node == th + o->thread_gvl_node)
            return 1;
        if (pywalk_read_u64(ctx, node, &node) < 0)
            return 0;
    }
    return 0;
}

#ifndef __bpf__
/* The rb_thread_t of native thread tid, or 0; its ractor in *ractor. */
PYWALK_INLINE uint64_t rbwalk_thread(void *ctx, const struct rb_walk *o,
                                     uint64_t vm, uint64_t tid, uint64_t hint,
                                     uint64_t *ractor)
{
    struct rbwalk_find w;
    if (!rbwalk_find_start(ctx, o, vm, tid, hint, &w))
        for (int i = 0; i < RBWALK_FIND_STEPS; i++)
            if (rbwalk_find_step(ctx, o, &w))
                break;
    *ractor = w.ractor;
    return w.found;
}

/* Walk thread th's frames, at most max, into out[] and entry[], leaf
 * first; *n gets the count.  Returns an enum pywalk_status. */
PYWALK_INLINE int rbwalk_frames(void *ctx, const struct rb_walk *o,
                                uint64_t th, struct pywalk_frame *out,
                                uint8_t *entry, uint32_t max, uint32_t *n)
{
    struct rbwalk_chain w;
    int i = 0;
    if (!rbwalk_chain_start(ctx, o, th, max, &w))
        for (i = 0; i < RBWALK_CHAIN_STEPS; i++)
            if (rbwalk_chain_step(ctx, o, &w, out, entry))
                break;
    if (i == RBWALK_CHAIN_STEPS)
        w.status = PYWALK_DEPTH;
    *n = w.k;
    return w.status;
}
#endif

#endif /* PYWALK_READ */
