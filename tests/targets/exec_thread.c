/* exec_thread.c - a multi-threaded program whose second thread calls exec.
 *
 *   usage: exec_thread DELAY|@FILE PROGRAM [ARG...]
 *
 * The main thread starts "exec-spin", which spins in spin_before_exec,
 * and "exec-caller", which spins in caller_spin for DELAY seconds (or,
 * given @FILE, until FILE exists: a test can then exec it once a profiler
 * is attached) and then calls execv(PROGRAM, [PROGRAM, ARG...]) from that
 * non-leader thread; the main thread spins in main_spin meanwhile.  The kernel ends
 * every other thread and the caller takes over the process ID, so a
 * profiler sees the leader vanish and a new image appear under the same
 * PID.  The process ends with PROGRAM's status; a failed exec exits 127
 * with one line on stderr.  (tests/reliability_exec.t)
 */
#include "common.h"

static double delay;
static const char *go_file;  /* @FILE: exec once it exists */
static char **exec_argv;

SP_FRAME void spin_before_exec(void)
{
    uint64_t x = target_sink;

    for (;;)
        TARGET_SPIN(x, 6364136223846793005ULL, 1442695040888963407ULL, 50000);
}

SP_FRAME void main_spin(void)
{
    uint64_t x = target_sink;

    for (;;)
        TARGET_SPIN(x, 2862933555777941757ULL, 1442695040888963407ULL, 50000);
}

SP_FRAME void caller_spin(double until)
{
    uint64_t x = target_sink;

    while (go_file ? access(go_file, F_OK) != 0 : target_now() < until)
        TARGET_SPIN(x, 3935559000370003845ULL, 1442695040888963407ULL, 50000);
}

TARGET_THREAD(spinner_main, "exec-spin", spin_before_exec())

static void *caller_main(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "exec-caller");
    caller_spin(target_now() + delay);
    execv(exec_argv[0], exec_argv);
    fprintf(stderr, "exec_thread: cannot exec %s: %s\n", exec_argv[0],
            strerror(errno));
    _exit(127);
}

int main(int argc, char **argv)
{
    target_usage(argc, 3, argc, "exec_thread DELAY|@FILE PROGRAM [ARG...]");
    if (argv[1][0] == '@')
        go_file = argv[1] + 1;
    else
        delay = target_parse_seconds("exec_thread", argv[1]);
    exec_argv = argv + 2;
    target_start("exec_thread", spinner_main, NULL);
    target_start("exec_thread", caller_main, NULL);
    main_spin();
    return 0;
}
