/* script.c - parse --script files into input events.
 *
 * See script.h.  The whole file is parsed before curses starts, so a bad
 * script fails with a one-line error instead of half a test run.
 */
#include "script.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request.h"
#include "vec.h"

struct script {
    struct script_event *ev;
    size_t n, cap, next;
};

static int add_event(struct script *s, struct script_event e)
{
    if (VEC_RESERVE(s->ev, s->cap, s->n + 1) < 0)
        return -1;
    s->ev[s->n++] = e;
    return 0;
}

/* Parse one line into events; 0, or -1 with err set. */
static int parse_line(struct script *s, char *line, int lineno,
                      const char *path, char *err, size_t errlen)
{
    size_t len = strlen(line);
    struct script_event e = { .lineno = lineno };

    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        line[--len] = '\0';
    if (len == 0 || (len > 1 && line[0] == '#'))
        return 0;
    if (len > 1 && line[0] == ':') {
        if (strncmp(line, ":type ", 6) == 0) {
            for (const char *c = line + 6; *c; c++) {
                e.kind = SCRIPT_KEY;
                e.key = (unsigned char)*c;
                if (add_event(s, e) < 0)
                    goto oom;
            }
            return 0;
        }
        if (strncmp(line, ":dump ", 6) == 0 && line[6]) {
            e.kind = SCRIPT_DUMP;
            e.path = strdup(line + 6);
            if (!e.path || add_event(s, e) < 0) {
                free(e.path);
                goto oom;
            }
            return 0;
        }
        if (strcmp(line, ":refresh") == 0) {
            e.kind = SCRIPT_REFRESH;
            if (add_event(s, e) < 0)
                goto oom;
            return 0;
        }
        if (strncmp(line, ":resize ", 8) == 0) {
            char extra;
            if (sscanf(line + 8, "%d %d %c", &e.cols, &e.lines, &extra) != 2 ||
                e.cols < 1 || e.lines < 1 || e.cols > 1000 || e.lines > 1000) {
                snprintf(err, errlen, "%s:%d: usage: :resize COLS LINES", path,
                         lineno);
                return -1;
            }
            e.kind = SCRIPT_RESIZE;
            if (add_event(s, e) < 0)
                goto oom;
            return 0;
        }
        snprintf(err, errlen, "%s:%d: unknown command %s", path, lineno, line);
        return -1;
    }
    e.kind = SCRIPT_KEY;
    e.key = request_key_parse(line);
    if (e.key < 0) {
        snprintf(err, errlen, "%s:%d: unknown key %s", path, lineno, line);
        return -1;
    }
    if (add_event(s, e) < 0)
        goto oom;
    return 0;
oom:
    snprintf(err, errlen, "%s: out of memory", path);
    return -1;
}

struct script *script_load(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "re");
    struct script *s;
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0;

    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    s = calloc(1, sizeof(*s));
    if (!s) {
        snprintf(err, errlen, "%s: out of memory", path);
        fclose(f);
        return NULL;
    }
    while (getline(&line, &cap, f) >= 0) {
        if (parse_line(s, line, ++lineno, path, err, errlen) < 0) {
            script_free(s);
            s = NULL;
            break;
        }
    }
    if (s && ferror(f)) {
        snprintf(err, errlen, "%s: read error", path);
        script_free(s);
        s = NULL;
    }
    free(line);
    fclose(f);
    return s;
}

const struct script_event *script_next(struct script *s)
{
    return s->next < s->n ? &s->ev[s->next++] : NULL;
}

void script_free(struct script *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        free(s->ev[i].path);
    free(s->ev);
    free(s);
}
