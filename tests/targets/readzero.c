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
 * gives them (tests/kernel_frames.t).  Runs forever, or SECONDS then exits
 * 0.
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

SP_FRAME ssize_t kernel_copy(int fd)
{
    ssize_t n;

    do
        n = read(fd, buf, sizeof buf);
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
    while (!target_expired(deadline)) {
        ssize_t n = kernel_copy(fd);
        if (n <= 0) {
            fprintf(stderr, "readzero: read: %s\n", n < 0 ? strerror(errno) : "EOF");
            return 1;
        }
        target_sink = user_sum(buf, (size_t)n);
    }
    return 0;
}
