/* phase.c - a program whose hot function changes halfway.
 *
 *   usage: phase SWITCH_SECONDS MARKER_FILE [SECONDS]
 *
 * main spins in old_hot for SWITCH_SECONDS, creates MARKER_FILE (so a
 * test knows when the change happened), then spins in new_hot: the
 * recent window must show new_hot leading within a few seconds, while
 * since the start old_hot still leads for a while (tests/ui_tmux.t).
 * Runs forever, or SECONDS in all, then exits 0.
 */
#include "common.h"

#include <fcntl.h>

SP_FRAME void old_hot(double until)
{
    uint64_t x = 1;

    while (target_now() < until)
        TARGET_SPIN(x, 6364136223846793005ULL, 1442695040888963407ULL, 20000);
}

SP_FRAME void new_hot(double deadline)
{
    uint64_t x = 3;

    do
        TARGET_SPIN(x, 2862933555777941757ULL, 3037000493ULL, 20000);
    while (!target_expired(deadline));
}

int main(int argc, char **argv)
{
    target_usage(argc, 3, 4, "phase SWITCH_SECONDS MARKER_FILE [SECONDS]");
    double start = target_now();
    double switch_at = start + target_parse_seconds("phase", argv[1]);
    double deadline = target_deadline_arg("phase", argc, argv, 3);
    int fd;

    old_hot(switch_at);
    fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        fprintf(stderr, "phase: %s: %s\n", argv[2], strerror(errno));
        return 1;
    }
    close(fd);
    new_hot(deadline);
    return 0;
}
