#include "gen_emit.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Truncating copy (snprintf "%s" trips -Wformat-truncation on fixed buffers). */
static void copy_str(char *dst, size_t n, const char *src)
{
    size_t k = strlen(src);
    if (k >= n)
        k = n - 1;
    memcpy(dst, src, k);
    dst[k] = '\0';
}

void pm_emit_init(pm_emit *e, FILE *out)
{
    memset(e, 0, sizeof *e);
    e->out = out;
}

static void vout(pm_emit *e, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
static void vout(pm_emit *e, const char *fmt, va_list ap)
{
    if (vfprintf(e->out, fmt, ap) < 0)
        e->failed = 1;
}

void pm_emit_printf(pm_emit *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vout(e, fmt, ap);
    va_end(ap);
}

char *pm_emit_ttype(char *buf, size_t n, const int64_t *dims, int rank, const char *elt)
{
    size_t off = (size_t)snprintf(buf, n, "tensor<");
    for (int i = 0; i < rank && off < n; i++)
        off += (size_t)snprintf(buf + off, n - off, "%lldx", (long long)dims[i]);
    if (off < n)
        snprintf(buf + off, n - off, "%s>", elt);
    return buf;
}

pm_val pm_emit_arg(const char *name, const int64_t *dims, int rank, const char *elt)
{
    pm_val v;
    copy_str(v.name, sizeof v.name, name);
    pm_emit_ttype(v.type, sizeof v.type, dims, rank, elt);
    return v;
}

void pm_emit_arg_decl(pm_emit *e, const pm_val *v, int last)
{
    pm_emit_printf(e, "%s: %s%s", v->name, v->type, last ? "" : ", ");
}

int pm_emit_dims(const pm_val *v, int64_t dims[PM_EMIT_MAX_RANK], char *elt, size_t eltn)
{
    const char *p = strchr(v->type, '<');
    if (!p)
        return -1;
    p++;
    int rank = 0;
    for (;;) {
        char *end;
        long long d = strtoll(p, &end, 10);
        if (end == p || *end != 'x')
            break;
        if (rank == PM_EMIT_MAX_RANK)
            return -1;
        dims[rank++] = d;
        p = end + 1;
    }
    if (elt) {
        size_t k = strcspn(p, ">");
        if (k >= eltn)
            k = eltn - 1;
        memcpy(elt, p, k);
        elt[k] = '\0';
    }
    return rank;
}

static pm_val fresh(pm_emit *e, const char *type)
{
    pm_val v;
    snprintf(v.name, sizeof v.name, "%%v%d", e->next_id++);
    copy_str(v.type, sizeof v.type, type);
    return v;
}

pm_val pm_emit_empty(pm_emit *e, const int64_t *dims, int rank, const char *elt)
{
    char t[128];
    pm_val v = fresh(e, pm_emit_ttype(t, sizeof t, dims, rank, elt));
    pm_emit_printf(e, "    %s = tensor.empty() : %s\n", v.name, v.type);
    return v;
}

pm_val pm_emit_filled(pm_emit *e, const int64_t *dims, int rank, const char *elt, const char *literal)
{
    pm_val empty = pm_emit_empty(e, dims, rank, elt);
    pm_val c = fresh(e, elt);
    pm_emit_printf(e, "    %s = arith.constant %s : %s\n", c.name, literal, elt);
    pm_val v = fresh(e, empty.type);
    pm_emit_printf(e, "    %s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s\n", v.name, c.name, elt, empty.name,
                   empty.type, v.type);
    e->linalg_ops++;
    return v;
}

static const char *elt_of(const pm_val *v, char *buf, size_t n)
{
    int64_t d[PM_EMIT_MAX_RANK];
    if (pm_emit_dims(v, d, buf, n) < 0)
        copy_str(buf, n, v->type);   /* a scalar type */
    return buf;
}

/* A fresh value of x's element type with a new shape (reshapes and slices). */
static pm_val fresh_like(pm_emit *e, const pm_val *x, const int64_t *dims, int rank)
{
    char t[128], elt[32];
    elt_of(x, elt, sizeof elt);
    return fresh(e, pm_emit_ttype(t, sizeof t, dims, rank, elt));
}

static void generic_head(pm_emit *e, const char *maps, const char *iters, const pm_val *ins, int n_ins,
                         const pm_val *outs, int n_outs, const pm_val *results)
{
    if (n_outs == 1)
        pm_emit_printf(e, "    %s = linalg.generic {indexing_maps = [%s], iterator_types = [%s]}\n",
                       results[0].name, maps, iters);
    else {
        char base[32];
        copy_str(base, sizeof base, results[0].name);
        *strchr(base, '#') = '\0';
        pm_emit_printf(e, "    %s:%d = linalg.generic {indexing_maps = [%s], iterator_types = [%s]}\n", base,
                       n_outs, maps, iters);
    }
    pm_emit_printf(e, "        ins(");
    for (int i = 0; i < n_ins; i++)
        pm_emit_printf(e, "%s%s", i ? ", " : "", ins[i].name);
    pm_emit_printf(e, " : ");
    for (int i = 0; i < n_ins; i++)
        pm_emit_printf(e, "%s%s", i ? ", " : "", ins[i].type);
    pm_emit_printf(e, ") outs(");
    for (int i = 0; i < n_outs; i++)
        pm_emit_printf(e, "%s%s", i ? ", " : "", outs[i].name);
    pm_emit_printf(e, " : ");
    for (int i = 0; i < n_outs; i++)
        pm_emit_printf(e, "%s%s", i ? ", " : "", outs[i].type);
    pm_emit_printf(e, ") {\n    ^bb0(");
    for (int i = 0; i < n_ins + n_outs; i++) {
        char elt[32];
        const pm_val *v = i < n_ins ? &ins[i] : &outs[i - n_ins];
        pm_emit_printf(e, "%s%%b%d: %s", i ? ", " : "", i, elt_of(v, elt, sizeof elt));
    }
    pm_emit_printf(e, "):\n");
}

static void generic_tail(pm_emit *e, const pm_val *outs, int n_outs)
{
    pm_emit_printf(e, "    } -> ");
    if (n_outs > 1)
        pm_emit_printf(e, "(");
    for (int i = 0; i < n_outs; i++)
        pm_emit_printf(e, "%s%s", i ? ", " : "", outs[i].type);
    pm_emit_printf(e, "%s\n", n_outs > 1 ? ")" : "");
    e->linalg_ops++;
}

void pm_emit_generic_n(pm_emit *e, const char *maps, const char *iters, const pm_val *ins, int n_ins,
                       const pm_val *outs, int n_outs, pm_val *results, const char *body_fmt, ...)
{
    int id = e->next_id++;
    for (int i = 0; i < n_outs; i++) {
        if (n_outs == 1)
            snprintf(results[i].name, sizeof results[i].name, "%%v%d", id);
        else
            snprintf(results[i].name, sizeof results[i].name, "%%v%d#%d", id, i);
        copy_str(results[i].type, sizeof results[i].type, outs[i].type);
    }
    generic_head(e, maps, iters, ins, n_ins, outs, n_outs, results);
    va_list ap;
    va_start(ap, body_fmt);
    vout(e, body_fmt, ap);
    va_end(ap);
    generic_tail(e, outs, n_outs);
}

pm_val pm_emit_generic(pm_emit *e, const char *maps, const char *iters, const pm_val *ins, int n_ins,
                       pm_val out, const char *body_fmt, ...)
{
    pm_val r = fresh(e, out.type);
    generic_head(e, maps, iters, ins, n_ins, &out, 1, &r);
    va_list ap;
    va_start(ap, body_fmt);
    vout(e, body_fmt, ap);
    va_end(ap);
    generic_tail(e, &out, 1);
    return r;
}

pm_val pm_emit_matmul(pm_emit *e, pm_val a, pm_val b, int64_t m, int64_t n)
{
    int64_t d[2] = {m, n};
    pm_val c = pm_emit_filled(e, d, 2, "f32", "0.0");
    pm_val r = fresh(e, c.type);
    pm_emit_printf(e, "    %s = linalg.matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s\n", r.name, a.name, b.name,
                   a.type, b.type, c.name, c.type, r.type);
    e->linalg_ops++;
    return r;
}

pm_val pm_emit_batch_matmul(pm_emit *e, pm_val a, pm_val b, int64_t batch, int64_t m, int64_t n)
{
    int64_t d[3] = {batch, m, n};
    pm_val c = pm_emit_filled(e, d, 3, "f32", "0.0");
    pm_val r = fresh(e, c.type);
    pm_emit_printf(e, "    %s = linalg.batch_matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s\n", r.name, a.name,
                   b.name, a.type, b.type, c.name, c.type, r.type);
    e->linalg_ops++;
    return r;
}

pm_val pm_emit_dequant(pm_emit *e, pm_val w, pm_val scales)
{
    int64_t d[PM_EMIT_MAX_RANK];
    char elt[32];
    pm_emit_dims(&w, d, elt, sizeof elt);
    pm_val out = pm_emit_empty(e, d, 3, "f32");
    pm_val ins[2] = {w, scales};
    pm_val deq = pm_emit_generic(e,
        "affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, "
        "affine_map<(d0, d1, d2) -> (d0, d1, d2)>",
        "\"parallel\", \"parallel\", \"parallel\"", ins, 2, out,
        "      %%q = arith.extsi %%b0 : %s to i32\n"
        "      %%f = arith.sitofp %%q : i32 to f32\n"
        "      %%s = arith.mulf %%f, %%b1 : f32\n"
        "      linalg.yield %%s : f32\n", elt);
    int64_t kn[2] = {d[0] * d[1], d[2]};
    return pm_emit_collapse(e, deq, "[[0, 1], [2]]", kn, 2);
}

static void dims_list(pm_emit *e, const int64_t *dims, int rank)
{
    for (int i = 0; i < rank; i++)
        pm_emit_printf(e, "%s%lld", i ? ", " : "", (long long)dims[i]);
}

pm_val pm_emit_expand(pm_emit *e, pm_val x, const char *reassoc, const int64_t *dims, int rank)
{
    pm_val r = fresh_like(e, &x, dims, rank);
    pm_emit_printf(e, "    %s = tensor.expand_shape %s %s output_shape [", r.name, x.name, reassoc);
    dims_list(e, dims, rank);
    pm_emit_printf(e, "] : %s into %s\n", x.type, r.type);
    return r;
}

pm_val pm_emit_collapse(pm_emit *e, pm_val x, const char *reassoc, const int64_t *dims, int rank)
{
    pm_val r = fresh_like(e, &x, dims, rank);
    pm_emit_printf(e, "    %s = tensor.collapse_shape %s %s : %s into %s\n", r.name, x.name, reassoc, x.type,
                   r.type);
    return r;
}

pm_val pm_emit_extract(pm_emit *e, pm_val x, const int64_t *offsets, const int64_t *sizes, int rank)
{
    pm_val r = fresh_like(e, &x, sizes, rank);
    pm_emit_printf(e, "    %s = tensor.extract_slice %s[", r.name, x.name);
    dims_list(e, offsets, rank);
    pm_emit_printf(e, "] [");
    dims_list(e, sizes, rank);
    pm_emit_printf(e, "] [");
    for (int i = 0; i < rank; i++)
        pm_emit_printf(e, "%s1", i ? ", " : "");
    pm_emit_printf(e, "] : %s to %s\n", x.type, r.type);
    return r;
}

pm_val pm_emit_insert(pm_emit *e, pm_val src, pm_val dest, const int64_t *offsets)
{
    int64_t sizes[PM_EMIT_MAX_RANK];
    int rank = pm_emit_dims(&src, sizes, NULL, 0);
    pm_val r = fresh(e, dest.type);
    pm_emit_printf(e, "    %s = tensor.insert_slice %s into %s[", r.name, src.name, dest.name);
    dims_list(e, offsets, rank);
    pm_emit_printf(e, "] [");
    dims_list(e, sizes, rank);
    pm_emit_printf(e, "] [");
    for (int i = 0; i < rank; i++)
        pm_emit_printf(e, "%s1", i ? ", " : "");
    pm_emit_printf(e, "] : %s into %s\n", src.type, dest.type);
    return r;
}

char *pm_emit_identity_map(char *buf, size_t n, int rank)
{
    size_t off = (size_t)snprintf(buf, n, "affine_map<(");
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < rank && off < n; i++)
            off += (size_t)snprintf(buf + off, n - off, "%sd%d", i ? ", " : "", i);
        if (off < n)
            off += (size_t)snprintf(buf + off, n - off, pass ? ")>" : ") -> (");
    }
    return buf;
}

char *pm_emit_flit(char *buf, size_t n, double v)
{
    snprintf(buf, n, "%.9e", v);
    return buf;
}
