/* demo.c - the workload `make demo` opens sproftop on.
 *
 *   usage: demo [SECONDS]
 *
 * A small pipeline with an obvious hot path and three named threads:
 *   compress (main thread): main -> run_pipeline -> compress_block ->
 *                hash_chunk, which takes most of the CPU, and
 *                compress_block -> emit_block, a little;
 *   "parser":  parser_main -> parse_records -> tokenize_line, busy about
 *                a quarter of the time, sleeping the rest;
 *   "io":      io_main -> flush_buffers -> write() to /dev/null, then a
 *                nanosleep: mostly asleep (visible with --idle).
 * Runs forever, or SECONDS then exits 0.
 */
#include "common.h"

#include <fcntl.h>

#define CHUNK 4096
#define BLOCK (64 * CHUNK)

static double deadline;
static unsigned char block[BLOCK];

/* FNV-1a over one chunk, a few rounds: the hot spot. */
SP_FRAME uint64_t hash_chunk(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;

    for (int round = 0; round < 4; round++)
        for (size_t i = 0; i < n; i++)
            h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

SP_FRAME uint64_t emit_block(uint64_t h)
{
    for (size_t i = 0; i < BLOCK; i += 64)
        block[i] = (unsigned char)(h >> (i % 56));
    return h;
}

SP_FRAME uint64_t compress_block(void)
{
    uint64_t h = 0;

    for (size_t off = 0; off < BLOCK; off += CHUNK)
        h ^= hash_chunk(block + off, CHUNK);
    return emit_block(h);
}

SP_FRAME void run_pipeline(void)
{
    do
        target_sink = compress_block();
    while (!target_expired(deadline));
}

SP_FRAME uint64_t tokenize_line(uint64_t seed)
{
    uint64_t x = seed;

    for (int i = 0; i < 1500000; i++)
        x = (x << 7 | x >> 57) ^ (uint64_t)i;
    return x;
}

SP_FRAME void parse_records(void)
{
    uint64_t seed = 7;

    while (!target_expired(deadline)) {
        seed = tokenize_line(seed);
        target_nap(0.006);
    }
    target_sink = seed;
}

TARGET_THREAD(parser_main, "parser", parse_records())

SP_FRAME void flush_buffers(int fd)
{
    while (!target_expired(deadline)) {
        if (write(fd, block, CHUNK) < 0 && errno != EINTR)
            break;
        target_nap(0.05);
    }
}

static void *io_main(void *arg)
{
    int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

    (void)arg;
    pthread_setname_np(pthread_self(), "io");
    if (fd >= 0) {
        flush_buffers(fd);
        close(fd);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    target_usage(argc, 1, 2, "demo [SECONDS]");
    deadline = target_deadline_arg("demo", argc, argv, 1);
    for (size_t i = 0; i < BLOCK; i++)
        block[i] = (unsigned char)(i * 31);
    pthread_setname_np(pthread_self(), "compress");
    pthread_t parser = target_start("demo", parser_main, NULL);
    pthread_t io = target_start("demo", io_main, NULL);
    run_pipeline();
    pthread_join(parser, NULL);
    pthread_join(io, NULL);
    return 0;
}
