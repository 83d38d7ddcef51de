/* pyaccuracy.c - how right a sampler's Python frames are, against the
 * target's own record (tests/targets/pyhot.py --log).
 *
 *   pyaccuracy [--sampler perf|ptrace] [-F HZ] --log FILE -p PID
 *   pyaccuracy [--sampler perf|ptrace] [-F HZ] --log FILE -- CMD [ARG...]
 *
 * Runs the real sampler (sampler.h: attach or launch, the backend's own
 * Python frame reading) and reads what it pushes to the ingest buffer,
 * as the collector would: code objects (INGEST_CODE) and samples, each
 * with its CLOCK_MONOTONIC time.  Once the target has exited it reads
 * the log, in which the target wrote the start of every call of its
 * three functions (time.monotonic_ns, the same clock), and prints:
 *
 *   samples N main M python P unreadable U
 *   accuracy A      share (%) of the main thread's samples, taken while
 *                   the logged calls ran, whose Python leaf is the
 *                   function the log says ran then
 *   module B        share (%) of the main thread's samples with Python
 *                   frames whose outermost one is <module>
 *   share NAME S    each function's share of those samples, beside
 *   truth NAME T    the target's own
 *
 * A test tool: it links the engine, not the collector or the UI.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "ingest.h"
#include "sampler.h"
#include "script_frames.h"
#include "stackword.h"
#include "vec.h"

#define MAX_CODES 65536

struct smp {
    uint64_t time;
    int32_t tid;
    int leaf;     /* code id of the innermost Python frame, -1: none */
    int bottom;   /* ...of the outermost one */
    bool torn;
};

static char *names[MAX_CODES];
static struct smp *smps;
static size_t nsmps, capsmps;

static void take(const uint8_t *data, size_t len)
{
    size_t off = 0;
    const void *payload;
    const struct ingest_rec *r;
    while ((r = ingest_next(data, len, &off, &payload))) {
        if (r->type == INGEST_CODE && r->len >= sizeof(struct ingest_code)) {
            struct ingest_code ic;
            memcpy(&ic, payload, sizeof ic);
            if (ic.id < MAX_CODES && !names[ic.id])
                names[ic.id] = strndup((const char *)payload + sizeof ic,
                                       ic.name_len);
        } else if (r->type == INGEST_SAMPLE) {
            const uint64_t *w = payload;
            size_t n = r->len / sizeof *w;
            struct smp s = {r->time, r->tid, -1, -1,
                            (r->flags & INGEST_F_SCRIPT_TORN) != 0};
            for (size_t i = 0; i < n; i++)
                if (stackword_is_script(w[i])) {
                    if (s.leaf < 0)
                        s.leaf = (int)stackword_code(w[i]);
                    s.bottom = (int)stackword_code(w[i]);
                }
            if (VEC_RESERVE(smps, capsmps, nsmps + 1) == 0)
                smps[nsmps++] = s;
        }
    }
}

struct sw {
    uint64_t time;
    char name[32];
};

static const char *leaf_name(const struct smp *s)
{
    return s->leaf >= 0 && s->leaf < MAX_CODES && names[s->leaf]
               ? names[s->leaf] : "";
}

int main(int argc, char **argv)
{
    struct sampler_config cfg;
    sampler_config_default(&cfg);
    const char *log = NULL;
    int i = 1;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--sampler") == 0 && i + 1 < argc)
            cfg.kind = sampler_kind_parse(argv[++i]);
        else if (strcmp(argv[i], "-F") == 0 && i + 1 < argc) {
            cfg.interval_ns = (uint64_t)(1e9 / atof(argv[++i]));
            cfg.interval_set = true;
        } else if (strcmp(argv[i], "--log") == 0 && i + 1 < argc)
            log = argv[++i];
        else if (strcmp(argv[i], "-p") == 0 && i + 1 < argc)
            cfg.pid = atoi(argv[++i]);
        else if (strcmp(argv[i], "--") == 0) {
            cfg.argv = argv + i + 1;
            break;
        } else {
            break;
        }
    }
    if (!log || cfg.kind < 0 || (!cfg.pid && !cfg.argv)) {
        fprintf(stderr, "usage: pyaccuracy [--sampler perf|ptrace] [-F HZ] "
                        "--log FILE (-p PID | -- CMD...)\n");
        return 2;
    }
    cfg.quiet_child = true;
    cfg.ingest = ingest_new(8u << 20);
    char err[256];
    int code;
    struct sampler *s = sampler_start(&cfg, err, sizeof err, &code);
    if (!s) {
        fprintf(stderr, "pyaccuracy: %s\n", err);
        return code;
    }
    pid_t pid = sampler_pid(s);
    struct sampler_stats st;
    for (;;) {
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
        const uint8_t *data;
        size_t len;
        ingest_swap(cfg.ingest, &data, &len);
        take(data, len);
        sampler_get_stats(s, &st);
        if (st.target == SAMPLER_EXITED || st.target == SAMPLER_ENDED)
            break;
    }
    sampler_halt(s);
    for (int k = 0; k < 2; k++) {
        const uint8_t *data;
        size_t len;
        ingest_swap(cfg.ingest, &data, &len);
        take(data, len);
    }
    sampler_get_stats(s, &st);

    FILE *f = fopen(log, "r");
    if (!f) {
        fprintf(stderr, "pyaccuracy: %s: %s\n", log, strerror(errno));
        return 1;
    }
    struct sw *sws = NULL;
    size_t nsw = 0, capsw = 0;
    char line[256], truth[8][64];
    int ntruth = 0;
    while (fgets(line, sizeof line, f)) {
        struct sw w;
        unsigned long long t;
        if (sscanf(line, "switch %llu %31s", &t, w.name) == 2 &&
            VEC_RESERVE(sws, capsw, nsw + 1) == 0) {
            w.time = t;
            sws[nsw++] = w;
        } else if (strncmp(line, "share ", 6) == 0 && ntruth < 8) {
            line[strcspn(line, "\n")] = '\0';
            snprintf(truth[ntruth++], sizeof truth[0], "%.63s", line + 6);
        }
    }
    fclose(f);

    size_t main_n = 0, python = 0, torn = 0, judged = 0, right = 0,
           with_py = 0, module = 0, k = 0;
    size_t fn_n[3] = {0};
    const char *fns[3] = {"py_sixty", "py_thirty", "py_ten"};
    for (size_t j = 0; j < nsmps; j++) {
        const struct smp *x = &smps[j];
        python += x->leaf >= 0;
        torn += x->torn;
        if (x->tid != pid)
            continue;
        main_n++;
        if (x->leaf >= 0) {
            with_py++;
            module += x->bottom >= 0 && x->bottom < MAX_CODES &&
                      names[x->bottom] &&
                      strcmp(names[x->bottom], "<module>") == 0;
        }
        for (int q = 0; q < 3; q++)
            fn_n[q] += strcmp(leaf_name(x), fns[q]) == 0;
        /* the call running at the sample's time: the last one started */
        if (nsw < 2 || x->time < sws[0].time || x->time >= sws[nsw - 1].time)
            continue;
        while (k + 1 < nsw && sws[k + 1].time <= x->time)
            k++;
        while (k > 0 && sws[k].time > x->time)
            k--;
        judged++;
        right += strcmp(leaf_name(x), sws[k].name) == 0;
    }
    printf("samples %zu main %zu python %zu unreadable %zu\n", nsmps, main_n,
           python, torn);
    printf("accuracy %.1f (%zu of %zu)\n",
           judged ? 100.0 * (double)right / (double)judged : 0.0, right,
           judged);
    printf("module %.1f (%zu of %zu)\n",
           with_py ? 100.0 * (double)module / (double)with_py : 0.0, module,
           with_py);
    size_t three = fn_n[0] + fn_n[1] + fn_n[2];
    for (int q = 0; q < 3; q++)
        printf("share %s %.1f\n", fns[q],
               three ? 100.0 * (double)fn_n[q] / (double)three : 0.0);
    for (int q = 0; q < ntruth; q++)
        printf("truth %s\n", truth[q]);
    printf("sampler %s script \"%s\" torn %llu\n",
           st.backend ? st.backend : "?", st.script,
           (unsigned long long)st.script_torn);
    fflush(stdout);
    sampler_stop(s);
    ingest_free(cfg.ingest);
    for (int q = 0; q < MAX_CODES; q++)
        free(names[q]);
    free(smps);
    free(sws);
    return 0;
}
