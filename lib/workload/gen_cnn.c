/* pm_gen_cnn: CNN workloads as MLIR (linalg on tensors, NCHW, batch 1) with the real architecture of each
 * family. Activations are f32; weights are function arguments (fp16: f16 + arith.extf; int8/int4: integer tensors
 * plus per-output-channel f32 scales, dequantised by a linalg.generic before use). BatchNorm is folded into a
 * per-channel bias (its 2*C parameters are still counted, so params match the published models).
 *
 * Units: the network is a list [stem, block 1 .. block M, head]; opts->blocks = N > 0 emits the first N units
 * (N = 1: stem only; N = 2: stem + first block ...). Shapes, params and layer counts always cover the whole model. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "gen.h"
#include "gen_cnn_internal.h"
#include "kinds.h"

/* ---- families ---- */

/* The classifier as a unit of its own: pooled, 1000 classes. */
static tv head_unit(gen *g, tv x)
{
    pm_cnn_begin_unit(g);
    x = pm_cnn_classifier(g, x, 1000, true);
    pm_cnn_end_unit(g, x);
    return x;
}

static tv resnet(gen *g, tv x, int depth)
{
    static const int d18[] = {2, 2, 2, 2}, d34[] = {3, 4, 6, 3}, d50[] = {3, 4, 6, 3}, d101[] = {3, 4, 23, 3},
                     d152[] = {3, 8, 36, 3};
    const int *d = depth == 18 ? d18 : depth == 34 ? d34 : depth == 50 ? d50 : depth == 101 ? d101 : d152;
    bool bottleneck = depth >= 50;
    int expansion = bottleneck ? 4 : 1;
    pm_cnn_begin_unit(g);
    x = pm_cnn_conv_bn(g, x, 64, 7, 2, A_RELU);
    x = pm_cnn_pool(g, x, 3, 2, 1, true);
    pm_cnn_end_unit(g, x);
    for (int s = 0; s < 4; s++) {
        int width = 64 << s;
        for (int b = 0; b < d[s]; b++) {
            pm_cnn_begin_unit(g);
            int stride = (b == 0 && s > 0) ? 2 : 1;
            tv sc = x;
            if (b == 0 && (stride != 1 || x.c != width * expansion))
                sc = pm_cnn_conv_bn(g, x, width * expansion, 1, stride, A_NONE);
            tv y;
            if (bottleneck) {
                y = pm_cnn_conv_bn(g, x, width, 1, 1, A_RELU);
                y = pm_cnn_conv_bn(g, y, width, 3, stride, A_RELU);
                y = pm_cnn_conv_bn(g, y, width * 4, 1, 1, A_NONE);
            } else {
                y = pm_cnn_conv_bn(g, x, width, 3, stride, A_RELU);
                y = pm_cnn_conv_bn(g, y, width, 3, 1, A_NONE);
            }
            x = pm_cnn_binary(g, y, sc, false, A_RELU);
            if (!g->emit)
                x = y;
            pm_cnn_end_unit(g, x);
        }
    }
    return head_unit(g, x);
}

/* Squeeze-excitation: global pool, 1x1 reduce (bias) + act, 1x1 expand (bias) + gate, multiply. */
static tv squeeze_excite(gen *g, tv x, int squeeze, enum act a, enum act gate)
{
    tv p = pm_cnn_global_avg(g, x);
    tv s = pm_cnn_conv(g, p, squeeze, 1, 1, 0, 1, false, true, a);
    s = pm_cnn_conv(g, s, x.c, 1, 1, 0, 1, false, true, gate);
    tv y = pm_cnn_binary(g, x, s, true, A_NONE);
    return g->emit ? y : x;
}

/* MBConv / bneck: optional 1x1 expand, depthwise kxk, optional SE, 1x1 project, residual when shapes match. */
static tv inverted_residual(gen *g, tv x, int expanded, int cout, int k, int stride, int se_squeeze, enum act a,
                            enum act se_act, enum act se_gate)
{
    tv in = x;
    tv y = x;
    if (expanded != x.c)
        y = pm_cnn_conv_bn(g, y, expanded, 1, 1, a);
    y = pm_cnn_conv(g, y, expanded, k, stride, k / 2, expanded, true, false, a);
    if (se_squeeze > 0)
        y = squeeze_excite(g, y, se_squeeze, se_act, se_gate);
    y = pm_cnn_conv_bn(g, y, cout, 1, 1, A_NONE);
    if (stride == 1 && in.c == cout) {
        tv r = pm_cnn_binary(g, y, in, false, A_NONE);
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
    pm_cnn_begin_unit(g);
    x = pm_cnn_conv_bn(g, x, 32, 3, 2, A_SILU);
    pm_cnn_end_unit(g, x);
    for (int s = 0; s < 7; s++)
        for (int r = 0; r < t[s][4]; r++) {
            pm_cnn_begin_unit(g);
            int squeeze = x.c / 4 > 1 ? x.c / 4 : 1;
            x = inverted_residual(g, x, x.c * t[s][0], t[s][3], t[s][1], r == 0 ? t[s][2] : 1, squeeze, A_SILU,
                A_SILU, A_SIGMOID);
            pm_cnn_end_unit(g, x);
        }
    pm_cnn_begin_unit(g);
    x = pm_cnn_conv_bn(g, x, 1280, 1, 1, A_SILU);
    x = pm_cnn_classifier(g, x, 1000, true);
    pm_cnn_end_unit(g, x);
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
    pm_cnn_begin_unit(g);
    x = pm_cnn_conv_bn(g, x, 16, 3, 2, A_HSWISH);
    pm_cnn_end_unit(g, x);
    for (int i = 0; i < 15; i++) {
        pm_cnn_begin_unit(g);
        int sq = t[i][3] ? make_divisible(t[i][1] / 4, 8) : 0;
        x = inverted_residual(g, x, t[i][1], t[i][2], t[i][0], t[i][5], sq, t[i][4] ? A_HSWISH : A_RELU, A_RELU,
            A_HSIG);
        pm_cnn_end_unit(g, x);
    }
    pm_cnn_begin_unit(g);
    x = pm_cnn_conv_bn(g, x, 960, 1, 1, A_HSWISH);
    x = pm_cnn_global_avg(g, x);
    /* 960 -> 1280 linear + hard-swish, then 1280 -> 1000: both as 1x1 convs with bias on the pooled 1x1 map */
    x = pm_cnn_conv(g, x, 1280, 1, 1, 0, 1, false, true, A_HSWISH);
    x = pm_cnn_classifier(g, x, 1000, false);
    pm_cnn_end_unit(g, x);
    return x;
}

static tv densenet121(gen *g, tv x)
{
    static const int layers[4] = {6, 12, 24, 16};
    const int growth = 32, bn_size = 4;
    pm_cnn_begin_unit(g);
    x = pm_cnn_conv_bn(g, x, 64, 7, 2, A_RELU);
    x = pm_cnn_pool(g, x, 3, 2, 1, true);
    pm_cnn_end_unit(g, x);
    for (int b = 0; b < 4; b++) {
        for (int l = 0; l < layers[b]; l++) {
            pm_cnn_begin_unit(g);
            tv y = pm_cnn_bn_act(g, x, A_RELU);
            /* conv1x1 followed by BN2 + ReLU: BN2 folds into its bias */
            y = pm_cnn_conv(g, y, bn_size * growth, 1, 1, 0, 1, true, false, A_RELU);
            y = pm_cnn_conv(g, y, growth, 3, 1, 1, 1, false, false, A_NONE);
            tv parts[2] = {x, y};
            x = pm_cnn_concat(g, parts, 2);
            pm_cnn_end_unit(g, x);
        }
        if (b < 3) {
            pm_cnn_begin_unit(g);
            x = pm_cnn_bn_act(g, x, A_RELU);
            x = pm_cnn_conv(g, x, x.c / 2, 1, 1, 0, 1, false, false, A_NONE);
            x = pm_cnn_pool(g, x, 2, 2, 0, false);
            pm_cnn_end_unit(g, x);
        }
    }
    pm_cnn_begin_unit(g);
    x = pm_cnn_bn_act(g, x, A_RELU);
    x = pm_cnn_classifier(g, x, 1000, true);
    pm_cnn_end_unit(g, x);
    return x;
}

/* RegNetX-400MF: widths 32/64/160/384, depths 1/2/7/12, group width 16, bottleneck ratio 1, stem 32. */
static tv regnetx_400mf(gen *g, tv x)
{
    static const int widths[4] = {32, 64, 160, 384}, depths[4] = {1, 2, 7, 12};
    const int group_width = 16;
    pm_cnn_begin_unit(g);
    x = pm_cnn_conv_bn(g, x, 32, 3, 2, A_RELU);
    pm_cnn_end_unit(g, x);
    for (int s = 0; s < 4; s++)
        for (int b = 0; b < depths[s]; b++) {
            pm_cnn_begin_unit(g);
            int w = widths[s], stride = b == 0 ? 2 : 1;
            tv sc = x;
            if (stride != 1 || x.c != w)
                sc = pm_cnn_conv_bn(g, x, w, 1, stride, A_NONE);
            tv y = pm_cnn_conv_bn(g, x, w, 1, 1, A_RELU);
            y = pm_cnn_conv(g, y, w, 3, stride, 1, w / group_width, true, false, A_RELU);
            y = pm_cnn_conv_bn(g, y, w, 1, 1, A_NONE);
            tv r = pm_cnn_binary(g, y, sc, false, A_RELU);
            x = g->emit ? r : y;
            pm_cnn_end_unit(g, x);
        }
    return head_unit(g, x);
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
    pm_cnn_begin_unit(g);
    x = pm_cnn_conv_bn(g, x, 64, 7, 2, A_RELU);
    x = pm_cnn_pool(g, x, 3, 2, 1, true);
    x = pm_cnn_conv_bn(g, x, 64, 1, 1, A_RELU);
    x = pm_cnn_conv_bn(g, x, 192, 3, 1, A_RELU);
    x = pm_cnn_pool(g, x, 3, 2, 1, true);
    pm_cnn_end_unit(g, x);
    for (int i = 0; i < 9; i++) {
        pm_cnn_begin_unit(g);
        if (i == 2 || i == 7)
            x = pm_cnn_pool(g, x, 3, 2, 1, true);
        tv b[4];
        b[0] = pm_cnn_conv_bn(g, x, t[i][0], 1, 1, A_RELU);
        b[1] = pm_cnn_conv_bn(g, pm_cnn_conv_bn(g, x, t[i][1], 1, 1, A_RELU), t[i][2], 3, 1, A_RELU);
        b[2] = pm_cnn_conv_bn(g, pm_cnn_conv_bn(g, x, t[i][3], 1, 1, A_RELU), t[i][4], 5, 1, A_RELU);
        b[3] = pm_cnn_conv_bn(g, pm_cnn_pool(g, x, 3, 1, 1, true), t[i][5], 1, 1, A_RELU);
        x = pm_cnn_concat(g, b, 4);
        pm_cnn_end_unit(g, x);
    }
    return head_unit(g, x);
}

/* ConvNeXt-Tiny: depths 3/3/9/3, dims 96/192/384/768, 7x7 depthwise, LayerNorm, 4x MLP with GELU, layer scale. */
static tv convnext_tiny(gen *g, tv x)
{
    static const int depths[4] = {3, 3, 9, 3}, dims[4] = {96, 192, 384, 768};
    pm_cnn_begin_unit(g);
    x = pm_cnn_conv(g, x, 96, 4, 4, 0, 1, false, true, A_NONE);
    x = pm_cnn_layer_norm(g, x);
    pm_cnn_end_unit(g, x);
    for (int s = 0; s < 4; s++)
        for (int b = 0; b < depths[s]; b++) {
            pm_cnn_begin_unit(g);
            int d = dims[s];
            if (b == 0 && s > 0) {
                x = pm_cnn_layer_norm(g, x);
                x = pm_cnn_conv(g, x, d, 2, 2, 0, 1, false, true, A_NONE);
            }
            tv y = pm_cnn_conv(g, x, d, 7, 1, 3, d, false, true, A_NONE);
            y = pm_cnn_layer_norm(g, y);
            y = pm_cnn_conv(g, y, 4 * d, 1, 1, 0, 1, false, true, A_GELU);
            y = pm_cnn_conv(g, y, d, 1, 1, 0, 1, false, true, A_NONE);
            y = pm_cnn_layer_scale(g, y);
            tv r = pm_cnn_binary(g, y, x, false, A_NONE);
            x = g->emit ? r : y;
            pm_cnn_end_unit(g, x);
        }
    pm_cnn_begin_unit(g);
    x = pm_cnn_global_avg(g, x);
    x = pm_cnn_layer_norm(g, x);
    x = pm_cnn_classifier(g, x, 1000, false);
    pm_cnn_end_unit(g, x);
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
    pm_emit_init(&g.body, open_memstream(&g.body_buf, &g.body_len));
    pm_emit_init(&g.args, open_memstream(&g.args_buf, &g.args_len));
    if (!g.body.out || !g.args.out) {
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
    if (fflush(g.body.out) != 0 || fflush(g.args.out) != 0 || g.body.failed || g.args.failed) {
        rc = pm_err_errno(err, PM_ERR_NOMEM, "memstream");
        goto cleanup;
    }
    tv res = g.out;
    fprintf(out, "// passmap gen cnn: %s, %dx%d, %s, units %d of %d\n", opts->family, opts->resolution,
        opts->resolution, p, g.blocks > 0 && g.blocks < g.unit ? g.blocks : g.unit, g.unit);
    fprintf(out, "module {\n  func.func @forward(%%x: %s%s) -> %s {\n",
            pm_cnn_val((tv){-1, 3, opts->resolution, opts->resolution}).type, g.args_buf, pm_cnn_val(res).type);
    fprintf(out, "    %%zero = arith.constant 0.0 : f32\n    %%ninf = arith.constant 0xFF800000 : f32\n");
    fwrite(g.body_buf, 1, g.body_len, out);
    fprintf(out, "    return %s : %s\n  }\n}\n", pm_cnn_val(res).name, pm_cnn_val(res).type);
    if (ferror(out)) {
        rc = pm_err_errno(err, PM_ERR_IO, "writing the cnn module");
        goto cleanup;
    }
    if (info) {
        info->params = g.params;
        info->weight_bytes = g.weight_bytes;
        info->layers_total = g.layers_total;
        info->layers_emitted = g.layers_emitted;
        info->linalg_ops = g.body.linalg_ops;
        info->functions = 1;
    }
cleanup:
    if (g.body.out)
        fclose(g.body.out);
    if (g.args.out)
        fclose(g.args.out);
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
