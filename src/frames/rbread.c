/* rbread.c - CRuby's frames from outside; see rbread.h. */
#include "rbread.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codecache.h"
#include "relf.h"
#include "rmem.h"

#define PYWALK_INLINE static inline
#define PYWALK_READ(ctx, dst, len, addr) \
    rmem_copy((struct rmem *)(ctx), (addr), (dst), (len))
#include "pywalk.h"
#include "rbwalk.h"

#define MAX_ISEQ (1u << 20)     /* instructions of one iseq */
#define MAX_INSNS 65536u        /* line table entries of one iseq */
#define MAX_EXEC_BYTES 65536u   /* rb_vm_exec's code scanned for calls */
#define MAX_CALLEES 64u         /* distinct callees looked at */
#define MIN_CORE_BYTES 4096u    /* vm_exec_core is far larger */
#define ID_ENTRY_UNIT 512u      /* ids per entry of the symbol table */
#define LAST_OP_ID 0xa9u        /* tLAST_OP_ID: operator ids are plain */
#define IMM_TABLE 54u           /* the succinct line index's immediate
                                   part (IMMEDIATE_TABLE_SIZE) */
#define SUCC_BLOCK 80u          /* sizeof(struct succ_dict_block) */

/* Ruby's object header: flags' type bits, the imemo kinds used. */
#define T_MASK 0x1fu
#define T_STRING 0x05u
#define T_ARRAY 0x07u
#define T_IMEMO 0x1au
#define IMEMO_MENT 6u
#define IMEMO_ISEQ 7u
#define FL_USHIFT 12
#define FL_USER1 (1ull << 13)   /* RString: not embedded; RArray:
                                   embedded */
#define FL_SINGLETON (1ull << 12) /* RClass: a singleton class (FL_USER0) */
#define QNIL 8u

/* A class whose name is known: the value of an exported class global. */
struct known_class {
    uint64_t klass;     /* the class */
    uint64_t meta;      /* its singleton class (0: none) */
    const char *name;
};

static const char *const class_syms[][2] = {
    {"rb_cObject", "Object"}, {"rb_mKernel", "Kernel"},
    {"rb_cBasicObject", "BasicObject"}, {"rb_cModule", "Module"},
    {"rb_cClass", "Class"}, {"rb_cArray", "Array"},
    {"rb_cHash", "Hash"}, {"rb_cString", "String"},
    {"rb_cSymbol", "Symbol"}, {"rb_cInteger", "Integer"},
    {"rb_cFloat", "Float"}, {"rb_cNumeric", "Numeric"},
    {"rb_cRange", "Range"}, {"rb_cProc", "Proc"},
    {"rb_cThread", "Thread"}, {"rb_cIO", "IO"}, {"rb_cFile", "File"},
    {"rb_cTime", "Time"}, {"rb_cStruct", "Struct"},
    {"rb_cRandom", "Random"}, {"rb_cEnumerator", "Enumerator"},
    {"rb_mEnumerable", "Enumerable"}, {"rb_mComparable", "Comparable"},
    {"rb_mProcess", "Process"}, {"rb_mMath", "Math"}, {"rb_mGC", "GC"},
};
#define NCLASSES (sizeof class_syms / sizeof class_syms[0])

struct rbread {
    struct codereader cr;           /* first: see codecache.h */
    struct rmem *m;
    struct rbread_info info;
    struct rb_layout l;
    struct relf elf;
    bool have_elf;
    uint64_t class_addr[NCLASSES];  /* the globals' addresses */
    struct known_class classes[NCLASSES];
    bool classes_read;
};
_Static_assert(offsetof(struct rbread, cr) == 0, "codereader first");

bool rbread_candidate(const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    return strncmp(b, "libruby", 7) == 0 || strncmp(b, "ruby", 4) == 0;
}

static int32_t le32(const uint8_t *b)
{
    return (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 |
                     (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
}

/* vm_exec_core: of the functions rb_vm_exec calls directly (e8 rel32),
 * the one whose unwind-table range is the largest (and large). */
static void find_core(struct rmem *m, const struct relf *e, uint64_t exec,
                      uint64_t size, struct rbread_info *out)
{
    uint64_t seen[MAX_CALLEES];
    size_t nseen = 0;
    uint64_t best_lo = 0, best_hi = 0;
    uint8_t *code = size >= 5 && size <= MAX_EXEC_BYTES ? malloc(size) : NULL;
    if (!code || rmem_copy(m, exec, code, (size_t)size) < 0) {
        free(code);
        return;
    }
    for (uint64_t i = 0; i + 5 <= size; i++) {
        if (code[i] != 0xe8)
            continue;
        uint64_t to = exec + i + 5 + (uint64_t)(int64_t)le32(code + i + 1);
        bool dup = false;
        for (size_t k = 0; k < nseen && !dup; k++)
            dup = seen[k] == to;
        if (dup || nseen >= MAX_CALLEES || to < e->base)
            continue;
        seen[nseen++] = to;
        uint64_t lo, hi;
        if (relf_fde_range(m, e, to, &lo, &hi) == 0 && lo == to &&
            hi - lo > best_hi - best_lo)
            best_lo = lo, best_hi = hi;
    }
    free(code);
    if (best_hi - best_lo >= MIN_CORE_BYTES) {
        out->eval_lo = best_lo;
        out->eval_hi = best_hi;
    }
}

/* ruby_global_symbols, from rb_id2str's code: a jmp (e9 rel32) to the
 * lookup, which compares the serial with last_id (39 3d: cmp %edi,
 * rel32(%rip)) and loads ids (48 8b 3d: mov rel32(%rip),%rdi), 16 bytes
 * after last_id in rb_symbols_t.  0 when the code is not that. */
static uint64_t find_symbols(struct rmem *m, uint64_t id2str)
{
    uint8_t c[32], d[96];
    if (!id2str || rmem_copy(m, id2str, c, sizeof c) < 0)
        return 0;
    uint64_t look = 0;
    for (unsigned i = 0; i + 5 <= sizeof c && !look; i++)
        if (c[i] == 0xe9)
            look = id2str + i + 5 + (uint64_t)(int64_t)le32(c + i + 1);
    if (!look || rmem_copy(m, look, d, sizeof d) < 0)
        return 0;
    uint64_t last = 0, ids = 0;
    for (unsigned i = 0; i + 7 <= sizeof d; i++) {
        if (!last && d[i] == 0x39 && d[i + 1] == 0x3d)
            last = look + i + 6 + (uint64_t)(int64_t)le32(d + i + 2);
        if (!ids && d[i] == 0x48 && d[i + 1] == 0x8b && d[i + 2] == 0x3d)
            ids = look + i + 7 + (uint64_t)(int64_t)le32(d + i + 3);
    }
    return last && ids == last + 16 ? last : 0;
}

int rbread_probe(struct rmem *m, uint64_t base, const char *path,
                 struct rbread_info *out)
{
    (void)path;
    memset(out, 0, sizeof *out);
    struct relf e;
    uint64_t ver = 0, exec = 0, size = 0;
    char v[24];
    unsigned a, b, c;
    if (relf_open(m, base, &e) < 0 ||
        relf_symbol(m, &e, "ruby_current_vm_ptr", &out->vm_ptr, NULL) < 0 ||
        relf_symbol(m, &e, "ruby_version", &ver, NULL) < 0 ||
        rmem_cstring(m, ver, v, sizeof v) < 0 ||
        sscanf(v, "%u.%u.%u", &a, &b, &c) != 3 || a > 9 || b > 99)
        return -1;
    out->major = a;
    out->minor = b;
    out->micro = c;
    snprintf(out->version, sizeof out->version, "%u.%u.%u", a, b, c);
    out->base = base;
    if (!rblayout_find(a, b))
        return 0;
    if (relf_symbol(m, &e, "rb_vm_exec", &exec, &size) == 0)
        find_core(m, &e, exec, size, out);
    if (relf_symbol(m, &e, "rb_id2str", &out->id2str, NULL) == 0)
        out->symbols = find_symbols(m, out->id2str);
    out->supported = true;
    return 0;
}

static uint64_t word(const uint8_t *b, size_t len, uint32_t off)
{
    return pywalk_word(b, (uint32_t)len, off);
}

/* The bytes of the T_STRING at addr (at most cap - 1) as a NUL-ended
 * malloc'd string; control characters become '?'.  NULL when it is not
 * one, or longer. */
static char *read_rstring(struct rbread *r, uint64_t addr, size_t cap)
{
    uint8_t h[40];
    if (!addr || (addr & 7) || rmem_copy(r->m, addr, h, sizeof h) < 0)
        return NULL;
    uint64_t flags = word(h, sizeof h, 0), len, ptr;
    if ((flags & T_MASK) != T_STRING)
        return NULL;
    if (flags & FL_USER1) {
        len = word(h, sizeof h, 16);
        ptr = word(h, sizeof h, 24);
    } else {
        len = (flags >> 14) & 0x1f;
        ptr = addr + 16;
        if (len > 24)
            return NULL;
    }
    if (len >= cap)
        return NULL;
    char *s = malloc(len + 1);
    if (!s || (len && rmem_copy(r->m, ptr, s, (size_t)len) < 0)) {
        free(s);
        return NULL;
    }
    for (size_t i = 0; i < len; i++)
        if ((uint8_t)s[i] < 0x20 || s[i] == 0x7f)
            s[i] = '?';
    s[len] = '\0';
    return s;
}

/* Element i of the T_ARRAY at addr into *out.  0 or -1. */
static int array_at(struct rbread *r, uint64_t addr, uint64_t i,
                    uint64_t *out)
{
    uint8_t h[40];
    if (!addr || (addr & 7) || rmem_copy(r->m, addr, h, sizeof h) < 0)
        return -1;
    uint64_t flags = word(h, sizeof h, 0), len, ptr;
    if ((flags & T_MASK) != T_ARRAY)
        return -1;
    if (flags & FL_USER1) {    /* RARRAY_EMBED_FLAG */
        len = (flags >> 15) & 3;
        ptr = addr + 16;
    } else {
        len = word(h, sizeof h, 16);
        ptr = word(h, sizeof h, 32);
    }
    if (i >= len || len > (1u << 24))
        return -1;
    return rmem_u64(r->m, ptr + i * 8, out);
}

/* The name of ID id (malloc'd), or NULL. */
static char *id_name(struct rbread *r, uint64_t id)
{
    uint64_t serial = id > LAST_OP_ID ? id >> 4 : id;
    uint64_t ids, chunk, str;
    uint8_t last[4];
    if (!r->info.symbols || !serial ||
        rmem_copy(r->m, r->info.symbols, last, sizeof last) < 0 ||
        serial > (uint32_t)le32(last) ||
        rmem_u64(r->m, r->info.symbols + 16, &ids) < 0 ||
        array_at(r, ids, serial / ID_ENTRY_UNIT, &chunk) < 0 ||
        array_at(r, chunk, (serial % ID_ENTRY_UNIT) * 2, &str) < 0 ||
        str == QNIL)
        return NULL;
    return read_rstring(r, str, PYREAD_MAX_NAME);
}

/* The known classes' values, read once they are all set (the VM has
 * booted): 0, or -1 while one cannot be read or is not set yet (a C
 * method's owner is then unknown, not "no known class"). */
static int read_classes(struct rbread *r)
{
    if (r->classes_read)
        return 0;
    for (size_t i = 0; i < NCLASSES; i++) {
        struct known_class *k = &r->classes[i];
        uint64_t meta_flags = 0;
        k->name = class_syms[i][1];
        k->klass = k->meta = 0;
        /* every one is Ruby's public C API: one not found is memory
         * that could not be read */
        if (!r->class_addr[i] ||
            rmem_u64(r->m, r->class_addr[i], &k->klass) < 0 || !k->klass ||
            rmem_u64(r->m, k->klass + 8, &k->meta) < 0 ||
            rmem_u64(r->m, k->meta, &meta_flags) < 0)
            return -1;
        /* its singleton class, when it has one (RBasic.klass) */
        if (!(meta_flags & FL_SINGLETON))
            k->meta = 0;
    }
    r->classes_read = true;
    return 0;
}

/* The check words of a cached code (codecache.h): an iseq's body and
 * location, or a method entry's id and owner. */
enum { CK_BODY, CK_LABEL, CK_PATH, CK_FIRSTLINE, CK_ENCODED };
enum { CK_ME_ID = 1, CK_ME_OWNER };

static int code_head(void *ctx, uint64_t addr, uint64_t *check)
{
    struct rbread *r = ctx;
    const struct rb_layout *l = &r->l;
    uint64_t flags;
    if (addr & RBWALK_CFUNC) {
        uint8_t me[48];
        addr &= ~RBWALK_CFUNC;
        if ((addr & 7) || rmem_copy(r->m, addr, me, sizeof me) < 0)
            return -1;
        flags = word(me, sizeof me, 0);
        if ((flags & T_MASK) != T_IMEMO ||
            ((flags >> FL_USHIFT) & 0xf) != IMEMO_MENT)
            return -1;
        check[0] = RBWALK_CFUNC;
        check[CK_ME_ID] = word(me, sizeof me, l->me_called_id);
        check[CK_ME_OWNER] = word(me, sizeof me, l->me_owner);
        return check[CK_ME_ID] ? 0 : -1;
    }
    uint64_t body;
    uint8_t b[256];
    if ((addr & 7) || rmem_u64(r->m, addr, &flags) < 0 ||
        (flags & T_MASK) != T_IMEMO ||
        ((flags >> FL_USHIFT) & 0xf) != IMEMO_ISEQ ||
        rmem_u64(r->m, addr + l->iseq_body, &body) < 0 || !body ||
        l->body_bytes > sizeof b ||
        rmem_copy(r->m, body, b, l->body_bytes) < 0)
        return -1;
    check[CK_BODY] = body;
    check[CK_LABEL] = word(b, l->body_bytes, l->body_label);
    check[CK_PATH] = word(b, l->body_bytes, l->body_pathobj);
    check[CK_FIRSTLINE] = word(b, l->body_bytes, l->body_first_lineno);
    check[CK_ENCODED] = word(b, l->body_bytes, l->body_iseq_encoded);
    return 0;
}

/* An iseq's line table, as the cache keeps it (aux). */
struct lines {
    uint64_t encoded;    /* iseq_encoded */
    uint32_t iseq_size;  /* instructions (VALUEs) */
    uint32_t n;          /* entries */
    uint32_t succ_len;   /* bytes of the succinct index after line[] */
    int32_t line[];      /* n lines, then the index's bytes */
};

/* How many positions of the table are at or below x (its rank), from
 * Ruby's succinct index (IMMEDIATE_TABLE_SIZE ranks of 7 bits, 9 to a
 * word, then blocks of 512 bits with a rank and 9-bit small ranks). */
static uint32_t succ_rank(const struct lines *t, uint32_t x)
{
    const uint8_t *s = (const uint8_t *)(t->line + t->n);
    uint64_t w;
    if (x < IMM_TABLE) {
        if ((x / 9 + 1) * 8 > t->succ_len)
            return t->n;
        memcpy(&w, s + (x / 9) * 8, 8);
        return (uint32_t)(w >> ((x % 9) * 7)) & 0x7f;
    }
    uint32_t blk = (x - IMM_TABLE) / 512, bit = (x - IMM_TABLE) % 512;
    size_t at = (IMM_TABLE / 9) * 8 + (size_t)blk * SUCC_BLOCK;
    if (at + SUCC_BLOCK > t->succ_len)
        return t->n;
    uint32_t rank;
    uint64_t small, bits;
    memcpy(&rank, s + at, 4);
    memcpy(&small, s + at + 8, 8);
    memcpy(&bits, s + at + 16 + (bit / 64) * 8, 8);
    uint32_t j = bit / 64;
    uint32_t sr = j ? (uint32_t)(small >> ((j - 1) * 9)) & 0x1ff : 0;
    return rank + sr +
           (uint32_t)__builtin_popcountll(bits << (63 - bit % 64));
}

static int code_fill(void *ctx, struct codecache_entry *e)
{
    struct rbread *r = ctx;
    const struct rb_layout *l = &r->l;
    if (e->check[0] == RBWALK_CFUNC) {
        /* without the symbol table (not found, or unreadable) a C method
         * is not named at all: the sample keeps its native frames */
        char *m = id_name(r, e->check[CK_ME_ID]);
        if (!m)
            return -1;
        if (read_classes(r) < 0) {
            free(m);
            return -1;
        }
        const char *cls = NULL, *sep = "#";
        for (size_t i = 0; i < NCLASSES && !cls; i++) {
            if (!r->classes[i].klass)
                continue;
            if (r->classes[i].klass == e->check[CK_ME_OWNER])
                cls = r->classes[i].name;
            else if (r->classes[i].meta == e->check[CK_ME_OWNER])
                cls = r->classes[i].name, sep = ".";
        }
        size_t n = strlen(m) + (cls ? strlen(cls) + 1 : 0) + 1;
        e->name = malloc(n);
        if (e->name)
            snprintf(e->name, n, "%s%s%s", cls ? cls : "", cls ? sep : "",
                     m);
        free(m);
        e->file = strdup("<cfunc>");
        return e->name && e->file ? 0 : -1;
    }
    uint64_t path = e->check[CK_PATH], fl = e->check[CK_FIRSTLINE];
    if (array_at(r, path, 0, &path) < 0)
        path = e->check[CK_PATH];   /* a String, not [path, realpath] */
    e->name = read_rstring(r, e->check[CK_LABEL], PYREAD_MAX_NAME);
    e->file = read_rstring(r, path, PYREAD_MAX_FILE);
    if (!e->name || !e->file || !(fl & 1))
        return -1;
    e->firstlineno = (int32_t)((int64_t)fl >> 1);
    /* the line table: entries, and the succinct index over positions */
    uint8_t b[256];
    if (rmem_copy(r->m, e->check[CK_BODY], b, l->body_bytes) < 0)
        return -1;
    uint32_t isz = (uint32_t)word(b, l->body_bytes, l->body_iseq_size);
    uint32_t n = (uint32_t)word(b, l->body_bytes, l->body_insns_size);
    uint64_t ib = word(b, l->body_bytes, l->body_insns_body);
    uint64_t succ = word(b, l->body_bytes, l->body_insns_succ);
    if (isz > MAX_ISEQ || n > MAX_INSNS || n > isz ||
        l->insn_entry_size < 4)
        return -1;
    /* sized as Ruby sizes it (rb_iseq_insns_info_encode_positions:
     * max_pos is iseq_size) */
    uint32_t maxpos = isz;
    size_t imm = (maxpos < IMM_TABLE ? maxpos + 8 : IMM_TABLE) / 9;
    size_t blocks = maxpos < IMM_TABLE ? 0
                    : (maxpos - IMM_TABLE + 511) / 512;
    size_t slen = n > 1 && succ ? imm * 8 + blocks * SUCC_BLOCK : 0;
    struct lines *t = malloc(sizeof *t + n * 4 + slen);
    uint8_t *ents = n ? malloc((size_t)n * l->insn_entry_size) : NULL;
    if (!t || (n && (!ents || rmem_copy(r->m, ib, ents,
                                        (size_t)n * l->insn_entry_size) < 0))
        || (slen && rmem_copy(r->m, succ, t->line + n, slen) < 0)) {
        free(t);
        free(ents);
        return -1;
    }
    t->encoded = e->check[CK_ENCODED];
    t->iseq_size = isz;
    t->n = n;
    t->succ_len = (uint32_t)slen;
    for (uint32_t i = 0; i < n; i++)
        t->line[i] = le32(ents + (size_t)i * l->insn_entry_size +
                          l->insn_entry_line);
    free(ents);
    e->aux = t;
    e->aux_len = (uint32_t)(sizeof *t + n * 4 + slen);
    return 0;
}

/* The line pc runs in the iseq e (0: unknown), as Ruby's own
 * rb_vm_get_sourceline finds it: the instruction before pc. */
static uint32_t frame_line(void *ctx, const struct codecache_entry *e,
                           const struct pywalk_frame *f)
{
    (void)ctx;
    const struct lines *t = e->aux;
    uint64_t pc = f->instr;
    if (f->code & RBWALK_CFUNC)
        return 0;
    if (!t || !t->n || pc < t->encoded || (pc - t->encoded) & 7 ||
        (pc - t->encoded) / 8 > t->iseq_size)
        return 0;
    uint32_t pos = (uint32_t)((pc - t->encoded) / 8);
    if (pos)
        pos--;
    uint32_t idx = t->n == 1 ? 1 : t->succ_len ? succ_rank(t, pos) : 0;
    if (idx == 0 || idx > t->n)
        return 0;
    int32_t line = t->line[idx - 1];
    return line > 0 ? (uint32_t)line : 0;
}

static const struct codecache_ops rb_code_ops = {code_head, code_fill,
                                                  frame_line};

struct rbread *rbread_new(struct rmem *m, const struct rbread_info *info)
{
    const struct rb_layout *row = rblayout_find(info->major, info->minor);
    if (!info->supported || !row)
        return NULL;
    struct rbread *r = codereader_new(sizeof *r, &rb_code_ops, m);
    if (!r)
        return NULL;
    r->m = m;
    r->info = *info;
    r->l = *row;
    r->have_elf = relf_open(m, info->base, &r->elf) == 0;
    for (size_t i = 0; i < NCLASSES && r->have_elf; i++)
        relf_symbol(m, &r->elf, class_syms[i][0], &r->class_addr[i], NULL);
    return r;
}

void rbread_free(struct rbread *r)
{
    if (r) /* &r->cr of a null r would be undefined */
        codereader_free(&r->cr);
}

const struct rb_layout *rbread_layout(const struct rbread *r)
{
    return &r->l;
}

const struct rbread_info *rbread_info(const struct rbread *r)
{
    return &r->info;
}

int rbread_walk(struct rbread *r, int64_t tid, struct pyread_stack *st)
{
    uint64_t hint = codereader_walk_start(&r->cr, tid, st);
    uint64_t vm = 0;
    if (rmem_u64(r->m, r->info.vm_ptr, &vm) < 0 || !vm)
        return codereader_walk_none(&r->cr, st);
    uint64_t ractor = 0;
    uint64_t th = rbwalk_thread(r->m, &r->l.walk, vm, (uint64_t)tid, hint,
                                &ractor);
    if (!th)
        return codereader_walk_none(&r->cr, st);
    codereader_hint_set(&r->cr, tid, th);
    st->status = rbwalk_frames(r->m, &r->l.walk, th, st->f, st->entry,
                               PYWALK_MAX_DEPTH, &st->n);
    st->flags = rbwalk_gvl_waiting(r->m, &r->l.walk, ractor, th)
                ? PYWALK_F_GVL : 0;
    return codereader_walk_end(&r->cr, st);
}
