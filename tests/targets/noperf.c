/* noperf.c - run a command where perf_event_open fails with EACCES.
 *
 *   usage: noperf CMD [ARG...]
 *
 * Installs a seccomp filter (no new privileges, so any user may) that
 * makes perf_event_open(2) return EACCES, as a container's seccomp profile
 * or a kernel that forbids perf events would, and execs CMD.  Every other
 * system call is allowed.  The filter is inherited by CMD's children and
 * gone with them: nothing on the machine changes.  (tests/perf_fallback.t)
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_perf_event_open, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = { sizeof code / sizeof code[0], code };

    if (argc < 2) {
        fprintf(stderr, "usage: noperf CMD [ARG...]\n");
        return 2;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
        fprintf(stderr, "noperf: seccomp: %s\n", strerror(errno));
        return 1;
    }
    execvp(argv[1], argv + 1);
    fprintf(stderr, "noperf: %s: %s\n", argv[1], strerror(errno));
    return 127;
}
