/* badfp.c - spins with a corrupt frame pointer, in code without unwind
 * tables.
 *
 *   usage: badfp [SECONDS]
 *
 * Built with frame pointers but without .eh_frame or .debug_frame
 * (targets.mk), so an unwinder can only follow %rbp.  main cycles through
 * three spinning functions, ~30 ms each; each one points %rbp at a bad
 * frame chain for the length of an inline-asm loop (spin_with_fp):
 *   spin_garbage_fp   %rbp = 0xdeadbeef, an unmapped address;
 *   spin_self_loop    %rbp -> a frame on the stack whose saved %rbp is
 *                     itself: following it never moves;
 *   spin_long_chain   %rbp -> 2000 well-formed frames on the stack, at
 *                     rising addresses, each returning into fake_caller:
 *                     an unwinder that does not cap the depth walks them
 *                     all.
 * An unwinder must stop on each, at most at its depth cap, and mark the
 * stack truncated.  Runs forever, or SECONDS then exits 0.
 * (tests/reliability_unwind.t)
 */
#include "common.h"

#include <stdint.h>

#define CHAIN_FRAMES 2000

static double deadline;

/* Never called: its address is the return address of the fake frames. */
SP_FRAME void fake_caller(void)
{
    __asm__ volatile("nop; nop; nop; nop; nop; nop; nop; nop; nop; nop");
}

/* Spin `iters` rounds with %rbp = fp.  %rbp is saved in %r12 and put
 * back before anything else runs: nothing in the loop touches memory. */
SP_FRAME void spin_with_fp(uint64_t fp, long iters)
{
    __asm__ volatile("mov %%rbp, %%r12\n\t"
                     "mov %1, %%rbp\n\t"
                     "1:\n\t"
                     "dec %0\n\t"
                     "jnz 1b\n\t"
                     "mov %%r12, %%rbp\n\t"
                     : "+r"(iters)
                     : "r"(fp)
                     : "r12", "cc", "memory");
}

static uint64_t return_into_fake_caller(void)
{
    return (uint64_t)(uintptr_t)fake_caller + 4;
}

SP_FRAME void spin_garbage_fp(double until)
{
    while (target_now() < until)
        spin_with_fp(0xdeadbeefULL, 1000000);
}

SP_FRAME void spin_self_loop(double until)
{
    volatile uint64_t frame[2];

    frame[0] = (uint64_t)(uintptr_t)frame;
    frame[1] = return_into_fake_caller();
    while (target_now() < until)
        spin_with_fp((uint64_t)(uintptr_t)frame, 1000000);
}

SP_FRAME void spin_long_chain(double until)
{
    volatile uint64_t chain[2 * CHAIN_FRAMES];

    for (int i = 0; i < CHAIN_FRAMES; i++) {
        chain[2 * i] = i + 1 < CHAIN_FRAMES
            ? (uint64_t)(uintptr_t)&chain[2 * (i + 1)] : 0;
        chain[2 * i + 1] = return_into_fake_caller();
    }
    while (target_now() < until)
        spin_with_fp((uint64_t)(uintptr_t)chain, 1000000);
}

int main(int argc, char **argv)
{
    target_usage(argc, 1, 2, "badfp [SECONDS]");
    deadline = target_deadline_arg("badfp", argc, argv, 1);
    while (!target_expired(deadline)) {
        spin_garbage_fp(target_now() + 0.03);
        spin_self_loop(target_now() + 0.03);
        spin_long_chain(target_now() + 0.03);
    }
    return 0;
}
