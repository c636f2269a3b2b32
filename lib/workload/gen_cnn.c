/* pm_gen_cnn: CNN workloads as MLIR (linalg on tensors, NCHW, batch 1) with the real architecture of each
 * family. Activations are f32; weights are function arguments (fp16: f16 + arith.extf; int8/int4: integer tensors
 * plus per-output-channel f32 scales, dequantised by a linalg.generic before use). BatchNorm is folded into a
 * per-channel bias (its 2*C parameters are still counted, so params match the published models).
 *
 * Units: the network is a list [stem, block 1 .. block M, head]; opts->blocks = N > 0 emits the first N units
 * (N = 1: stem only; N = 2: stem + first block ...). Shapes, params and layer counts always cover the whole model. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "gen.h"
#include "kinds.h"

enum prec { P_FP16, P_INT8, P_INT4 };
enum act { A_NONE, A_RELU, A_RELU6, A_SILU, A_HSWISH, A_HSIG, A_SIGMOID, A_GELU };

/* An activation value: tensor<1 x c x h x w x f32>, SSA name %v<id> (id < 0: the input %x). */
typedef struct tv {
    int id;
    int c, h, w;
} tv;

typedef struct gen {
    FILE *body, *args;
    char *body_buf, *args_buf;
    size_t body_len, args_len;
    int next;          /* SSA counter */
    int nargs;
    enum prec prec;
    int blocks;        /* units to emit; 0: all */
    int unit;          /* current unit index */
    bool emit;
    tv out;            /* last value of the last emitted unit */
    bool have_out;
    int64_t params, weight_bytes;
    int layers_total, layers_emitted, linalg_ops;
} gen;

static void put(gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(gen *g, const char *fmt, ...)
{
    if (!g->emit)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(g->body, fmt, ap);
    va_end(ap);
}

static int fresh(gen *g) { return g->next++; }

/* Type strings live in small rotating buffers so several can appear in one printf. */
static const char *ty4(int c, int h, int w)
{
    static char buf[8][64];
    static int k;
    char *b = buf[k++ & 7];
    snprintf(b, 64, "tensor<1x%dx%dx%dxf32>", c, h, w);
    return b;
}
static const char *tyt(tv t) { return ty4(t.c, t.h, t.w); }
static const char *nm(tv t)
{
    static char buf[8][24];
    static int k;
    char *b = buf[k++ & 7];
    if (t.id < 0)
        snprintf(b, 24, "%%x");
    else
        snprintf(b, 24, "%%v%d", t.id);
    return b;
}

static const char *ident_map(int rank)
{
    static char buf[4][128];
    static int k;
    char *b = buf[k++ & 3];
    const char *d[] = {"d0", "d1", "d2", "d3", "d4"};
    int n = snprintf(b, 128, "affine_map<(");
    for (int i = 0; i < rank; i++)
        n += snprintf(b + n, 128 - n, "%s%s", i ? "," : "", d[i]);
    n += snprintf(b + n, 128 - n, ")->(");
    for (int i = 0; i < rank; i++)
        n += snprintf(b + n, 128 - n, "%s%s", i ? "," : "", d[i]);
    snprintf(b + n, 128 - n, ")>");
    return b;
}
static const char *par_iters(int rank)
{
    static const char *it[] = {"", "[\"parallel\"]", "[\"parallel\",\"parallel\"]",
                               "[\"parallel\",\"parallel\",\"parallel\"]",
                               "[\"parallel\",\"parallel\",\"parallel\",\"parallel\"]",
                               "[\"parallel\",\"parallel\",\"parallel\",\"parallel\",\"parallel\"]"};
    return it[rank];
}
#define CH_MAP "affine_map<(d0,d1,d2,d3)->(d1)>"
#define PIX_MAP "affine_map<(d0,d1,d2,d3)->(d0,d2,d3)>"

/* A new function argument of the given type; returns its number (%a<n>). */
static int new_arg(gen *g, const char *type)
{
    if (!g->emit)
        return -1;
    int n = g->nargs++;
    fprintf(g->args, ", %%a%d: %s", n, type);
    return n;
}

/* ---- weights ---- */

/* A weight of `rank` dims (outermost first); dims[0..cout_rank) index the per-output-channel scale (int8/int4).
 * Returns the SSA id of its f32 tensor. Counts its parameters and emitted bytes. */
static int weight_ex(gen *g, const int *dims, int rank, int cout_rank, bool scale_last)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= dims[i];
    g->params += n;
    if (!g->emit)
        return -1;
    char shape[96] = "";
    int len = 0;
    for (int i = 0; i < rank; i++)
        len += snprintf(shape + len, sizeof shape - len, "%dx", dims[i]);
    char sshape[64] = "";
    int slen = 0;
    int64_t nscale = 1;
    int s0 = scale_last ? rank - 1 : 0, s1 = scale_last ? rank : cout_rank;
    for (int i = s0; i < s1; i++) {
        slen += snprintf(sshape + slen, sizeof sshape - slen, "%dx", dims[i]);
        nscale *= dims[i];
    }
    const char *ety = g->prec == P_FP16 ? "f16" : g->prec == P_INT8 ? "i8" : "i4";
    char wt[128], ft[128], st[96];
    snprintf(wt, sizeof wt, "tensor<%s%s>", shape, ety);
    snprintf(ft, sizeof ft, "tensor<%sf32>", shape);
    snprintf(st, sizeof st, "tensor<%sf32>", sshape);
    int a = new_arg(g, wt);
    int e = fresh(g), r = fresh(g);
    put(g, "    %%v%d = tensor.empty() : %s\n", e, ft);
    if (g->prec == P_FP16) {
        g->weight_bytes += 2 * n;
        int x = fresh(g);
        put(g, "    %%v%d = linalg.generic {indexing_maps = [%s, %s], iterator_types = %s} ins(%%a%d : %s) "
               "outs(%%v%d : %s) {\n    ^bb0(%%i%d: f16, %%o%d: f32):\n      %%v%d = arith.extf %%i%d : f16 to f32\n"
               "      linalg.yield %%v%d : f32\n    } -> %s\n",
            r, ident_map(rank), ident_map(rank), par_iters(rank), a, wt, e, ft, r, r, x, r, x, ft);
    } else {
        g->weight_bytes += g->prec == P_INT8 ? n : (n + 1) / 2;
        g->weight_bytes += 4 * nscale;
        int s = new_arg(g, st);
        char smap[96];
        const char *d[] = {"d0", "d1", "d2", "d3", "d4"};
        int m = snprintf(smap, sizeof smap, "affine_map<(");
        for (int i = 0; i < rank; i++)
            m += snprintf(smap + m, sizeof smap - m, "%s%s", i ? "," : "", d[i]);
        m += snprintf(smap + m, sizeof smap - m, ")->(");
        for (int i = s0; i < s1; i++)
            m += snprintf(smap + m, sizeof smap - m, "%s%s", i > s0 ? "," : "", d[i]);
        snprintf(smap + m, sizeof smap - m, ")>");
        int x = fresh(g), y = fresh(g), z = fresh(g);
        put(g, "    %%v%d = linalg.generic {indexing_maps = [%s, %s, %s], iterator_types = %s} "
               "ins(%%a%d, %%a%d : %s, %s) outs(%%v%d : %s) {\n    ^bb0(%%i%d: %s, %%s%d: f32, %%o%d: f32):\n"
               "      %%v%d = arith.extsi %%i%d : %s to i32\n      %%v%d = arith.sitofp %%v%d : i32 to f32\n"
               "      %%v%d = arith.mulf %%v%d, %%s%d : f32\n      linalg.yield %%v%d : f32\n    } -> %s\n",
            r, ident_map(rank), smap, ident_map(rank), par_iters(rank), a, s, wt, st, e, ft, r, ety, r, r, x, r,
            ety, y, x, z, y, r, z, ft);
    }
    g->linalg_ops++;
    return r;
}

static int weight(gen *g, const int *dims, int rank, int cout_rank)
{
    return weight_ex(g, dims, rank, cout_rank, false);
}

/* A per-channel f32 vector argument (folded BN bias, LayerNorm gamma/beta, layer scale). `real_params` is what the
 * real model holds for it (2*c for a BatchNorm, c for a bias). */
static int vec_arg(gen *g, int c, int64_t real_params)
{
    g->params += real_params;
    if (!g->emit)
        return -1;
    char t[48];
    snprintf(t, sizeof t, "tensor<%dxf32>", c);
    g->weight_bytes += 4 * (int64_t)c;
    return new_arg(g, t);
}

/* ---- elementwise bodies ---- */

/* Emits the body lines computing act(in) from SSA name `in` (without %); returns the result's SSA id, or -1 when
 * act is A_NONE (use `in`). */
static int act_body(gen *g, enum act a, const char *in)
{
    int r, k1, k2, t1, t2, t3, t4, t5;
    switch (a) {
    case A_NONE:
        return -1;
    case A_RELU:
        k1 = fresh(g), r = fresh(g);
        put(g, "      %%v%d = arith.constant 0.0 : f32\n      %%v%d = arith.maximumf %%%s, %%v%d : f32\n", k1, r, in,
            k1);
        return r;
    case A_RELU6:
        k1 = fresh(g), k2 = fresh(g), t1 = fresh(g), r = fresh(g);
        put(g, "      %%v%d = arith.constant 0.0 : f32\n      %%v%d = arith.constant 6.0 : f32\n"
               "      %%v%d = arith.maximumf %%%s, %%v%d : f32\n      %%v%d = arith.minimumf %%v%d, %%v%d : f32\n",
            k1, k2, t1, in, k1, r, t1, k2);
        return r;
    case A_SIGMOID:
    case A_SILU:
        k1 = fresh(g), t1 = fresh(g), t2 = fresh(g), t3 = fresh(g), r = fresh(g);
        put(g, "      %%v%d = arith.constant 1.0 : f32\n      %%v%d = arith.negf %%%s : f32\n"
               "      %%v%d = math.exp %%v%d : f32\n      %%v%d = arith.addf %%v%d, %%v%d : f32\n",
            k1, t1, in, t2, t1, t3, t2, k1);
        if (a == A_SIGMOID)
            put(g, "      %%v%d = arith.divf %%v%d, %%v%d : f32\n", r, k1, t3);
        else
            put(g, "      %%v%d = arith.divf %%%s, %%v%d : f32\n", r, in, t3);
        return r;
    case A_HSIG:
    case A_HSWISH:
        k1 = fresh(g), k2 = fresh(g), t1 = fresh(g), t2 = fresh(g), t3 = fresh(g), t4 = fresh(g), t5 = fresh(g);
        put(g, "      %%v%d = arith.constant 3.0 : f32\n      %%v%d = arith.constant 0.0 : f32\n"
               "      %%v%d = arith.constant 6.0 : f32\n      %%v%d = arith.addf %%%s, %%v%d : f32\n"
               "      %%v%d = arith.maximumf %%v%d, %%v%d : f32\n      %%v%d = arith.minimumf %%v%d, %%v%d : f32\n",
            k1, k2, t1, t2, in, k1, t3, t2, k2, t4, t3, t1);
        if (a == A_HSIG) {
            put(g, "      %%v%d = arith.divf %%v%d, %%v%d : f32\n", t5, t4, t1);
            return t5;
        }
        r = fresh(g);
        put(g, "      %%v%d = arith.mulf %%%s, %%v%d : f32\n      %%v%d = arith.divf %%v%d, %%v%d : f32\n", t5, in,
            t4, r, t5, t1);
        return r;
    case A_GELU: {
        /* tanh approximation; tanh(u) = 1 - 2/(exp(2u)+1) so only math.exp is needed by the LLVM lowering. */
        int kc = fresh(g), k2g = fresh(g), c1 = fresh(g), c2 = fresh(g), c05 = fresh(g);
        int x2 = fresh(g), x3 = fresh(g), cx3 = fresh(g), u = fresh(g), u2 = fresh(g), e = fresh(g), e1 = fresh(g);
        int q = fresh(g), th = fresh(g), th1 = fresh(g), xt = fresh(g), p = fresh(g);
        put(g, "      %%v%d = arith.constant 0.044715 : f32\n      %%v%d = arith.constant 1.5957691 : f32\n"
               "      %%v%d = arith.constant 1.0 : f32\n      %%v%d = arith.constant 2.0 : f32\n"
               "      %%v%d = arith.constant 0.5 : f32\n",
            kc, k2g, c1, c2, c05); /* k2g = 2*sqrt(2/pi) */
        put(g, "      %%v%d = arith.mulf %%%s, %%%s : f32\n      %%v%d = arith.mulf %%v%d, %%%s : f32\n"
               "      %%v%d = arith.mulf %%v%d, %%v%d : f32\n      %%v%d = arith.addf %%%s, %%v%d : f32\n"
               "      %%v%d = arith.mulf %%v%d, %%v%d : f32\n      %%v%d = math.exp %%v%d : f32\n",
            x2, in, in, x3, x2, in, cx3, x3, kc, u, in, cx3, u2, u, k2g, e, u2);
        put(g, "      %%v%d = arith.addf %%v%d, %%v%d : f32\n      %%v%d = arith.divf %%v%d, %%v%d : f32\n"
               "      %%v%d = arith.subf %%v%d, %%v%d : f32\n      %%v%d = arith.addf %%v%d, %%v%d : f32\n"
               "      %%v%d = arith.mulf %%%s, %%v%d : f32\n      %%v%d = arith.mulf %%v%d, %%v%d : f32\n",
            e1, e, c1, q, c2, e1, th, c1, q, th1, c1, th, xt, in, th1, p, xt, c05);
        return p;
    }
    }
    return -1;
}

static tv empty4(gen *g, int c, int h, int w)
{
    tv t = {fresh(g), c, h, w};
    put(g, "    %s = tensor.empty() : %s\n", nm(t), tyt(t));
    return t;
}

static tv fill4(gen *g, int c, int h, int w, const char *value)
{
    tv e = empty4(g, c, h, w);
    tv t = {fresh(g), c, h, w};
    put(g, "    %s = linalg.fill ins(%s : f32) outs(%s : %s) -> %s\n", nm(t), value, nm(e), tyt(e), tyt(t));
    if (g->emit)
        g->linalg_ops++;
    return t;
}

/* y = act(x + bias[c]) (bias < 0 with emit: no bias). */
static tv bias_act(gen *g, tv x, int bias, enum act a)
{
    if (!g->emit)
        return x;
    if (bias < 0 && a == A_NONE)
        return x;
    tv e = empty4(g, x.c, x.h, x.w);
    tv y = {fresh(g), x.c, x.h, x.w};
    int i = fresh(g), b = fresh(g), o = fresh(g);
    if (bias >= 0) {
        int s = fresh(g);
        put(g, "    %s = linalg.generic {indexing_maps = [%s, %s, %s], iterator_types = %s} ins(%s, %%a%d : %s, "
               "tensor<%dxf32>) outs(%s : %s) {\n    ^bb0(%%v%d: f32, %%v%d: f32, %%v%d: f32):\n"
               "      %%v%d = arith.addf %%v%d, %%v%d : f32\n",
            nm(y), ident_map(4), CH_MAP, ident_map(4), par_iters(4), nm(x), bias, tyt(x), x.c, nm(e), tyt(e), i, b,
            o, s, i, b);
        char sn[16];
        snprintf(sn, sizeof sn, "v%d", s);
        int r = act_body(g, a, sn);
        put(g, "      linalg.yield %%v%d : f32\n    } -> %s\n", r < 0 ? s : r, tyt(y));
    } else {
        put(g, "    %s = linalg.generic {indexing_maps = [%s, %s], iterator_types = %s} ins(%s : %s) outs(%s : %s) "
               "{\n    ^bb0(%%v%d: f32, %%v%d: f32):\n",
            nm(y), ident_map(4), ident_map(4), par_iters(4), nm(x), tyt(x), nm(e), tyt(e), i, o);
        char sn[16];
        snprintf(sn, sizeof sn, "v%d", i);
        int r = act_body(g, a, sn);
        put(g, "      linalg.yield %%v%d : f32\n    } -> %s\n", r, tyt(y));
    }
    g->linalg_ops++;
    return y;
}

/* Inference BatchNorm (scale/shift per channel) + activation: used where BN precedes the conv (DenseNet). */
static tv bn_act(gen *g, tv x, enum act a)
{
    int sc = vec_arg(g, x.c, x.c), sh = vec_arg(g, x.c, x.c);
    if (!g->emit)
        return x;
    tv e = empty4(g, x.c, x.h, x.w);
    tv y = {fresh(g), x.c, x.h, x.w};
    int i = fresh(g), s = fresh(g), b = fresh(g), o = fresh(g), m = fresh(g), ad = fresh(g);
    put(g, "    %s = linalg.generic {indexing_maps = [%s, %s, %s, %s], iterator_types = %s} ins(%s, %%a%d, %%a%d : "
           "%s, tensor<%dxf32>, tensor<%dxf32>) outs(%s : %s) {\n    ^bb0(%%v%d: f32, %%v%d: f32, %%v%d: f32, "
           "%%v%d: f32):\n      %%v%d = arith.mulf %%v%d, %%v%d : f32\n      %%v%d = arith.addf %%v%d, %%v%d : f32\n",
        nm(y), ident_map(4), CH_MAP, CH_MAP, ident_map(4), par_iters(4), nm(x), sc, sh, tyt(x), x.c, x.c, nm(e),
        tyt(e), i, s, b, o, m, i, s, ad, m, b);
    char an[16];
    snprintf(an, sizeof an, "v%d", ad);
    int r = act_body(g, a, an);
    put(g, "      linalg.yield %%v%d : f32\n    } -> %s\n", r < 0 ? ad : r, tyt(y));
    g->linalg_ops++;
    return y;
}

/* y = act(a + b), or y = a * b when mul (b broadcast per channel when b is 1x1 spatial). */
static tv binary(gen *g, tv a, tv b, bool mul, enum act act)
{
    if (!g->emit)
        return a;
    bool bcast = b.h == 1 && b.w == 1 && (a.h != 1 || a.w != 1);
    int bv = b.id;
    char bty[64];
    snprintf(bty, sizeof bty, "%s", tyt(b));
    if (bcast) {
        bv = fresh(g);
        put(g, "    %%v%d = tensor.collapse_shape %s [[0, 1, 2, 3]] : %s into tensor<%dxf32>\n", bv, nm(b), tyt(b),
            b.c);
        snprintf(bty, sizeof bty, "tensor<%dxf32>", b.c);
    }
    tv e = empty4(g, a.c, a.h, a.w);
    tv y = {fresh(g), a.c, a.h, a.w};
    int i = fresh(g), j = fresh(g), o = fresh(g), s = fresh(g);
    char bn[24];
    snprintf(bn, sizeof bn, "%s", nm(b));
    if (bcast)
        snprintf(bn, sizeof bn, "%%v%d", bv);
    put(g, "    %s = linalg.generic {indexing_maps = [%s, %s, %s], iterator_types = %s} ins(%s, %s : %s, %s) "
           "outs(%s : %s) {\n    ^bb0(%%v%d: f32, %%v%d: f32, %%v%d: f32):\n      %%v%d = arith.%s %%v%d, %%v%d : f32\n",
        nm(y), ident_map(4), bcast ? CH_MAP : ident_map(4), ident_map(4), par_iters(4), nm(a), bn, tyt(a), bty,
        nm(e), tyt(e), i, j, o, s, mul ? "mulf" : "addf", i, j);
    char sn[16];
    snprintf(sn, sizeof sn, "v%d", s);
    int r = act_body(g, act, sn);
    put(g, "      linalg.yield %%v%d : f32\n    } -> %s\n", r < 0 ? s : r, tyt(y));
    g->linalg_ops++;
    return y;
}

static tv pad(gen *g, tv x, int p, const char *value)
{
    if (p == 0)
        return x;
    tv y = {fresh(g), x.c, x.h + 2 * p, x.w + 2 * p};
    int i0 = fresh(g), i1 = fresh(g), i2 = fresh(g), i3 = fresh(g);
    put(g, "    %s = tensor.pad %s low[0, 0, %d, %d] high[0, 0, %d, %d] {\n    ^bb0(%%v%d: index, %%v%d: index, "
           "%%v%d: index, %%v%d: index):\n      tensor.yield %s : f32\n    } : %s to %s\n",
        nm(y), nm(x), p, p, p, p, i0, i1, i2, i3, value, tyt(x), tyt(y));
    return y;
}

/* Convolution + bias (folded BN when bn, else a real bias when has_bias, else none) + activation.
 * groups == cin == cout: depthwise. */
static tv conv_ex(gen *g, tv x, int cout, int k, int stride, int p, int groups, bool bn, bool has_bias, enum act a)
{
    int oh = (x.h + 2 * p - k) / stride + 1, ow = (x.w + 2 * p - k) / stride + 1;
    g->layers_total++;
    if (g->emit)
        g->layers_emitted++;
    bool dw = groups > 1 && groups == x.c && groups == cout;
    int wv;
    if (dw) {
        int d[3] = {cout, k, k};
        wv = weight(g, d, 3, 1);
    } else if (groups > 1) {
        int d[5] = {groups, cout / groups, x.c / groups, k, k};
        wv = weight(g, d, 5, 2);
    } else {
        int d[4] = {cout, x.c, k, k};
        wv = weight(g, d, 4, 1);
    }
    int bias = -1;
    if (bn)
        bias = vec_arg(g, cout, 2 * (int64_t)cout);
    else if (has_bias)
        bias = vec_arg(g, cout, cout);
    tv r = {0, cout, oh, ow};
    if (!g->emit)
        return r;
    tv xp = pad(g, x, p, "%zero");
    char attrs[128];
    snprintf(attrs, sizeof attrs, "{dilations = dense<1> : tensor<2xi64>, strides = dense<%d> : tensor<2xi64>}",
        stride);
    if (dw) {
        tv f = fill4(g, cout, oh, ow, "%zero");
        r.id = fresh(g);
        put(g, "    %s = linalg.depthwise_conv_2d_nchw_chw %s ins(%s, %%v%d : %s, tensor<%dx%dx%dxf32>) outs(%s : %s) "
               "-> %s\n",
            nm(r), attrs, nm(xp), wv, tyt(xp), cout, k, k, nm(f), tyt(f), tyt(r));
    } else if (groups > 1) {
        int G = groups, cg = x.c / G, fg = cout / G;
        int xe = fresh(g), e = fresh(g), f = fresh(g), cv = fresh(g);
        put(g, "    %%v%d = tensor.expand_shape %s [[0], [1, 2], [3], [4]] output_shape [1, %d, %d, %d, %d] : %s "
               "into tensor<1x%dx%dx%dx%dxf32>\n",
            xe, nm(xp), G, cg, xp.h, xp.w, tyt(xp), G, cg, xp.h, xp.w);
        put(g, "    %%v%d = tensor.empty() : tensor<1x%dx%dx%dx%dxf32>\n", e, G, fg, oh, ow);
        put(g, "    %%v%d = linalg.fill ins(%%zero : f32) outs(%%v%d : tensor<1x%dx%dx%dx%dxf32>) -> "
               "tensor<1x%dx%dx%dx%dxf32>\n",
            f, e, G, fg, oh, ow, G, fg, oh, ow);
        put(g, "    %%v%d = linalg.conv_2d_ngchw_gfchw %s ins(%%v%d, %%v%d : tensor<1x%dx%dx%dx%dxf32>, "
               "tensor<%dx%dx%dx%dx%dxf32>) outs(%%v%d : tensor<1x%dx%dx%dx%dxf32>) -> tensor<1x%dx%dx%dx%dxf32>\n",
            cv, attrs, xe, wv, G, cg, xp.h, xp.w, G, fg, cg, k, k, f, G, fg, oh, ow, G, fg, oh, ow);
        g->linalg_ops++;
        r.id = fresh(g);
        put(g, "    %s = tensor.collapse_shape %%v%d [[0], [1, 2], [3], [4]] : tensor<1x%dx%dx%dx%dxf32> into %s\n",
            nm(r), cv, G, fg, oh, ow, tyt(r));
    } else {
        tv f = fill4(g, cout, oh, ow, "%zero");
        r.id = fresh(g);
        put(g, "    %s = linalg.conv_2d_nchw_fchw %s ins(%s, %%v%d : %s, tensor<%dx%dx%dx%dxf32>) outs(%s : %s) -> %s\n",
            nm(r), attrs, nm(xp), wv, tyt(xp), cout, x.c, k, k, nm(f), tyt(f), tyt(r));
    }
    g->linalg_ops++;
    return bias_act(g, r, bias, a);
}

/* The common case: conv + folded BN + activation, "same" padding. */
static tv conv_bn(gen *g, tv x, int cout, int k, int stride, enum act a)
{
    return conv_ex(g, x, cout, k, stride, k / 2, 1, true, false, a);
}

static tv pool(gen *g, tv x, int k, int stride, int p, bool max)
{
    int oh = (x.h + 2 * p - k) / stride + 1, ow = (x.w + 2 * p - k) / stride + 1;
    tv r = {0, x.c, oh, ow};
    if (!g->emit)
        return r;
    tv xp = pad(g, x, p, max ? "%ninf" : "%zero");
    tv f = fill4(g, x.c, oh, ow, max ? "%ninf" : "%zero");
    int win = fresh(g);
    put(g, "    %%v%d = tensor.empty() : tensor<%dx%dxf32>\n", win, k, k);
    r.id = fresh(g);
    put(g, "    %s = linalg.pooling_nchw_%s {dilations = dense<1> : tensor<2xi64>, strides = dense<%d> : "
           "tensor<2xi64>} ins(%s, %%v%d : %s, tensor<%dx%dxf32>) outs(%s : %s) -> %s\n",
        nm(r), max ? "max" : "sum", stride, nm(xp), win, tyt(xp), k, k, nm(f), tyt(f), tyt(r));
    g->linalg_ops++;
    if (max)
        return r;
    /* average = sum / window (count_include_pad semantics) */
    tv e = empty4(g, r.c, r.h, r.w);
    tv y = {fresh(g), r.c, r.h, r.w};
    int i = fresh(g), o = fresh(g), kk = fresh(g), d = fresh(g);
    put(g, "    %s = linalg.generic {indexing_maps = [%s, %s], iterator_types = %s} ins(%s : %s) outs(%s : %s) {\n"
           "    ^bb0(%%v%d: f32, %%v%d: f32):\n      %%v%d = arith.constant %d.0 : f32\n"
           "      %%v%d = arith.divf %%v%d, %%v%d : f32\n      linalg.yield %%v%d : f32\n    } -> %s\n",
        nm(y), ident_map(4), ident_map(4), par_iters(4), nm(r), tyt(r), nm(e), tyt(e), i, o, kk, k * k, d, i, kk, d,
        tyt(y));
    g->linalg_ops++;
    return y;
}

static tv global_avg(gen *g, tv x)
{
    if (x.h != x.w)
        return x; /* cannot happen: inputs are square */
    return pool(g, x, x.h, 1, 0, false);
}

/* LayerNorm over channels at every pixel (ConvNeXt's channels-first LayerNorm), eps 1e-6, gamma/beta. */
static tv layer_norm(gen *g, tv x)
{
    int gm = vec_arg(g, x.c, x.c), bt = vec_arg(g, x.c, x.c);
    if (!g->emit)
        return x;
    char pt[64];
    snprintf(pt, sizeof pt, "tensor<1x%dx%dxf32>", x.h, x.w);
    const char *red = "[\"parallel\",\"reduction\",\"parallel\",\"parallel\"]";
    int e = fresh(g), z = fresh(g), sum = fresh(g), sq = fresh(g);
    put(g, "    %%v%d = tensor.empty() : %s\n    %%v%d = linalg.fill ins(%%zero : f32) outs(%%v%d : %s) -> %s\n", e,
        pt, z, e, pt, pt);
    int i = fresh(g), o = fresh(g), s = fresh(g);
    put(g, "    %%v%d = linalg.generic {indexing_maps = [%s, %s], iterator_types = %s} ins(%s : %s) outs(%%v%d : %s) "
           "{\n    ^bb0(%%v%d: f32, %%v%d: f32):\n      %%v%d = arith.addf %%v%d, %%v%d : f32\n"
           "      linalg.yield %%v%d : f32\n    } -> %s\n",
        sum, ident_map(4), PIX_MAP, red, nm(x), tyt(x), z, pt, i, o, s, o, i, s, pt);
    int i2 = fresh(g), m2 = fresh(g), o2 = fresh(g), ic = fresh(g), mu = fresh(g), d = fresh(g), dd = fresh(g),
        acc = fresh(g);
    put(g, "    %%v%d = linalg.generic {indexing_maps = [%s, %s, %s], iterator_types = %s} ins(%s, %%v%d : %s, %s) "
           "outs(%%v%d : %s) {\n    ^bb0(%%v%d: f32, %%v%d: f32, %%v%d: f32):\n"
           "      %%v%d = arith.constant %.9g : f32\n      %%v%d = arith.mulf %%v%d, %%v%d : f32\n"
           "      %%v%d = arith.subf %%v%d, %%v%d : f32\n      %%v%d = arith.mulf %%v%d, %%v%d : f32\n"
           "      %%v%d = arith.addf %%v%d, %%v%d : f32\n      linalg.yield %%v%d : f32\n    } -> %s\n",
        sq, ident_map(4), PIX_MAP, PIX_MAP, red, nm(x), sum, tyt(x), pt, z, pt, i2, m2, o2, ic, 1.0 / x.c, mu, m2, ic,
        d, i2, mu, dd, d, d, acc, o2, dd, acc, pt);
    tv ye = empty4(g, x.c, x.h, x.w);
    tv y = {fresh(g), x.c, x.h, x.w};
    int xi = fresh(g), si = fresh(g), qi = fresh(g), gi = fresh(g), bi = fresh(g), oi = fresh(g);
    int icn = fresh(g), eps = fresh(g), m = fresh(g), v = fresh(g), ve = fresh(g), sd = fresh(g), c = fresh(g),
        nn = fresh(g), sc = fresh(g), res = fresh(g);
    put(g, "    %s = linalg.generic {indexing_maps = [%s, %s, %s, %s, %s, %s], iterator_types = %s} "
           "ins(%s, %%v%d, %%v%d, %%a%d, %%a%d : %s, %s, %s, tensor<%dxf32>, tensor<%dxf32>) outs(%s : %s) {\n"
           "    ^bb0(%%v%d: f32, %%v%d: f32, %%v%d: f32, %%v%d: f32, %%v%d: f32, %%v%d: f32):\n"
           "      %%v%d = arith.constant %.9g : f32\n      %%v%d = arith.constant 1.0e-06 : f32\n"
           "      %%v%d = arith.mulf %%v%d, %%v%d : f32\n      %%v%d = arith.mulf %%v%d, %%v%d : f32\n"
           "      %%v%d = arith.addf %%v%d, %%v%d : f32\n      %%v%d = math.sqrt %%v%d : f32\n"
           "      %%v%d = arith.subf %%v%d, %%v%d : f32\n      %%v%d = arith.divf %%v%d, %%v%d : f32\n"
           "      %%v%d = arith.mulf %%v%d, %%v%d : f32\n      %%v%d = arith.addf %%v%d, %%v%d : f32\n"
           "      linalg.yield %%v%d : f32\n    } -> %s\n",
        nm(y), ident_map(4), PIX_MAP, PIX_MAP, CH_MAP, CH_MAP, ident_map(4), par_iters(4), nm(x), sum, sq, gm, bt,
        tyt(x), pt, pt, x.c, x.c, nm(ye), tyt(ye), xi, si, qi, gi, bi, oi, icn, 1.0 / x.c, eps, m, si, icn, v, qi,
        icn, ve, v, eps, sd, ve, c, xi, m, nn, c, sd, sc, nn, gi, res, sc, bi, res, tyt(y));
    g->linalg_ops += 4;
    return y;
}

/* y = x * gamma[c] (ConvNeXt layer scale). */
static tv layer_scale(gen *g, tv x)
{
    int gm = vec_arg(g, x.c, x.c);
    if (!g->emit)
        return x;
    tv e = empty4(g, x.c, x.h, x.w);
    tv y = {fresh(g), x.c, x.h, x.w};
    int i = fresh(g), b = fresh(g), o = fresh(g), s = fresh(g);
    put(g, "    %s = linalg.generic {indexing_maps = [%s, %s, %s], iterator_types = %s} ins(%s, %%a%d : %s, "
           "tensor<%dxf32>) outs(%s : %s) {\n    ^bb0(%%v%d: f32, %%v%d: f32, %%v%d: f32):\n"
           "      %%v%d = arith.mulf %%v%d, %%v%d : f32\n      linalg.yield %%v%d : f32\n    } -> %s\n",
        nm(y), ident_map(4), CH_MAP, ident_map(4), par_iters(4), nm(x), gm, tyt(x), x.c, nm(e), tyt(e), i, b, o, s, i,
        b, s, tyt(y));
    g->linalg_ops++;
    return y;
}

/* Channel concatenation by tensor.insert_slice into a tensor.empty. */
static tv concat(gen *g, const tv *parts, int n)
{
    int c = 0;
    for (int i = 0; i < n; i++)
        c += parts[i].c;
    tv r = {0, c, parts[0].h, parts[0].w};
    if (!g->emit)
        return r;
    tv cur = empty4(g, c, r.h, r.w);
    int off = 0;
    for (int i = 0; i < n; i++) {
        tv nx = {fresh(g), c, r.h, r.w};
        put(g, "    %s = tensor.insert_slice %s into %s[0, %d, 0, 0] [1, %d, %d, %d] [1, 1, 1, 1] : %s into %s\n",
            nm(nx), nm(parts[i]), nm(cur), off, parts[i].c, r.h, r.w, tyt(parts[i]), tyt(nx));
        off += parts[i].c;
        cur = nx;
    }
    return cur;
}

/* Classifier: (optional LayerNorm), global average pool, flatten, linear with bias. Returns 1 x n x 1 x 1. */
static tv classifier(gen *g, tv x, int n, bool pool_first)
{
    tv p = pool_first ? global_avg(g, x) : x;
    g->layers_total++;
    if (g->emit)
        g->layers_emitted++;
    int d[2] = {p.c, n};
    int wv = weight_ex(g, d, 2, 1, true); /* K x N: the per-output-channel scale indexes N */
    int bias = vec_arg(g, n, n);
    tv r = {0, n, 1, 1};
    if (!g->emit)
        return r;
    int fl = fresh(g), e = fresh(g), f = fresh(g), mm = fresh(g);
    put(g, "    %%v%d = tensor.collapse_shape %s [[0], [1, 2, 3]] : %s into tensor<1x%dxf32>\n", fl, nm(p), tyt(p),
        p.c);
    put(g, "    %%v%d = tensor.empty() : tensor<1x%dxf32>\n    %%v%d = linalg.fill ins(%%zero : f32) outs(%%v%d : "
           "tensor<1x%dxf32>) -> tensor<1x%dxf32>\n",
        e, n, f, e, n, n);
    put(g, "    %%v%d = linalg.matmul ins(%%v%d, %%v%d : tensor<1x%dxf32>, tensor<%dx%dxf32>) outs(%%v%d : "
           "tensor<1x%dxf32>) -> tensor<1x%dxf32>\n",
        mm, fl, wv, p.c, p.c, n, f, n, n);
    g->linalg_ops += 2;
    r.id = fresh(g);
    put(g, "    %s = tensor.expand_shape %%v%d [[0], [1, 2, 3]] output_shape [1, %d, 1, 1] : tensor<1x%dxf32> into "
           "%s\n",
        nm(r), mm, n, n, tyt(r));
    return bias_act(g, r, bias, A_NONE);
}

/* ---- units ---- */

static void begin_unit(gen *g)
{
    g->emit = g->blocks <= 0 || g->unit < g->blocks;
}
static void end_unit(gen *g, tv x)
{
    if (g->emit) {
        g->out = x;
        g->have_out = true;
    }
    g->unit++;
}

/* ---- families ---- */

static tv resnet(gen *g, tv x, int depth)
{
    static const int d18[] = {2, 2, 2, 2}, d34[] = {3, 4, 6, 3}, d50[] = {3, 4, 6, 3}, d101[] = {3, 4, 23, 3},
                     d152[] = {3, 8, 36, 3};
    const int *d = depth == 18 ? d18 : depth == 34 ? d34 : depth == 50 ? d50 : depth == 101 ? d101 : d152;
    bool bottleneck = depth >= 50;
    int expansion = bottleneck ? 4 : 1;
    begin_unit(g);
    x = conv_bn(g, x, 64, 7, 2, A_RELU);
    x = pool(g, x, 3, 2, 1, true);
    end_unit(g, x);
    for (int s = 0; s < 4; s++) {
        int width = 64 << s;
        for (int b = 0; b < d[s]; b++) {
            begin_unit(g);
            int stride = (b == 0 && s > 0) ? 2 : 1;
            tv sc = x;
            if (b == 0 && (stride != 1 || x.c != width * expansion))
                sc = conv_bn(g, x, width * expansion, 1, stride, A_NONE);
            tv y;
            if (bottleneck) {
                y = conv_bn(g, x, width, 1, 1, A_RELU);
                y = conv_bn(g, y, width, 3, stride, A_RELU);
                y = conv_bn(g, y, width * 4, 1, 1, A_NONE);
            } else {
                y = conv_bn(g, x, width, 3, stride, A_RELU);
                y = conv_bn(g, y, width, 3, 1, A_NONE);
            }
            x = binary(g, y, sc, false, A_RELU);
            if (!g->emit)
                x = y;
            end_unit(g, x);
        }
    }
    begin_unit(g);
    x = classifier(g, x, 1000, true);
    end_unit(g, x);
    return x;
}

/* Squeeze-excitation: global pool, 1x1 reduce (bias) + act, 1x1 expand (bias) + gate, multiply. */
static tv squeeze_excite(gen *g, tv x, int squeeze, enum act a, enum act gate)
{
    tv p = global_avg(g, x);
    tv s = conv_ex(g, p, squeeze, 1, 1, 0, 1, false, true, a);
    s = conv_ex(g, s, x.c, 1, 1, 0, 1, false, true, gate);
    tv y = binary(g, x, s, true, A_NONE);
    return g->emit ? y : x;
}

/* MBConv / bneck: optional 1x1 expand, depthwise kxk, optional SE, 1x1 project, residual when shapes match. */
static tv inverted_residual(gen *g, tv x, int expanded, int cout, int k, int stride, int se_squeeze, enum act a,
                            enum act se_act, enum act se_gate)
{
    tv in = x;
    tv y = x;
    if (expanded != x.c)
        y = conv_bn(g, y, expanded, 1, 1, a);
    y = conv_ex(g, y, expanded, k, stride, k / 2, expanded, true, false, a);
    if (se_squeeze > 0)
        y = squeeze_excite(g, y, se_squeeze, se_act, se_gate);
    y = conv_bn(g, y, cout, 1, 1, A_NONE);
    if (stride == 1 && in.c == cout) {
        tv r = binary(g, y, in, false, A_NONE);
        if (g->emit)
            y = r;
    }
    return y;
}

static tv efficientnet_b0(gen *g, tv x)
{
    static const int t[7][5] = {/* expand, kernel, stride, out, repeats */
                                {1, 3, 1, 16, 1}, {6, 3, 2, 24, 2},  {6, 5, 2, 40, 2},  {6, 3, 2, 80, 3},
                                {6, 5, 1, 112, 3}, {6, 5, 2, 192, 4}, {6, 3, 1, 320, 1}};
    begin_unit(g);
    x = conv_bn(g, x, 32, 3, 2, A_SILU);
    end_unit(g, x);
    for (int s = 0; s < 7; s++)
        for (int r = 0; r < t[s][4]; r++) {
            begin_unit(g);
            int squeeze = x.c / 4 > 1 ? x.c / 4 : 1;
            x = inverted_residual(g, x, x.c * t[s][0], t[s][3], t[s][1], r == 0 ? t[s][2] : 1, squeeze, A_SILU,
                A_SILU, A_SIGMOID);
            end_unit(g, x);
        }
    begin_unit(g);
    x = conv_bn(g, x, 1280, 1, 1, A_SILU);
    x = classifier(g, x, 1000, true);
    end_unit(g, x);
    return x;
}

static int make_divisible(int v, int d)
{
    int n = (v + d / 2) / d * d;
    if (n < d)
        n = d;
    if (n * 10 < v * 9)
        n += d;
    return n;
}

static tv mobilenetv3_large(gen *g, tv x)
{
    static const int t[15][6] = {/* kernel, expanded, out, se, hswish, stride */
                                 {3, 16, 16, 0, 0, 1},   {3, 64, 24, 0, 0, 2},   {3, 72, 24, 0, 0, 1},
                                 {5, 72, 40, 1, 0, 2},   {5, 120, 40, 1, 0, 1},  {5, 120, 40, 1, 0, 1},
                                 {3, 240, 80, 0, 1, 2},  {3, 200, 80, 0, 1, 1},  {3, 184, 80, 0, 1, 1},
                                 {3, 184, 80, 0, 1, 1},  {3, 480, 112, 1, 1, 1}, {3, 672, 112, 1, 1, 1},
                                 {5, 672, 160, 1, 1, 2}, {5, 960, 160, 1, 1, 1}, {5, 960, 160, 1, 1, 1}};
    begin_unit(g);
    x = conv_bn(g, x, 16, 3, 2, A_HSWISH);
    end_unit(g, x);
    for (int i = 0; i < 15; i++) {
        begin_unit(g);
        int sq = t[i][3] ? make_divisible(t[i][1] / 4, 8) : 0;
        x = inverted_residual(g, x, t[i][1], t[i][2], t[i][0], t[i][5], sq, t[i][4] ? A_HSWISH : A_RELU, A_RELU,
            A_HSIG);
        end_unit(g, x);
    }
    begin_unit(g);
    x = conv_bn(g, x, 960, 1, 1, A_HSWISH);
    x = global_avg(g, x);
    /* 960 -> 1280 linear + hard-swish, then 1280 -> 1000: both as 1x1 convs with bias on the pooled 1x1 map */
    x = conv_ex(g, x, 1280, 1, 1, 0, 1, false, true, A_HSWISH);
    x = classifier(g, x, 1000, false);
    end_unit(g, x);
    return x;
}

static tv densenet121(gen *g, tv x)
{
    static const int layers[4] = {6, 12, 24, 16};
    const int growth = 32, bn_size = 4;
    begin_unit(g);
    x = conv_bn(g, x, 64, 7, 2, A_RELU);
    x = pool(g, x, 3, 2, 1, true);
    end_unit(g, x);
    for (int b = 0; b < 4; b++) {
        for (int l = 0; l < layers[b]; l++) {
            begin_unit(g);
            tv y = bn_act(g, x, A_RELU);
            /* conv1x1 followed by BN2 + ReLU: BN2 folds into its bias */
            y = conv_ex(g, y, bn_size * growth, 1, 1, 0, 1, true, false, A_RELU);
            y = conv_ex(g, y, growth, 3, 1, 1, 1, false, false, A_NONE);
            tv parts[2] = {x, y};
            x = concat(g, parts, 2);
            end_unit(g, x);
        }
        if (b < 3) {
            begin_unit(g);
            x = bn_act(g, x, A_RELU);
            x = conv_ex(g, x, x.c / 2, 1, 1, 0, 1, false, false, A_NONE);
            x = pool(g, x, 2, 2, 0, false);
            end_unit(g, x);
        }
    }
    begin_unit(g);
    x = bn_act(g, x, A_RELU);
    x = classifier(g, x, 1000, true);
    end_unit(g, x);
    return x;
}

/* RegNetX-400MF: widths 32/64/160/384, depths 1/2/7/12, group width 16, bottleneck ratio 1, stem 32. */
static tv regnetx_400mf(gen *g, tv x)
{
    static const int widths[4] = {32, 64, 160, 384}, depths[4] = {1, 2, 7, 12};
    const int group_width = 16;
    begin_unit(g);
    x = conv_bn(g, x, 32, 3, 2, A_RELU);
    end_unit(g, x);
    for (int s = 0; s < 4; s++)
        for (int b = 0; b < depths[s]; b++) {
            begin_unit(g);
            int w = widths[s], stride = b == 0 ? 2 : 1;
            tv sc = x;
            if (stride != 1 || x.c != w)
                sc = conv_bn(g, x, w, 1, stride, A_NONE);
            tv y = conv_bn(g, x, w, 1, 1, A_RELU);
            y = conv_ex(g, y, w, 3, stride, 1, w / group_width, true, false, A_RELU);
            y = conv_bn(g, y, w, 1, 1, A_NONE);
            tv r = binary(g, y, sc, false, A_RELU);
            x = g->emit ? r : y;
            end_unit(g, x);
        }
    begin_unit(g);
    x = classifier(g, x, 1000, true);
    end_unit(g, x);
    return x;
}

/* GoogLeNet (Inception v1, Szegedy et al. 2014) with BN convs as in torchvision, but the paper's 5x5 kernels in
 * the third branch (torchvision uses 3x3 there). */
static tv googlenet(gen *g, tv x)
{
    static const int t[9][6] = {/* 1x1, 3x3 reduce, 3x3, 5x5 reduce, 5x5, pool proj */
                                {64, 96, 128, 16, 32, 32},     {128, 128, 192, 32, 96, 64},
                                {192, 96, 208, 16, 48, 64},    {160, 112, 224, 24, 64, 64},
                                {128, 128, 256, 24, 64, 64},   {112, 144, 288, 32, 64, 64},
                                {256, 160, 320, 32, 128, 128}, {256, 160, 320, 32, 128, 128},
                                {384, 192, 384, 48, 128, 128}};
    begin_unit(g);
    x = conv_bn(g, x, 64, 7, 2, A_RELU);
    x = pool(g, x, 3, 2, 1, true);
    x = conv_bn(g, x, 64, 1, 1, A_RELU);
    x = conv_bn(g, x, 192, 3, 1, A_RELU);
    x = pool(g, x, 3, 2, 1, true);
    end_unit(g, x);
    for (int i = 0; i < 9; i++) {
        begin_unit(g);
        if (i == 2 || i == 7)
            x = pool(g, x, 3, 2, 1, true);
        tv b[4];
        b[0] = conv_bn(g, x, t[i][0], 1, 1, A_RELU);
        b[1] = conv_bn(g, conv_bn(g, x, t[i][1], 1, 1, A_RELU), t[i][2], 3, 1, A_RELU);
        b[2] = conv_bn(g, conv_bn(g, x, t[i][3], 1, 1, A_RELU), t[i][4], 5, 1, A_RELU);
        b[3] = conv_bn(g, pool(g, x, 3, 1, 1, true), t[i][5], 1, 1, A_RELU);
        x = concat(g, b, 4);
        end_unit(g, x);
    }
    begin_unit(g);
    x = classifier(g, x, 1000, true);
    end_unit(g, x);
    return x;
}

/* ConvNeXt-Tiny: depths 3/3/9/3, dims 96/192/384/768, 7x7 depthwise, LayerNorm, 4x MLP with GELU, layer scale. */
static tv convnext_tiny(gen *g, tv x)
{
    static const int depths[4] = {3, 3, 9, 3}, dims[4] = {96, 192, 384, 768};
    begin_unit(g);
    x = conv_ex(g, x, 96, 4, 4, 0, 1, false, true, A_NONE);
    x = layer_norm(g, x);
    end_unit(g, x);
    for (int s = 0; s < 4; s++)
        for (int b = 0; b < depths[s]; b++) {
            begin_unit(g);
            int d = dims[s];
            if (b == 0 && s > 0) {
                x = layer_norm(g, x);
                x = conv_ex(g, x, d, 2, 2, 0, 1, false, true, A_NONE);
            }
            tv y = conv_ex(g, x, d, 7, 1, 3, d, false, true, A_NONE);
            y = layer_norm(g, y);
            y = conv_ex(g, y, 4 * d, 1, 1, 0, 1, false, true, A_GELU);
            y = conv_ex(g, y, d, 1, 1, 0, 1, false, true, A_NONE);
            y = layer_scale(g, y);
            tv r = binary(g, y, x, false, A_NONE);
            x = g->emit ? r : y;
            end_unit(g, x);
        }
    begin_unit(g);
    x = global_avg(g, x);
    x = layer_norm(g, x);
    x = classifier(g, x, 1000, false);
    end_unit(g, x);
    return x;
}

/* ---- public API ---- */

static const char *const families[] = {"resnet18", "resnet34",    "resnet50",  "resnet101", "resnet152",
                                       "efficientnet_b0", "mobilenetv3", "densenet121", "regnet", "inception",
                                       "convnext", NULL};

const char *const *pm_gen_cnn_families(void) { return families; }

static void list_families(char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; families[i] && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", families[i]);
}

int pm_gen_cnn_check_resolution(int resolution, pm_err *err)
{
    if (resolution < 32 || resolution > 1024 || resolution % 32 != 0)
        return pm_err_set(err, PM_ERR_USAGE, "resolution %d invalid (valid: a multiple of 32 from 32 to 1024)",
                          resolution);
    return PM_OK;
}

int pm_gen_cnn(const pm_workload *opts, FILE *out, pm_gen_info *info, pm_err *err)
{
    char list[256];
    if (!opts || !opts->family)
        return pm_err_set(err, PM_ERR_USAGE, "cnn family missing");
    int fam = -1;
    for (int i = 0; families[i]; i++)
        if (strcmp(opts->family, families[i]) == 0)
            fam = i;
    if (fam < 0) {
        list_families(list, sizeof list);
        return pm_err_set(err, PM_ERR_USAGE, "unknown cnn family '%s' (valid: %s)", opts->family, list);
    }
    if (pm_gen_cnn_check_resolution(opts->resolution, err))
        return PM_ERR_USAGE;
    const char *p = opts->precision ? opts->precision : "fp16";
    enum prec prec;
    if (strcmp(p, "fp16") == 0)
        prec = P_FP16;
    else if (strcmp(p, "int8") == 0)
        prec = P_INT8;
    else if (strcmp(p, "int4") == 0)
        prec = P_INT4;
    else
        return pm_err_set(err, PM_ERR_USAGE, "unknown precision '%s' (valid: fp16, int8, int4)", p);
    if (opts->blocks < 0)
        return pm_err_set(err, PM_ERR_USAGE, "blocks %d invalid (valid: 0 for all, or a positive count)",
            opts->blocks);
    if (!out)
        return pm_err_set(err, PM_ERR_USAGE, "no output stream");

    int rc = PM_OK;
    gen g;
    memset(&g, 0, sizeof g);
    g.prec = prec;
    g.blocks = opts->blocks;
    g.body = open_memstream(&g.body_buf, &g.body_len);
    g.args = open_memstream(&g.args_buf, &g.args_len);
    if (!g.body || !g.args) {
        rc = pm_err_errno(err, PM_ERR_NOMEM, "open_memstream");
        goto cleanup;
    }
    tv x = {-1, 3, opts->resolution, opts->resolution};
    switch (fam) {
    case 0: resnet(&g, x, 18); break;
    case 1: resnet(&g, x, 34); break;
    case 2: resnet(&g, x, 50); break;
    case 3: resnet(&g, x, 101); break;
    case 4: resnet(&g, x, 152); break;
    case 5: efficientnet_b0(&g, x); break;
    case 6: mobilenetv3_large(&g, x); break;
    case 7: densenet121(&g, x); break;
    case 8: regnetx_400mf(&g, x); break;
    case 9: googlenet(&g, x); break;
    default: convnext_tiny(&g, x); break;
    }
    if (fflush(g.body) != 0 || fflush(g.args) != 0) {
        rc = pm_err_errno(err, PM_ERR_NOMEM, "memstream");
        goto cleanup;
    }
    tv res = g.out;
    fprintf(out, "// passmap gen cnn: %s, %dx%d, %s, units %d of %d\n", opts->family, opts->resolution,
        opts->resolution, p, g.blocks > 0 && g.blocks < g.unit ? g.blocks : g.unit, g.unit);
    fprintf(out, "module {\n  func.func @forward(%%x: %s%s) -> %s {\n", ty4(3, opts->resolution, opts->resolution),
        g.args_buf, tyt(res));
    fprintf(out, "    %%zero = arith.constant 0.0 : f32\n    %%ninf = arith.constant 0xFF800000 : f32\n");
    fwrite(g.body_buf, 1, g.body_len, out);
    fprintf(out, "    return %s : %s\n  }\n}\n", nm(res), tyt(res));
    if (ferror(out)) {
        rc = pm_err_errno(err, PM_ERR_IO, "writing the cnn module");
        goto cleanup;
    }
    if (info) {
        info->params = g.params;
        info->weight_bytes = g.weight_bytes;
        info->layers_total = g.layers_total;
        info->layers_emitted = g.layers_emitted;
        info->linalg_ops = g.linalg_ops;
        info->functions = 1;
    }
cleanup:
    if (g.body)
        fclose(g.body);
    if (g.args)
        fclose(g.args);
    free(g.body_buf);
    free(g.args_buf);
    return rc;
}

/* ---- the kind's row (kinds.h): what the spec, the back ends and the report know of a CNN ---- */

/* CNN cost follows the pixel count. */
static double grow_cnn(const pm_workload *w, int tile)
{
    return w->resolution > 224 ? pow(w->resolution / 224.0, 2) : 1;
}

/* Blocks are not cut: a CNN's depth is its architecture (the resolution is what the check reduces). */
static char *section_cnn(const pm_workload *w, const char *name, int size_cap, int depth_cap)
{
    char *s = NULL;
    return asprintf(&s, "[cnn %s]\nfamilies = %s\nresolutions = %d\nprecisions = %s\nblocks = %d\n", name,
                    w->family, pm_kind_capped(w->resolution, size_cap), w->precision, w->blocks) < 0 ? NULL : s;
}

/* [cnn NAME] families, resolutions, precisions, blocks: a config per family, resolution and precision. */
static int expand_cnn(const pm_kind_reader *r, pm_err *err)
{
    char fwhat[192], rwhat[192], pwhat[192], names[512];
    int nf, nr, np, blocks, rc;
    const char *const *fams = r->list(r->user, "families", &nf, fwhat, sizeof fwhat);
    const char *const *resolutions = r->list(r->user, "resolutions", &nr, rwhat, sizeof rwhat);
    const char *const *precisions = r->list(r->user, "precisions", &np, pwhat, sizeof pwhat);
    if (nf < 0 || nr < 0 || np < 0)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if ((rc = r->number(r->user, "blocks", 0, 1000, 0, &blocks, err)))
        return rc;
    if (!nf || !nr || !np)
        return pm_err_set(err, PM_ERR_USAGE, "[%s] needs families, resolutions and precisions", r->section);
    if ((rc = r->check_size(r->user, (long long)nf * nr * np, err)))
        return rc;
    for (int f = 0; f < nf; f++) {
        if (!pm_kind_in_list(fams[f], pm_gen_cnn_families())) {
            pm_kind_join(pm_gen_cnn_families(), names, sizeof names);
            return pm_err_set(err, PM_ERR_USAGE, "%s: unknown CNN family '%s' (%s)", fwhat, fams[f], names);
        }
        for (int x = 0; x < nr; x++) {
            int res;
            /* in the generator's own terms, so a spec never plans a config it cannot emit */
            if ((rc = pm_kind_parse_int(resolutions[x], 1, 1 << 20, &res, err, rwhat)) ||
                (rc = pm_gen_cnn_check_resolution(res, err) ? pm_err_wrap(err, "%s", rwhat) : PM_OK))
                return rc;
            for (int p = 0; p < np; p++) {
                if ((rc = pm_kind_check_precision(precisions[p], err, pwhat)))
                    return rc;
                pm_workload wl = {.family = fams[f], .size = "", .precision = precisions[p], .resolution = res,
                                  .blocks = blocks};
                char stem[512];
                snprintf(stem, sizeof stem, "cnn/%s/r%d/%s/B%d", fams[f], res, precisions[p], blocks);
                if ((rc = r->add(r->user, &wl, stem, err)))
                    return rc;
            }
        }
    }
    return PM_OK;
}

const pm_kind pm_kind_cnn = {
    .name = "cnn", .label = "CNN",
    .key_legend = "cnn/FAMILY/rRESOLUTION/PRECISION/BBLOCKS/VARIANT: r224 = a 224-pixel input, "
                  "B2 = the stem and first 2 blocks (B0 = the whole network)",
    .handoff_x = "wall", .series = "family", .bars = "family",
    .prefer = {{"precision", "int8"}}, .figure = "cnn-fingerprint", .regime_rows = "family",
    .regime_cols = "resolution", .slice = "precision", .rows_label = "CNN family",
    .cols_label = "input resolution (pixels)", .regime_figure = "cnn-regime-map", .spine = 1,
    .axes = "family,resolution,precision,blocks", .depth_axis = "blocks", .emit = pm_gen_cnn, .grow = grow_cnn,
    .spec_section = section_cnn, .size_axis = "resolution", .families = pm_gen_cnn_families,
    .section_keys = "families,resolutions,precisions,variants,blocks", .expand = expand_cnn,
};
