/* readzero.c - a loop of read() system calls: most of its CPU time is the
 * kernel's.
 *
 *   usage: readzero [SECONDS]
 *
 * main -> kernel_copy -> read(/dev/zero, 64 KiB) over and over, with a
 * little user work between the calls (user_sum, over the bytes read):
 * the kernel's part (entry_SYSCALL_64 ... read_zero, clearing the user
 * buffer) takes most of the time, as perf top shows.  Kernel frames must
 * stand above kernel_copy in its stacks, with the shares perf record -g
 * gives them (tests/kernel_frames.t).  Each read asks a size drawn at
 * random between 16 and 64 KiB: a loop of one fixed length is periodic,
 * and a sampler at a fixed rate then sees it through a slowly walking
 * phase (perf record's read_zero share went from 50.6% to 55.4% from one
 * second to the next, and two profilers at the same rate and another
 * phase differed by over 3 points over the same 5 s).  Runs forever, or
 * SECONDS then exits 0.
 */
#include "common.h"

#include <fcntl.h>

#define CHUNK (64 * 1024)

static unsigned char buf[CHUNK];

SP_FRAME uint64_t user_sum(const unsigned char *p, size_t n)
{
    uint64_t s = 0;

    for (size_t i = 0; i < n; i += 64)
        s += p[i];
    return s;
}

SP_FRAME ssize_t kernel_copy(int fd, size_t len)
{
    ssize_t n;

    do
        n = read(fd, buf, len);
    while (n < 0 && errno == EINTR);
    return n;
}

int main(int argc, char **argv)
{
    target_usage(argc, 1, 2, "readzero [SECONDS]");
    double deadline = target_deadline_arg("readzero", argc, argv, 1);
    int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);

    if (fd < 0) {
        fprintf(stderr, "readzero: /dev/zero: %s\n", strerror(errno));
        return 1;
    }
    uint64_t x = 0x9e3779b97f4a7c15ULL ^ (uint64_t)getpid();
    while (!target_expired(deadline)) {
        x ^= x << 13; /* xorshift64: the next size */
        x ^= x >> 7;
        x ^= x << 17;
        size_t len = CHUNK / 4 + (size_t)(x % (3 * CHUNK / 4 / 64)) * 64;
        ssize_t n = kernel_copy(fd, len);
        if (n <= 0) {
            fprintf(stderr, "readzero: read: %s\n", n < 0 ? strerror(errno) : "EOF");
            return 1;
        }
        target_sink = user_sum(buf, (size_t)n);
    }
    return 0;
}
