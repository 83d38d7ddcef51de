/* rbstack.c - drive the CRuby frame reader (src/frames/rbread.h) by hand
 * and for the tests.
 *
 *   rbstack PID [TID]   the Ruby found, then each thread's Ruby stack
 *                       (leaf first), read live (no stop: a racing read
 *                       may be torn)
 *
 * Output lines: "ruby VERSION core FOUND symbols FOUND", then per thread
 * "thread TID STATUS" and one "  NAME (FILE:LINE)" per frame, "*" after
 * a frame where a native vm_exec call began.
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maps.h"
#include "rbread.h"
#include "rmem.h"

static const char *status_name(int s)
{
    switch (s) {
    case PYWALK_OK: return "ok";
    case PYWALK_DEPTH: return "depth";
    case PYWALK_TORN: return "torn";
    case PYWALK_NONE_THREAD: return "not-ruby";
    default: return "?";
    }
}

static void show_thread(struct rbread *r, int64_t tid)
{
    struct pyread_stack st;
    struct pyread_frame fr[PYWALK_MAX_DEPTH];
    bool torn;
    rbread_walk(r, tid, &st);
    int n = rbread_resolve(r, &st, fr, &torn);
    printf("thread %lld %s%s (%u raw)\n", (long long)tid,
           status_name(st.status),
           torn && st.status != PYWALK_TORN ? " torn" : "", st.n);
    for (int i = 0; i < n; i++) {
        struct pyread_code c;
        if (rbread_code(r, fr[i].code, &c) < 0)
            continue;
        printf("  %s (%s:%u)%s\n", c.qualname, c.filename, fr[i].line,
               fr[i].entry ? " *" : "");
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: rbstack PID [TID]\n");
        return 2;
    }
    pid_t pid = (pid_t)atoi(argv[1]);
    struct maps *mp = maps_read(pid);
    struct rmem *m = rmem_open_pid(pid);
    if (!mp || !m) {
        fprintf(stderr, "rbstack: cannot read process %d\n", (int)pid);
        return 1;
    }
    struct rbread_info info;
    bool found = false;
    for (size_t i = 0; i < mp->n && !found; i++) {
        const struct map_entry *e = &mp->v[i];
        if (e->offset == 0 && rbread_candidate(e->path) &&
            rbread_probe(m, e->start, e->path, &info) == 0)
            found = true;
    }
    if (!found) {
        printf("no ruby\n");
        return 0;
    }
    printf("ruby %s%s core %s symbols %s\n", info.version,
           info.supported ? "" : " unsupported",
           info.eval_lo ? "found" : "missing",
           info.symbols ? "found" : "missing");
    struct rbread *r = rbread_new(m, &info);
    if (!r)
        return 0;
    if (argc > 2) {
        show_thread(r, atoll(argv[2]));
    } else {
        char dir[64];
        snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
        DIR *d = opendir(dir);
        struct dirent *de;
        while (d && (de = readdir(d)))
            if (de->d_name[0] != '.')
                show_thread(r, atoll(de->d_name));
        if (d)
            closedir(d);
    }
    rbread_free(r);
    rmem_free(m);
    maps_free(mp);
    return 0;
}
