/* timedgen.c - write a pprof profile whose samples carry times, from a
 * text spec: the fixtures of the timeline and window tests.
 *
 *   timedgen BASE_UNIX_SECONDS < SPEC > OUT.pb.gz
 *
 * Each SPEC line is "SECOND THREAD-TID;frame;...;leaf COUNT": COUNT
 * samples of the stack on thread THREAD (tid TID) at BASE + SECOND
 * seconds (wall clock).  Blank lines and lines starting with '#' are
 * skipped.  The profile goes through the aggregate's ring (window.h) and
 * export_pprof, as a live profile would, so the output is what sproftop
 * writes; the same spec gives the same bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "format.h"
#include "profile.h"
#include "window.h"

#define MAX_DEPTH 64

static int add_line(struct profile *p, uint64_t base, char *line)
{
    char *save = NULL, *sec = strtok_r(line, " ", &save);
    char *stack = strtok_r(NULL, " ", &save);
    char *count = strtok_r(NULL, " \n", &save);
    struct stack_frame f[MAX_DEPTH];
    size_t n = 0;

    if (!sec || !stack || !count)
        return -1;
    char *tsave = NULL, *th = strtok_r(stack, ";", &tsave);
    char *dash = th ? strrchr(th, '-') : NULL;
    if (!dash)
        return -1;
    *dash = '\0';
    uint32_t t = profile_thread(p, strtoll(dash + 1, NULL, 10), th);
    for (char *tok = strtok_r(NULL, ";", &tsave); tok && n < MAX_DEPTH;
         tok = strtok_r(NULL, ";", &tsave))
        f[n++] = (struct stack_frame){
            profile_intern_frame(p, &(struct frame_desc){
                                        .name = tok, .module = "timed",
                                        .kind = FRAME_FUNC }),
            0, 0 };
    return profile_add_stack_at(p, t, f, n, strtoull(count, NULL, 10),
                                (base + strtoull(sec, NULL, 10)) *
                                    WINDOW_NS_PER_S);
}

int main(int argc, char **argv)
{
    struct profile *p = profile_new();
    struct export_opts o;
    char line[4096];
    int lineno = 0;

    if (argc != 2 || !p || profile_time_enable(p, WINDOW_MAX_SECONDS) < 0) {
        fprintf(stderr, "usage: timedgen BASE_UNIX_SECONDS < SPEC > OUT\n");
        return 2;
    }
    uint64_t base = strtoull(argv[1], NULL, 10);
    while (fgets(line, sizeof(line), stdin)) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (add_line(p, base, line) < 0) {
            fprintf(stderr, "timedgen: line %d: bad spec line\n", lineno);
            return 1;
        }
    }
    profile_set_meta(p, &(struct profile_meta){
                            .comm = "timed", .cmdline = "timed",
                            .interval_ns = 100000000,
                            .start_ns = base * WINDOW_NS_PER_S });
    profile_time_fit(p);
    export_opts_default(&o);
    if (format_find("pprof")->write(p, &o, stdout) < 0 || fflush(stdout)) {
        fprintf(stderr, "timedgen: cannot write\n");
        return 1;
    }
    profile_free(p);
    return 0;
}
