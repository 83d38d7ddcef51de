/* symtarget.c - a process whose code addresses and source lines are known,
 * for tests/symbols.t.
 *
 *   usage: symtarget
 *
 * Prints "KEY VALUE" lines - addresses (hex) of code of several kinds and
 * the source lines (__LINE__) they belong to - then "ready", and waits to
 * be killed.  Built -g -O2 so that inl_step is inlined into outer_func.
 *
 *   plain      start of plain_func (an ordinary function); plain_line
 *   outer      start of outer_func
 *   inl_ret    a return address inside inl_step inlined into outer_func;
 *              inl_line is the line of that call, call_line the line in
 *              outer_func that inl_step was inlined at
 *   ra_first / ra_second   two asm functions, the first ending with a call,
 *              so ra_second's start is ra_first's return address
 *   qsort      libc's qsort
 *   anon       an anonymous executable page (JIT-like code)
 *   vdso       __vdso_clock_gettime in the [vdso], 0 if not found
 */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

static volatile int sink;      /* keeps loops and calls from folding away */
static void *volatile last_ra; /* set by probe */
static int inl_line;
static int call_line;

/* Records the address it returns to: the one a sampler would unwind to. */
__attribute__((noinline, noclone)) static void probe(void)
{
    last_ra = __builtin_return_address(0);
    __asm__ volatile("" ::: "memory");
}

static const int plain_line = __LINE__; __attribute__((noinline, noclone)) int plain_func(int n) { int a = 0; for (int i = 0; i < n; i++) a += i * sink; return a; }

static inline __attribute__((always_inline)) int inl_step(int x)
{
    int r = x * sink;
    inl_line = __LINE__; probe();
    return r + sink;
}

__attribute__((noinline, noclone)) int outer_func(int x)
{
    int r;
    call_line = __LINE__; r = inl_step(x);
    sink = r;
    return r + 1;
}

/* ra_first's last instruction is a call, so its return address is the
 * first byte of ra_second: only pc-1 tells them apart.  Never run. */
__asm__(".text\n"
        ".p2align 4\n"
        ".globl ra_first\n"
        ".type ra_first, @function\n"
        "ra_first:\n"
        "  call ra_second\n"
        ".size ra_first, .-ra_first\n"
        ".globl ra_second\n"
        ".type ra_second, @function\n"
        "ra_second:\n"
        "  ret\n"
        ".size ra_second, .-ra_second\n");
void ra_first(void);
void ra_second(void);

/* Address of a [vdso] function, read from the image's own symbol table. */
static uintptr_t vdso_sym(const char *want)
{
    uintptr_t base = getauxval(AT_SYSINFO_EHDR);
    if (base == 0)
        return 0;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff);
    uintptr_t bias = base;
    for (int i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD) {
            bias = base - ph[i].p_vaddr;
            break;
        }
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(base + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_entsize == 0)
            continue;
        const Elf64_Sym *sym = (const Elf64_Sym *)(base + sh[i].sh_offset);
        const char *str = (const char *)(base + sh[sh[i].sh_link].sh_offset);
        for (size_t k = 0; k < sh[i].sh_size / sh[i].sh_entsize; k++)
            if (strcmp(str + sym[k].st_name, want) == 0)
                return bias + sym[k].st_value;
    }
    return 0;
}

int main(void)
{
    sink = plain_func(3);
    outer_func(2);
    void *anon = mmap(NULL, 4096, PROT_READ | PROT_EXEC,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (anon == MAP_FAILED) {
        perror("symtarget: mmap");
        return 1;
    }
    printf("plain %p\n", (void *)plain_func);
    printf("plain_line %d\n", plain_line);
    printf("outer %p\n", (void *)outer_func);
    printf("inl_ret %p\n", last_ra);
    printf("inl_line %d\n", inl_line);
    printf("call_line %d\n", call_line);
    printf("ra_first %p\n", (void *)ra_first);
    printf("ra_second %p\n", (void *)ra_second);
    printf("qsort %p\n", (void *)qsort);
    printf("anon %p\n", anon);
    printf("vdso %#lx\n", (unsigned long)vdso_sym("__vdso_clock_gettime"));
    printf("ready\n");
    fflush(stdout);
    for (;;)
        pause();
}
