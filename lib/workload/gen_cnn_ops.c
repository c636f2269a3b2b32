/* The layers of the CNN workloads (gen_cnn.c): weights as function arguments, convolutions, pools, norms and
 * activations as linalg on tensors, printed through gen_emit. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "gen_cnn_internal.h"


static int fresh(gen *g) { return g->body.next_id++; }

/* An activation's SSA name and type (%x for the input, %v<id> else). */
pm_val pm_cnn_val(tv t)
{
    pm_val v;
    const int64_t dims[4] = {1, t.c, t.h, t.w};
    if (t.id < 0)
        snprintf(v.name, sizeof v.name, "%%x");
    else
        snprintf(v.name, sizeof v.name, "%%v%d", t.id);
    pm_emit_ttype(v.type, sizeof v.type, dims, 4, "f32");
    return v;
}

static const char *ident_map(int rank)
{
    static const char *const map[] = {"affine_map<()->()>", "affine_map<(d0)->(d0)>", "affine_map<(d0,d1)->(d0,d1)>",
                                      "affine_map<(d0,d1,d2)->(d0,d1,d2)>",
                                      "affine_map<(d0,d1,d2,d3)->(d0,d1,d2,d3)>",
                                      "affine_map<(d0,d1,d2,d3,d4)->(d0,d1,d2,d3,d4)>"};
    return map[rank];
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
    pm_emit_printf(&g->args, ", %%a%d: %s", n, type);
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
    pm_emit_printf(&g->body, "    %%v%d = tensor.empty() : %s\n", e, ft);
    if (g->prec == P_FP16) {
        g->weight_bytes += 2 * n;
        int x = fresh(g);
        pm_emit_printf(
            &g->body,
            "    %%v%d = linalg.generic {indexing_maps = [%s, %s], iterator_types = %s} ins(%%a%d : %s) "
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
        pm_emit_printf(&g->body,
                       "    %%v%d = linalg.generic {indexing_maps = [%s, %s, %s], iterator_types = %s} "
                       "ins(%%a%d, %%a%d : %s, %s) outs(%%v%d : %s) {\n    ^bb0(%%i%d: %s, %%s%d: f32, %%o%d: f32):\n"
                       "      %%v%d = arith.extsi %%i%d : %s to i32\n      %%v%d = arith.sitofp %%v%d : i32 to f32\n"
                       "      %%v%d = arith.mulf %%v%d, %%s%d : f32\n      linalg.yield %%v%d : f32\n    } -> %s\n",
                       r, ident_map(rank), smap, ident_map(rank), par_iters(rank), a, s, wt, st, e, ft, r, ety, r, r, x,
                       r, ety, y, x, z, y, r, z, ft);
    }
    g->body.linalg_ops++;
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
        pm_emit_printf(&g->body,
                       "      %%v%d = arith.constant 0.0 : f32\n      %%v%d = arith.maximumf %%%s, %%v%d : f32\n", k1,
                       r, in, k1);
        return r;
    case A_RELU6:
        k1 = fresh(g), k2 = fresh(g), t1 = fresh(g), r = fresh(g);
        pm_emit_printf(
            &g->body,
            "      %%v%d = arith.constant 0.0 : f32\n      %%v%d = arith.constant 6.0 : f32\n"
            "      %%v%d = arith.maximumf %%%s, %%v%d : f32\n      %%v%d = arith.minimumf %%v%d, %%v%d : f32\n",
            k1, k2, t1, in, k1, r, t1, k2);
        return r;
    case A_SIGMOID:
    case A_SILU:
        k1 = fresh(g), t1 = fresh(g), t2 = fresh(g), t3 = fresh(g), r = fresh(g);
        pm_emit_printf(&g->body, "      %%v%d = arith.constant 1.0 : f32\n      %%v%d = arith.negf %%%s : f32\n"
                                 "      %%v%d = math.exp %%v%d : f32\n      %%v%d = arith.addf %%v%d, %%v%d : f32\n",
            k1, t1, in, t2, t1, t3, t2, k1);
        if (a == A_SIGMOID)
            pm_emit_printf(&g->body, "      %%v%d = arith.divf %%v%d, %%v%d : f32\n", r, k1, t3);
        else
            pm_emit_printf(&g->body, "      %%v%d = arith.divf %%%s, %%v%d : f32\n", r, in, t3);
        return r;
    case A_HSIG:
    case A_HSWISH:
        k1 = fresh(g), k2 = fresh(g), t1 = fresh(g), t2 = fresh(g), t3 = fresh(g), t4 = fresh(g), t5 = fresh(g);
        pm_emit_printf(
            &g->body,
            "      %%v%d = arith.constant 3.0 : f32\n      %%v%d = arith.constant 0.0 : f32\n"
            "      %%v%d = arith.constant 6.0 : f32\n      %%v%d = arith.addf %%%s, %%v%d : f32\n"
            "      %%v%d = arith.maximumf %%v%d, %%v%d : f32\n      %%v%d = arith.minimumf %%v%d, %%v%d : f32\n",
            k1, k2, t1, t2, in, k1, t3, t2, k2, t4, t3, t1);
        if (a == A_HSIG) {
            pm_emit_printf(&g->body, "      %%v%d = arith.divf %%v%d, %%v%d : f32\n", t5, t4, t1);
            return t5;
        }
        r = fresh(g);
        pm_emit_printf(&g->body,
                       "      %%v%d = arith.mulf %%%s, %%v%d : f32\n      %%v%d = arith.divf %%v%d, %%v%d : f32\n", t5,
                       in, t4, r, t5, t1);
        return r;
    case A_GELU: {
        /* tanh approximation; tanh(u) = 1 - 2/(exp(2u)+1) so only math.exp is needed by the LLVM lowering. */
        int kc = fresh(g), k2g = fresh(g), c1 = fresh(g), c2 = fresh(g), c05 = fresh(g);
        int x2 = fresh(g), x3 = fresh(g), cx3 = fresh(g), u = fresh(g), u2 = fresh(g), e = fresh(g), e1 = fresh(g);
        int q = fresh(g), th = fresh(g), th1 = fresh(g), xt = fresh(g), p = fresh(g);
        pm_emit_printf(&g->body,
                       "      %%v%d = arith.constant 0.044715 : f32\n      %%v%d = arith.constant 1.5957691 : f32\n"
                       "      %%v%d = arith.constant 1.0 : f32\n      %%v%d = arith.constant 2.0 : f32\n"
                       "      %%v%d = arith.constant 0.5 : f32\n",
                       kc, k2g, c1, c2, c05); /* k2g = 2*sqrt(2/pi) */
        pm_emit_printf(&g->body,
                       "      %%v%d = arith.mulf %%%s, %%%s : f32\n      %%v%d = arith.mulf %%v%d, %%%s : f32\n"
                       "      %%v%d = arith.mulf %%v%d, %%v%d : f32\n      %%v%d = arith.addf %%%s, %%v%d : f32\n"
                       "      %%v%d = arith.mulf %%v%d, %%v%d : f32\n      %%v%d = math.exp %%v%d : f32\n",
                       x2, in, in, x3, x2, in, cx3, x3, kc, u, in, cx3, u2, u, k2g, e, u2);
        pm_emit_printf(&g->body,
                       "      %%v%d = arith.addf %%v%d, %%v%d : f32\n      %%v%d = arith.divf %%v%d, %%v%d : f32\n"
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
    pm_emit_printf(&g->body, "    %s = tensor.empty() : %s\n", pm_cnn_val(t).name, pm_cnn_val(t).type);
    return t;
}

static tv fill4(gen *g, int c, int h, int w, const char *value)
{
    tv e = empty4(g, c, h, w);
    tv t = {fresh(g), c, h, w};
    pm_emit_printf(&g->body, "    %s = linalg.fill ins(%s : f32) outs(%s : %s) -> %s\n", pm_cnn_val(t).name, value,
                   pm_cnn_val(e).name, pm_cnn_val(e).type, pm_cnn_val(t).type);
    if (g->emit)
        g->body.linalg_ops++;
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
        pm_emit_printf(
            &g->body,
            "    %s = linalg.generic {indexing_maps = [%s, %s, %s], iterator_types = %s} ins(%s, %%a%d : %s, "
            "tensor<%dxf32>) outs(%s : %s) {\n    ^bb0(%%v%d: f32, %%v%d: f32, %%v%d: f32):\n"
            "      %%v%d = arith.addf %%v%d, %%v%d : f32\n",
            pm_cnn_val(y).name, ident_map(4), CH_MAP, ident_map(4), par_iters(4), pm_cnn_val(x).name, bias,
            pm_cnn_val(x).type, x.c, pm_cnn_val(e).name, pm_cnn_val(e).type, i, b, o, s, i, b);
        char sn[16];
        snprintf(sn, sizeof sn, "v%d", s);
        int r = act_body(g, a, sn);
        pm_emit_printf(&g->body, "      linalg.yield %%v%d : f32\n    } -> %s\n", r < 0 ? s : r, pm_cnn_val(y).type);
    } else {
        pm_emit_printf(
            &g->body,
            "    %s = linalg.generic {indexing_maps = [%s, %s], iterator_types = %s} ins(%s : %s) outs(%s : %s) "
            "{\n    ^bb0(%%v%d: f32, %%v%d: f32):\n",
            pm_cnn_val(y).name, ident_map(4), ident_map(4), par_iters(4), pm_cnn_val(x).name, pm_cnn_val(x).type,
            pm_cnn_val(e).name, pm_cnn_val(e).type, i, o);
        char sn[16];
        snprintf(sn, sizeof sn, "v%d", i);
        int r = act_body(g, a, sn);
        pm_emit_printf(&g->body, "      linalg.yield %%v%d : f32\n    } -> %s\n", r, pm_cnn_val(y).type);
    }
    g->body.linalg_ops++;
    return y;
}

/* Inference BatchNorm (scale/shift per channel) + activation: used where BN precedes the conv (DenseNet). */
tv pm_cnn_bn_act(gen *g, tv x, enum act a)
{
    int sc = vec_arg(g, x.c, x.c), sh = vec_arg(g, x.c, x.c);
    if (!g->emit)
        return x;
    tv e = empty4(g, x.c, x.h, x.w);
    tv y = {fresh(g), x.c, x.h, x.w};
    int i = fresh(g), s = fresh(g), b = fresh(g), o = fresh(g), m = fresh(g), ad = fresh(g);
    pm_emit_printf(
        &g->body,
        "    %s = linalg.generic {indexing_maps = [%s, %s, %s, %s], iterator_types = %s} ins(%s, %%a%d, %%a%d : "
        "%s, tensor<%dxf32>, tensor<%dxf32>) outs(%s : %s) {\n    ^bb0(%%v%d: f32, %%v%d: f32, %%v%d: f32, "
        "%%v%d: f32):\n      %%v%d = arith.mulf %%v%d, %%v%d : f32\n      %%v%d = arith.addf %%v%d, %%v%d : f32\n",
        pm_cnn_val(y).name, ident_map(4), CH_MAP, CH_MAP, ident_map(4), par_iters(4), pm_cnn_val(x).name, sc, sh,
        pm_cnn_val(x).type, x.c, x.c, pm_cnn_val(e).name, pm_cnn_val(e).type, i, s, b, o, m, i, s, ad, m, b);
    char an[16];
    snprintf(an, sizeof an, "v%d", ad);
    int r = act_body(g, a, an);
    pm_emit_printf(&g->body, "      linalg.yield %%v%d : f32\n    } -> %s\n", r < 0 ? ad : r, pm_cnn_val(y).type);
    g->body.linalg_ops++;
    return y;
}

/* y = act(a + b), or y = a * b when mul (b broadcast per channel when b is 1x1 spatial). */
tv pm_cnn_binary(gen *g, tv a, tv b, bool mul, enum act act)
{
    if (!g->emit)
        return a;
    bool bcast = b.h == 1 && b.w == 1 && (a.h != 1 || a.w != 1);
    pm_val bval = pm_cnn_val(b); /* the second operand: b, or b collapsed to its channels when broadcast */
    if (bcast) {
        int bv = fresh(g);
        pm_emit_printf(&g->body, "    %%v%d = tensor.collapse_shape %s [[0, 1, 2, 3]] : %s into tensor<%dxf32>\n", bv,
                       bval.name, bval.type, b.c);
        snprintf(bval.name, sizeof bval.name, "%%v%d", bv);
        snprintf(bval.type, sizeof bval.type, "tensor<%dxf32>", b.c);
    }
    tv e = empty4(g, a.c, a.h, a.w);
    tv y = {fresh(g), a.c, a.h, a.w};
    int i = fresh(g), j = fresh(g), o = fresh(g), s = fresh(g);
    pm_emit_printf(
        &g->body,
        "    %s = linalg.generic {indexing_maps = [%s, %s, %s], iterator_types = %s} ins(%s, %s : %s, %s) "
        "outs(%s : %s) {\n    ^bb0(%%v%d: f32, %%v%d: f32, %%v%d: f32):\n      %%v%d = arith.%s %%v%d, %%v%d : f32\n",
        pm_cnn_val(y).name, ident_map(4), bcast ? CH_MAP : ident_map(4), ident_map(4), par_iters(4), pm_cnn_val(a).name,
        bval.name, pm_cnn_val(a).type, bval.type, pm_cnn_val(e).name, pm_cnn_val(e).type, i, j, o, s,
        mul ? "mulf" : "addf", i, j);
    char sn[16];
    snprintf(sn, sizeof sn, "v%d", s);
    int r = act_body(g, act, sn);
    pm_emit_printf(&g->body, "      linalg.yield %%v%d : f32\n    } -> %s\n", r < 0 ? s : r, pm_cnn_val(y).type);
    g->body.linalg_ops++;
    return y;
}

static tv pad(gen *g, tv x, int p, const char *value)
{
    if (p == 0)
        return x;
    tv y = {fresh(g), x.c, x.h + 2 * p, x.w + 2 * p};
    int i0 = fresh(g), i1 = fresh(g), i2 = fresh(g), i3 = fresh(g);
    pm_emit_printf(
        &g->body,
        "    %s = tensor.pad %s low[0, 0, %d, %d] high[0, 0, %d, %d] {\n    ^bb0(%%v%d: index, %%v%d: index, "
        "%%v%d: index, %%v%d: index):\n      tensor.yield %s : f32\n    } : %s to %s\n",
        pm_cnn_val(y).name, pm_cnn_val(x).name, p, p, p, p, i0, i1, i2, i3, value, pm_cnn_val(x).type,
        pm_cnn_val(y).type);
    return y;
}

/* Convolution + bias (folded BN when bn, else a real bias when has_bias, else none) + activation.
 * groups == cin == cout: depthwise. */
tv pm_cnn_conv(gen *g, tv x, int cout, int k, int stride, int p, int groups, bool bn, bool has_bias, enum act a)
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
        pm_emit_printf(
            &g->body,
            "    %s = linalg.depthwise_conv_2d_nchw_chw %s ins(%s, %%v%d : %s, tensor<%dx%dx%dxf32>) outs(%s : %s) "
            "-> %s\n",
            pm_cnn_val(r).name, attrs, pm_cnn_val(xp).name, wv, pm_cnn_val(xp).type, cout, k, k, pm_cnn_val(f).name,
            pm_cnn_val(f).type, pm_cnn_val(r).type);
    } else if (groups > 1) {
        int G = groups, cg = x.c / G, fg = cout / G;
        int xe = fresh(g), e = fresh(g), f = fresh(g), cv = fresh(g);
        pm_emit_printf(
            &g->body,
            "    %%v%d = tensor.expand_shape %s [[0], [1, 2], [3], [4]] output_shape [1, %d, %d, %d, %d] : %s "
            "into tensor<1x%dx%dx%dx%dxf32>\n",
            xe, pm_cnn_val(xp).name, G, cg, xp.h, xp.w, pm_cnn_val(xp).type, G, cg, xp.h, xp.w);
        pm_emit_printf(&g->body, "    %%v%d = tensor.empty() : tensor<1x%dx%dx%dx%dxf32>\n", e, G, fg, oh, ow);
        pm_emit_printf(&g->body, "    %%v%d = linalg.fill ins(%%zero : f32) outs(%%v%d : tensor<1x%dx%dx%dx%dxf32>) -> "
                                 "tensor<1x%dx%dx%dx%dxf32>\n",
            f, e, G, fg, oh, ow, G, fg, oh, ow);
        pm_emit_printf(
            &g->body,
            "    %%v%d = linalg.conv_2d_ngchw_gfchw %s ins(%%v%d, %%v%d : tensor<1x%dx%dx%dx%dxf32>, "
            "tensor<%dx%dx%dx%dx%dxf32>) outs(%%v%d : tensor<1x%dx%dx%dx%dxf32>) -> tensor<1x%dx%dx%dx%dxf32>\n",
            cv, attrs, xe, wv, G, cg, xp.h, xp.w, G, fg, cg, k, k, f, G, fg, oh, ow, G, fg, oh, ow);
        g->body.linalg_ops++;
        r.id = fresh(g);
        pm_emit_printf(
            &g->body,
            "    %s = tensor.collapse_shape %%v%d [[0], [1, 2], [3], [4]] : tensor<1x%dx%dx%dx%dxf32> into %s\n",
            pm_cnn_val(r).name, cv, G, fg, oh, ow, pm_cnn_val(r).type);
    } else {
        tv f = fill4(g, cout, oh, ow, "%zero");
        r.id = fresh(g);
        pm_emit_printf(
            &g->body,
            "    %s = linalg.conv_2d_nchw_fchw %s ins(%s, %%v%d : %s, tensor<%dx%dx%dx%dxf32>) outs(%s : %s) -> %s\n",
            pm_cnn_val(r).name, attrs, pm_cnn_val(xp).name, wv, pm_cnn_val(xp).type, cout, x.c, k, k,
            pm_cnn_val(f).name, pm_cnn_val(f).type, pm_cnn_val(r).type);
    }
    g->body.linalg_ops++;
    return bias_act(g, r, bias, a);
}

/* The common case: conv + folded BN + activation, "same" padding. */
tv pm_cnn_conv_bn(gen *g, tv x, int cout, int k, int stride, enum act a)
{
    return pm_cnn_conv(g, x, cout, k, stride, k / 2, 1, true, false, a);
}

tv pm_cnn_pool(gen *g, tv x, int k, int stride, int p, bool max)
{
    int oh = (x.h + 2 * p - k) / stride + 1, ow = (x.w + 2 * p - k) / stride + 1;
    tv r = {0, x.c, oh, ow};
    if (!g->emit)
        return r;
    tv xp = pad(g, x, p, max ? "%ninf" : "%zero");
    tv f = fill4(g, x.c, oh, ow, max ? "%ninf" : "%zero");
    int win = fresh(g);
    pm_emit_printf(&g->body, "    %%v%d = tensor.empty() : tensor<%dx%dxf32>\n", win, k, k);
    r.id = fresh(g);
    pm_emit_printf(&g->body,
                   "    %s = linalg.pooling_nchw_%s {dilations = dense<1> : tensor<2xi64>, strides = dense<%d> : "
                   "tensor<2xi64>} ins(%s, %%v%d : %s, tensor<%dx%dxf32>) outs(%s : %s) -> %s\n",
                   pm_cnn_val(r).name, max ? "max" : "sum", stride, pm_cnn_val(xp).name, win, pm_cnn_val(xp).type, k, k,
                   pm_cnn_val(f).name, pm_cnn_val(f).type, pm_cnn_val(r).type);
    g->body.linalg_ops++;
    if (max)
        return r;
    /* average = sum / window (count_include_pad semantics) */
    tv e = empty4(g, r.c, r.h, r.w);
    tv y = {fresh(g), r.c, r.h, r.w};
    int i = fresh(g), o = fresh(g), kk = fresh(g), d = fresh(g);
    pm_emit_printf(
        &g->body,
        "    %s = linalg.generic {indexing_maps = [%s, %s], iterator_types = %s} ins(%s : %s) outs(%s : %s) {\n"
        "    ^bb0(%%v%d: f32, %%v%d: f32):\n      %%v%d = arith.constant %d.0 : f32\n"
        "      %%v%d = arith.divf %%v%d, %%v%d : f32\n      linalg.yield %%v%d : f32\n    } -> %s\n",
        pm_cnn_val(y).name, ident_map(4), ident_map(4), par_iters(4), pm_cnn_val(r).name, pm_cnn_val(r).type,
        pm_cnn_val(e).name, pm_cnn_val(e).type, i, o, kk, k * k, d, i, kk, d, pm_cnn_val(y).type);
    g->body.linalg_ops++;
    return y;
}

tv pm_cnn_global_avg(gen *g, tv x)
{
    if (x.h != x.w)
        return x; /* cannot happen: inputs are square */
    return pm_cnn_pool(g, x, x.h, 1, 0, false);
}

/* LayerNorm over channels at every pixel (ConvNeXt's channels-first LayerNorm), eps 1e-6, gamma/beta. */
tv pm_cnn_layer_norm(gen *g, tv x)
{
    int gm = vec_arg(g, x.c, x.c), bt = vec_arg(g, x.c, x.c);
    if (!g->emit)
        return x;
    char pt[64];
    snprintf(pt, sizeof pt, "tensor<1x%dx%dxf32>", x.h, x.w);
    const char *red = "[\"parallel\",\"reduction\",\"parallel\",\"parallel\"]";
    int e = fresh(g), z = fresh(g), sum = fresh(g), sq = fresh(g);
    pm_emit_printf(
        &g->body, "    %%v%d = tensor.empty() : %s\n    %%v%d = linalg.fill ins(%%zero : f32) outs(%%v%d : %s) -> %s\n",
        e, pt, z, e, pt, pt);
    int i = fresh(g), o = fresh(g), s = fresh(g);
    pm_emit_printf(
        &g->body,
        "    %%v%d = linalg.generic {indexing_maps = [%s, %s], iterator_types = %s} ins(%s : %s) outs(%%v%d : %s) "
        "{\n    ^bb0(%%v%d: f32, %%v%d: f32):\n      %%v%d = arith.addf %%v%d, %%v%d : f32\n"
        "      linalg.yield %%v%d : f32\n    } -> %s\n",
        sum, ident_map(4), PIX_MAP, red, pm_cnn_val(x).name, pm_cnn_val(x).type, z, pt, i, o, s, o, i, s, pt);
    int i2 = fresh(g), m2 = fresh(g), o2 = fresh(g), ic = fresh(g), mu = fresh(g), d = fresh(g), dd = fresh(g),
        acc = fresh(g);
    pm_emit_printf(
        &g->body,
        "    %%v%d = linalg.generic {indexing_maps = [%s, %s, %s], iterator_types = %s} ins(%s, %%v%d : %s, %s) "
        "outs(%%v%d : %s) {\n    ^bb0(%%v%d: f32, %%v%d: f32, %%v%d: f32):\n"
        "      %%v%d = arith.constant %.9g : f32\n      %%v%d = arith.mulf %%v%d, %%v%d : f32\n"
        "      %%v%d = arith.subf %%v%d, %%v%d : f32\n      %%v%d = arith.mulf %%v%d, %%v%d : f32\n"
        "      %%v%d = arith.addf %%v%d, %%v%d : f32\n      linalg.yield %%v%d : f32\n    } -> %s\n",
        sq, ident_map(4), PIX_MAP, PIX_MAP, red, pm_cnn_val(x).name, sum, pm_cnn_val(x).type, pt, z, pt, i2, m2, o2, ic,
        1.0 / x.c, mu, m2, ic, d, i2, mu, dd, d, d, acc, o2, dd, acc, pt);
    tv ye = empty4(g, x.c, x.h, x.w);
    tv y = {fresh(g), x.c, x.h, x.w};
    int xi = fresh(g), si = fresh(g), qi = fresh(g), gi = fresh(g), bi = fresh(g), oi = fresh(g);
    int icn = fresh(g), eps = fresh(g), m = fresh(g), v = fresh(g), ve = fresh(g), sd = fresh(g), c = fresh(g),
        nn = fresh(g), sc = fresh(g), res = fresh(g);
    pm_emit_printf(&g->body,
                   "    %s = linalg.generic {indexing_maps = [%s, %s, %s, %s, %s, %s], iterator_types = %s} "
                   "ins(%s, %%v%d, %%v%d, %%a%d, %%a%d : %s, %s, %s, tensor<%dxf32>, tensor<%dxf32>) outs(%s : %s) {\n"
                   "    ^bb0(%%v%d: f32, %%v%d: f32, %%v%d: f32, %%v%d: f32, %%v%d: f32, %%v%d: f32):\n"
                   "      %%v%d = arith.constant %.9g : f32\n      %%v%d = arith.constant 1.0e-06 : f32\n"
                   "      %%v%d = arith.mulf %%v%d, %%v%d : f32\n      %%v%d = arith.mulf %%v%d, %%v%d : f32\n"
                   "      %%v%d = arith.addf %%v%d, %%v%d : f32\n      %%v%d = math.sqrt %%v%d : f32\n"
                   "      %%v%d = arith.subf %%v%d, %%v%d : f32\n      %%v%d = arith.divf %%v%d, %%v%d : f32\n"
                   "      %%v%d = arith.mulf %%v%d, %%v%d : f32\n      %%v%d = arith.addf %%v%d, %%v%d : f32\n"
                   "      linalg.yield %%v%d : f32\n    } -> %s\n",
                   pm_cnn_val(y).name, ident_map(4), PIX_MAP, PIX_MAP, CH_MAP, CH_MAP, ident_map(4), par_iters(4),
                   pm_cnn_val(x).name, sum, sq, gm, bt, pm_cnn_val(x).type, pt, pt, x.c, x.c, pm_cnn_val(ye).name,
                   pm_cnn_val(ye).type, xi, si, qi, gi, bi, oi, icn, 1.0 / x.c, eps, m, si, icn, v, qi, icn, ve, v, eps,
                   sd, ve, c, xi, m, nn, c, sd, sc, nn, gi, res, sc, bi, res, pm_cnn_val(y).type);
    g->body.linalg_ops += 4;
    return y;
}

/* y = x * gamma[c] (ConvNeXt layer scale). */
tv pm_cnn_layer_scale(gen *g, tv x)
{
    int gm = vec_arg(g, x.c, x.c);
    if (!g->emit)
        return x;
    tv e = empty4(g, x.c, x.h, x.w);
    tv y = {fresh(g), x.c, x.h, x.w};
    int i = fresh(g), b = fresh(g), o = fresh(g), s = fresh(g);
    pm_emit_printf(&g->body,
                   "    %s = linalg.generic {indexing_maps = [%s, %s, %s], iterator_types = %s} ins(%s, %%a%d : %s, "
                   "tensor<%dxf32>) outs(%s : %s) {\n    ^bb0(%%v%d: f32, %%v%d: f32, %%v%d: f32):\n"
                   "      %%v%d = arith.mulf %%v%d, %%v%d : f32\n      linalg.yield %%v%d : f32\n    } -> %s\n",
                   pm_cnn_val(y).name, ident_map(4), CH_MAP, ident_map(4), par_iters(4), pm_cnn_val(x).name, gm,
                   pm_cnn_val(x).type, x.c, pm_cnn_val(e).name, pm_cnn_val(e).type, i, b, o, s, i, b, s,
                   pm_cnn_val(y).type);
    g->body.linalg_ops++;
    return y;
}

/* Channel concatenation by tensor.insert_slice into a tensor.empty. */
tv pm_cnn_concat(gen *g, const tv *parts, int n)
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
        pm_emit_printf(
            &g->body,
            "    %s = tensor.insert_slice %s into %s[0, %d, 0, 0] [1, %d, %d, %d] [1, 1, 1, 1] : %s into %s\n",
            pm_cnn_val(nx).name, pm_cnn_val(parts[i]).name, pm_cnn_val(cur).name, off, parts[i].c, r.h, r.w,
            pm_cnn_val(parts[i]).type, pm_cnn_val(nx).type);
        off += parts[i].c;
        cur = nx;
    }
    return cur;
}

/* Classifier: (optional LayerNorm), global average pool, flatten, linear with bias. Returns 1 x n x 1 x 1. */
tv pm_cnn_classifier(gen *g, tv x, int n, bool pool_first)
{
    tv p = pool_first ? pm_cnn_global_avg(g, x) : x;
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
    pm_emit_printf(&g->body, "    %%v%d = tensor.collapse_shape %s [[0], [1, 2, 3]] : %s into tensor<1x%dxf32>\n", fl,
                   pm_cnn_val(p).name, pm_cnn_val(p).type, p.c);
    pm_emit_printf(
        &g->body,
        "    %%v%d = tensor.empty() : tensor<1x%dxf32>\n    %%v%d = linalg.fill ins(%%zero : f32) outs(%%v%d : "
        "tensor<1x%dxf32>) -> tensor<1x%dxf32>\n",
        e, n, f, e, n, n);
    pm_emit_printf(&g->body,
                   "    %%v%d = linalg.matmul ins(%%v%d, %%v%d : tensor<1x%dxf32>, tensor<%dx%dxf32>) outs(%%v%d : "
                   "tensor<1x%dxf32>) -> tensor<1x%dxf32>\n",
                   mm, fl, wv, p.c, p.c, n, f, n, n);
    g->body.linalg_ops += 2;
    r.id = fresh(g);
    pm_emit_printf(
        &g->body,
        "    %s = tensor.expand_shape %%v%d [[0], [1, 2, 3]] output_shape [1, %d, 1, 1] : tensor<1x%dxf32> into "
        "%s\n",
        pm_cnn_val(r).name, mm, n, n, pm_cnn_val(r).type);
    return bias_act(g, r, bias, A_NONE);
}

/* ---- units ---- */

void pm_cnn_begin_unit(gen *g)
{
    g->emit = g->blocks <= 0 || g->unit < g->blocks;
}
void pm_cnn_end_unit(gen *g, tv x)
{
    if (g->emit) {
        g->out = x;
        g->have_out = true;
    }
    g->unit++;
}
