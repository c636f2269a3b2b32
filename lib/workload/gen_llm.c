/* Decoder prefill as linalg-on-tensors MLIR with real model hyperparameters (see gen.h).
 * Emitted: the decoder layers and the final norm, on hidden states given as an argument. Omitted: the embedding
 * lookup and the LM head (at full vocabulary the head alone is a V x D matmul that dwarfs one layer). Weights are
 * function arguments so nothing is constant-folded away. */
#include "util.h"
#include "gen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gen_emit.h"
#include "kinds.h"

#define QGROUP 128

enum act { ACT_SILU, ACT_GELU_TANH };

typedef struct llm_cfg {
    const char *family, *size;
    int hidden, inter, heads, kv_heads, head_dim, layers, vocab, max_pos;
    double eps, rope_theta;
    int tied;              /* tie_word_embeddings: LM head shares the embedding */
    enum act act;
    int gemma;             /* (1 + w) RMSNorm, post-attention/post-FFN norms, soft-capping, sliding window */
    double attn_softcap;   /* attn_logit_softcapping (0: none) */
    double final_softcap;  /* final_logit_softcapping (LM head; recorded, not emitted) */
    int sliding_window;    /* on even layers (Gemma-2), 0: none */
    int query_scalar;      /* query_pre_attn_scalar: scores scaled by 1/sqrt(this); 0: head_dim */
    int qkv_bias;          /* Qwen2 */
    int fused;             /* Phi-3: qkv_proj and gate_up_proj */
    double nominal_b;      /* nominal size in billions of parameters (model card) */
} llm_cfg;

/* From each model's Hugging Face config.json (google/gemma-2-2b, google/gemma-2-9b, TinyLlama/TinyLlama-1.1B-Chat-v1.0,
 * meta-llama/Llama-3.2-1B, meta-llama/Llama-3.2-3B, microsoft/Phi-3-mini-4k-instruct, Qwen/Qwen2-0.5B, Qwen/Qwen2-1.5B,
 * Qwen/Qwen2-7B): hidden_size, intermediate_size, num_attention_heads, num_key_value_heads, head_dim, num_hidden_layers,
 * vocab_size, max_position_embeddings, rms_norm_eps, rope_theta, tie_word_embeddings. Written from knowledge of those
 * files; nominal sizes are the model cards' parameter counts. */
static const llm_cfg CFGS[] = {
    /* fam       size    hid   inter hd  kv hdim L   vocab   maxpos eps    theta     tied act  gem cap  fcap swin qs  bias fus nominal */
    {"gemma2", "2b", 2304, 9216, 8, 4, 256, 26, 256000, 8192, 1e-6, 10000.0, 1, ACT_GELU_TANH, 1, 50.0, 30.0, 4096, 256, 0, 0, 2.61},
    {"gemma2", "9b", 3584, 14336, 16, 8, 256, 42, 256000, 8192, 1e-6, 10000.0, 1, ACT_GELU_TANH, 1, 50.0, 30.0, 4096, 256, 0, 0, 9.24},
    {"tinyllama", "1.1b", 2048, 5632, 32, 4, 64, 22, 32000, 2048, 1e-5, 10000.0, 0, ACT_SILU, 0, 0, 0, 0, 0, 0, 0, 1.10},
    {"llama3.2", "1b", 2048, 8192, 32, 8, 64, 16, 128256, 131072, 1e-5, 500000.0, 1, ACT_SILU, 0, 0, 0, 0, 0, 0, 0, 1.24},
    {"llama3.2", "3b", 3072, 8192, 24, 8, 128, 28, 128256, 131072, 1e-5, 500000.0, 1, ACT_SILU, 0, 0, 0, 0, 0, 0, 0, 3.21},
    {"phi3", "3.8b", 3072, 8192, 32, 32, 96, 32, 32064, 4096, 1e-5, 10000.0, 0, ACT_SILU, 0, 0, 0, 0, 0, 0, 1, 3.82},
    {"qwen2", "0.5b", 896, 4864, 14, 2, 64, 24, 151936, 32768, 1e-6, 1000000.0, 1, ACT_SILU, 0, 0, 0, 0, 0, 1, 0, 0.49},
    {"qwen2", "1.5b", 1536, 8960, 12, 2, 128, 28, 151936, 32768, 1e-6, 1000000.0, 1, ACT_SILU, 0, 0, 0, 0, 0, 1, 0, 1.54},
    {"qwen2", "7b", 3584, 18944, 28, 4, 128, 28, 152064, 32768, 1e-6, 1000000.0, 0, ACT_SILU, 0, 0, 0, 0, 0, 1, 0, 7.62},
};
#define N_CFGS ((int)(sizeof CFGS / sizeof CFGS[0]))

static const char *const FAMILIES[] = {"gemma2", "tinyllama", "llama3.2", "phi3", "qwen2", NULL};
static const char *const SIZES_GEMMA2[] = {"2b", "9b", NULL};
static const char *const SIZES_TINYLLAMA[] = {"1.1b", NULL};
static const char *const SIZES_LLAMA32[] = {"1b", "3b", NULL};
static const char *const SIZES_PHI3[] = {"3.8b", NULL};
static const char *const SIZES_QWEN2[] = {"0.5b", "1.5b", "7b", NULL};
static const char *const PRECISIONS[] = {"int4", "int8", "fp16", NULL};

const char *const *pm_gen_llm_families(void) { return FAMILIES; }

const char *const *pm_gen_llm_sizes(const char *family)
{
    if (!family)
        return NULL;
    if (!strcmp(family, "gemma2"))
        return SIZES_GEMMA2;
    if (!strcmp(family, "tinyllama"))
        return SIZES_TINYLLAMA;
    if (!strcmp(family, "llama3.2"))
        return SIZES_LLAMA32;
    if (!strcmp(family, "phi3"))
        return SIZES_PHI3;
    if (!strcmp(family, "qwen2"))
        return SIZES_QWEN2;
    return NULL;
}

static void join_names(char *buf, size_t n, const char *const *names)
{
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; names[i] && off < n; i++)
        off += (size_t)snprintf(buf + off, n - off, "%s%s", i ? ", " : "", names[i]);
}

typedef struct proj {
    pm_val w, s;      /* s: scales (quantised only) */
    int64_t k, n;
    int present;
} proj;

typedef struct layer_w {
    pm_val attn_norm, post_attn_norm, ffn_norm, post_ffn_norm;
    proj q, k, v, o, qkv, gate, up, gate_up, down;
    pm_val bq, bk, bv;
} layer_w;

typedef struct gen_ctx {
    const llm_cfg *c;
    const char *prec;    /* int4 int8 fp16 */
    int64_t S;
    pm_emit e;
    int64_t weight_bytes;
} gen_ctx;

static int is_quant(const gen_ctx *g) { return strcmp(g->prec, "fp16") != 0; }

static proj make_proj(gen_ctx *g, const char *prefix, const char *name, int64_t k, int64_t n)
{
    proj p;
    memset(&p, 0, sizeof p);
    char nm[32];
    p.k = k;
    p.n = n;
    p.present = 1;
    snprintf(nm, sizeof nm, "%%%s%s", prefix, name);
    if (is_quant(g)) {
        int64_t wd[3] = {k / QGROUP, QGROUP, n}, sd[2] = {k / QGROUP, n};
        int int4 = !strcmp(g->prec, "int4");
        p.w = pm_emit_arg(nm, wd, 3, int4 ? "i4" : "i8");
        snprintf(nm, sizeof nm, "%%%s%s_s", prefix, name);
        p.s = pm_emit_arg(nm, sd, 2, "f32");
        g->weight_bytes += (int4 ? k * n / 2 : k * n) + sd[0] * n * 4;
    } else {
        int64_t wd[2] = {k, n};
        p.w = pm_emit_arg(nm, wd, 2, "f16");
        g->weight_bytes += k * n * 2;
    }
    return p;
}

static pm_val make_vec(gen_ctx *g, const char *prefix, const char *name, int64_t n)
{
    char nm[32];
    snprintf(nm, sizeof nm, "%%%s%s", prefix, name);
    g->weight_bytes += n * 4;
    return pm_emit_arg(nm, &n, 1, "f32");
}

static void make_layer(gen_ctx *g, int layer, layer_w *w)
{
    const llm_cfg *c = g->c;
    char px[16];
    snprintf(px, sizeof px, "l%d_", layer);
    memset(w, 0, sizeof *w);
    int64_t D = c->hidden, qd = (int64_t)c->heads * c->head_dim, kvd = (int64_t)c->kv_heads * c->head_dim;
    w->attn_norm = make_vec(g, px, "attn_norm", D);
    if (c->fused)
        w->qkv = make_proj(g, px, "wqkv", D, qd + 2 * kvd);
    else {
        w->q = make_proj(g, px, "wq", D, qd);
        w->k = make_proj(g, px, "wk", D, kvd);
        w->v = make_proj(g, px, "wv", D, kvd);
    }
    if (c->qkv_bias) {
        w->bq = make_vec(g, px, "bq", qd);
        w->bk = make_vec(g, px, "bk", kvd);
        w->bv = make_vec(g, px, "bv", kvd);
    }
    w->o = make_proj(g, px, "wo", qd, D);
    if (c->gemma)
        w->post_attn_norm = make_vec(g, px, "post_attn_norm", D);
    w->ffn_norm = make_vec(g, px, "ffn_norm", D);
    if (c->fused)
        w->gate_up = make_proj(g, px, "wgate_up", D, 2 * (int64_t)c->inter);
    else {
        w->gate = make_proj(g, px, "wgate", D, c->inter);
        w->up = make_proj(g, px, "wup", D, c->inter);
    }
    w->down = make_proj(g, px, "wdown", c->inter, D);
    if (c->gemma)
        w->post_ffn_norm = make_vec(g, px, "post_ffn_norm", D);
}

/* The layer's arguments in signature order. */
static int layer_args(const layer_w *w, pm_val *out)
{
    int n = 0;
    const proj *ps[] = {&w->q, &w->k, &w->v, &w->qkv, &w->o, &w->gate, &w->up, &w->gate_up, &w->down};
    out[n++] = w->attn_norm;
    if (w->post_attn_norm.name[0])
        out[n++] = w->post_attn_norm;
    out[n++] = w->ffn_norm;
    if (w->post_ffn_norm.name[0])
        out[n++] = w->post_ffn_norm;
    if (w->bq.name[0]) {
        out[n++] = w->bq;
        out[n++] = w->bk;
        out[n++] = w->bv;
    }
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        if (!ps[i]->present)
            continue;
        out[n++] = ps[i]->w;
        if (ps[i]->s.name[0])
            out[n++] = ps[i]->s;
    }
    return n;
}
#define MAX_LAYER_ARGS 32

#define MAP2 "affine_map<(d0, d1) -> (d0, d1)>"
#define MAP2_ROW "affine_map<(d0, d1) -> (d0)>"
#define MAP2_COL "affine_map<(d0, d1) -> (d1)>"
#define MAP4 "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>"
#define MAP4_RED "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>"
#define PAR2 "\"parallel\", \"parallel\""
#define PAR3 "\"parallel\", \"parallel\", \"parallel\""
#define PAR4 "\"parallel\", \"parallel\", \"parallel\", \"parallel\""

static pm_val rmsnorm(gen_ctx *g, pm_val x, pm_val w)
{
    pm_emit *e = &g->e;
    int64_t S = g->S, D = g->c->hidden;
    char eps[32], invd[32];
    pm_val ss = pm_emit_filled(e, &S, 1, "f32", "0.0");
    pm_val sq = pm_emit_generic(e, MAP2 ", " MAP2_ROW, "\"parallel\", \"reduction\"", &x, 1, ss,
                                "      %%m = arith.mulf %%b0, %%b0 : f32\n"
                                "      %%a = arith.addf %%m, %%b1 : f32\n"
                                "      linalg.yield %%a : f32\n");
    int64_t sd[2] = {S, D};
    pm_val out = pm_emit_empty(e, sd, 2, "f32");
    pm_val ins[3] = {x, sq, w};
    /* Gemma scales by (1 + w). */
    return pm_emit_generic(e, MAP2 ", " MAP2_ROW ", " MAP2_COL ", " MAP2, PAR2, ins, 3, out,
                           "      %%invd = arith.constant %s : f32\n"
                           "      %%eps = arith.constant %s : f32\n"
                           "      %%mean = arith.mulf %%b1, %%invd : f32\n"
                           "      %%me = arith.addf %%mean, %%eps : f32\n"
                           "      %%r = math.rsqrt %%me : f32\n"
                           "      %%n = arith.mulf %%b0, %%r : f32\n"
                           "%s"
                           "      %%y = arith.mulf %%n, %s : f32\n"
                           "      linalg.yield %%y : f32\n",
                           pm_emit_flit(invd, sizeof invd, 1.0 / (double)D), pm_emit_flit(eps, sizeof eps, g->c->eps),
                           g->c->gemma ? "      %one = arith.constant 1.0 : f32\n"
                                         "      %w = arith.addf %b2, %one : f32\n"
                                       : "",
                           g->c->gemma ? "%w" : "%b2");
}

static pm_val linear(gen_ctx *g, pm_val x, const proj *p)
{
    pm_val w = p->w;
    if (is_quant(g))
        w = pm_emit_dequant(&g->e, p->w, p->s);
    return pm_emit_matmul(&g->e, x, w, g->S, p->n);
}

static pm_val add_bias(gen_ctx *g, pm_val x, pm_val b, int64_t n)
{
    int64_t d[2] = {g->S, n};
    pm_val out = pm_emit_empty(&g->e, d, 2, "f32");
    pm_val ins[2] = {x, b};
    return pm_emit_generic(&g->e, MAP2 ", " MAP2_COL ", " MAP2, PAR2, ins, 2, out,
                           "      %%y = arith.addf %%b0, %%b1 : f32\n      linalg.yield %%y : f32\n");
}

static pm_val add(gen_ctx *g, pm_val a, pm_val b)
{
    int64_t d[2] = {g->S, g->c->hidden};
    pm_val out = pm_emit_empty(&g->e, d, 2, "f32");
    pm_val ins[2] = {a, b};
    return pm_emit_generic(&g->e, MAP2 ", " MAP2 ", " MAP2, PAR2, ins, 2, out,
                           "      %%y = arith.addf %%b0, %%b1 : f32\n      linalg.yield %%y : f32\n");
}

/* Rotary embedding on the two halves (rotate_half convention): lo' = lo*cos - hi*sin, hi' = hi*cos + lo*sin. */
static const char *ROPE_BODY = "      %lc = arith.mulf %b0, %b2 : f32\n"
                               "      %hs = arith.mulf %b1, %b3 : f32\n"
                               "      %lo = arith.subf %lc, %hs : f32\n"
                               "      %hc = arith.mulf %b1, %b2 : f32\n"
                               "      %ls = arith.mulf %b0, %b3 : f32\n"
                               "      %hi = arith.addf %hc, %ls : f32\n"
                               "      linalg.yield %lo, %hi : f32, f32\n";

/* q: S x H*hd, k, v: S x KV*hd → S x H*hd. GQA as KV batches of R*S query rows (R = H/KV). */
static pm_val attention(gen_ctx *g, int layer, pm_val q, pm_val k, pm_val v, pm_val cos, pm_val sin)
{
    pm_emit *e = &g->e;
    const llm_cfg *c = g->c;
    int64_t S = g->S, KV = c->kv_heads, R = c->heads / c->kv_heads, hd = c->head_dim, h2 = hd / 2;

    /* Q: RoPE, written head-major (KV x R x S x hd/2 halves). */
    int64_t qd4[4] = {S, KV, R, hd};
    pm_val q4 = pm_emit_expand(e, q, "[[0], [1, 2, 3]]", qd4, 4);
    int64_t o0[4] = {0, 0, 0, 0}, oh[4] = {0, 0, 0, h2}, half4[4] = {S, KV, R, h2};
    pm_val qlo = pm_emit_extract(e, q4, o0, half4, 4), qhi = pm_emit_extract(e, q4, oh, half4, 4);
    int64_t qo[4] = {KV, R, S, h2};
    pm_val qouts[2] = {pm_emit_empty(e, qo, 4, "f32"), pm_emit_empty(e, qo, 4, "f32")}, qr[2];
    pm_val qins[4] = {qlo, qhi, cos, sin};
    pm_emit_generic_n(e,
                      MAP4 ", " MAP4 ", affine_map<(d0, d1, d2, d3) -> (d0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3)>, "
                           "affine_map<(d0, d1, d2, d3) -> (d1, d2, d0, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d0, d3)>",
                      PAR4, qins, 4, qouts, 2, qr, "%s", ROPE_BODY);
    int64_t qfull[4] = {KV, R, S, hd};
    pm_val qt = pm_emit_empty(e, qfull, 4, "f32");
    int64_t qoh[4] = {0, 0, 0, h2};
    qt = pm_emit_insert(e, qr[0], qt, o0);
    qt = pm_emit_insert(e, qr[1], qt, qoh);
    int64_t qb[3] = {KV, R * S, hd};
    pm_val qbm = pm_emit_collapse(e, qt, "[[0], [1, 2], [3]]", qb, 3);

    /* K: RoPE, written transposed (KV x hd x S) for QKᵀ. */
    int64_t kd3[3] = {S, KV, hd}, o3[3] = {0, 0, 0}, oh3[3] = {0, 0, h2}, half3[3] = {S, KV, h2};
    pm_val k3 = pm_emit_expand(e, k, "[[0], [1, 2]]", kd3, 3);
    pm_val klo = pm_emit_extract(e, k3, o3, half3, 3), khi = pm_emit_extract(e, k3, oh3, half3, 3);
    int64_t ko[3] = {KV, h2, S};
    pm_val kouts[2] = {pm_emit_empty(e, ko, 3, "f32"), pm_emit_empty(e, ko, 3, "f32")}, kr[2];
    pm_val kins[4] = {klo, khi, cos, sin};
    pm_emit_generic_n(e,
                      "affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, "
                      "affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, "
                      "affine_map<(d0, d1, d2) -> (d1, d2, d0)>, affine_map<(d0, d1, d2) -> (d1, d2, d0)>",
                      PAR3, kins, 4, kouts, 2, kr, "%s", ROPE_BODY);
    int64_t kfull[3] = {KV, hd, S}, koh[3] = {0, h2, 0};
    pm_val kt = pm_emit_empty(e, kfull, 3, "f32");
    kt = pm_emit_insert(e, kr[0], kt, o3);
    kt = pm_emit_insert(e, kr[1], kt, koh);

    /* V: KV x S x hd. */
    pm_val v3 = pm_emit_expand(e, v, "[[0], [1, 2]]", kd3, 3);
    int64_t vd[3] = {KV, S, hd};
    pm_val vt = pm_emit_generic(e, "affine_map<(d0, d1, d2) -> (d1, d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>",
                                PAR3, &v3, 1, pm_emit_empty(e, vd, 3, "f32"),
                                "      linalg.yield %%b0 : f32\n");

    /* Scores, scale, soft-cap, causal (and sliding-window) mask. */
    pm_val sc = pm_emit_batch_matmul(e, qbm, kt, KV, R * S, S);
    int64_t s4[4] = {KV, R, S, S};
    pm_val sc4 = pm_emit_expand(e, sc, "[[0], [1, 2], [3]]", s4, 4);
    char scale[32], cap[32], invcap[32], win[64];
    pm_emit_flit(scale, sizeof scale, 1.0 / sqrt((double)(c->query_scalar ? c->query_scalar : c->head_dim)));
    char capbody[320] = "";
    if (c->attn_softcap > 0) {
        pm_emit_flit(cap, sizeof cap, c->attn_softcap);
        pm_emit_flit(invcap, sizeof invcap, 1.0 / c->attn_softcap);
        snprintf(capbody, sizeof capbody,
                 "      %%cap = arith.constant %s : f32\n"
                 "      %%icap = arith.constant %s : f32\n"
                 "      %%sd = arith.mulf %%s, %%icap : f32\n"
                 "      %%th = math.tanh %%sd : f32\n"
                 "      %%c = arith.mulf %%th, %%cap : f32\n", cap, invcap);
    }
    int sliding = c->sliding_window > 0 && layer % 2 == 0 && S > c->sliding_window;
    if (sliding)
        snprintf(win, sizeof win, "%d", c->sliding_window);
    pm_val masked = pm_emit_generic(e, MAP4 ", " MAP4, PAR4, &sc4, 1, pm_emit_empty(e, s4, 4, "f32"),
        "      %%neg = arith.constant -3.000000000e+38 : f32\n"
        "      %%scale = arith.constant %s : f32\n"
        "      %%s = arith.mulf %%b0, %%scale : f32\n"
        "%s"
        "      %%i = linalg.index 2 : index\n"
        "      %%j = linalg.index 3 : index\n"
        "      %%future = arith.cmpi ugt, %%j, %%i : index\n"
        "%s%s%s"
        "      %%y = arith.select %s, %%neg, %s : f32\n"
        "      linalg.yield %%y : f32\n",
        scale, capbody,
        sliding ? "      %dist = arith.subi %i, %j : index\n      %w = arith.constant " : "",
        sliding ? win : "",
        sliding ? " : index\n      %far = arith.cmpi uge, %dist, %w : index\n"
                  "      %m = arith.ori %future, %far : i1\n"
                : "",
        sliding ? "%m" : "%future", c->attn_softcap > 0 ? "%c" : "%s");

    /* Softmax over the key axis. */
    int64_t s3[3] = {KV, R, S};
    pm_val mx = pm_emit_generic(e, MAP4 ", " MAP4_RED, "\"parallel\", \"parallel\", \"parallel\", \"reduction\"",
                                &masked, 1, pm_emit_filled(e, s3, 3, "f32", "-3.400000000e+38"),
                                "      %%y = arith.maximumf %%b0, %%b1 : f32\n      linalg.yield %%y : f32\n");
    pm_val exins[2] = {masked, mx};
    pm_val ex = pm_emit_generic(e, MAP4 ", " MAP4_RED ", " MAP4, PAR4, exins, 2, pm_emit_empty(e, s4, 4, "f32"),
                                "      %%d = arith.subf %%b0, %%b1 : f32\n"
                                "      %%y = math.exp %%d : f32\n      linalg.yield %%y : f32\n");
    pm_val sum = pm_emit_generic(e, MAP4 ", " MAP4_RED, "\"parallel\", \"parallel\", \"parallel\", \"reduction\"",
                                 &ex, 1, pm_emit_filled(e, s3, 3, "f32", "0.0"),
                                 "      %%y = arith.addf %%b0, %%b1 : f32\n      linalg.yield %%y : f32\n");
    pm_val pins[2] = {ex, sum};
    pm_val p = pm_emit_generic(e, MAP4 ", " MAP4_RED ", " MAP4, PAR4, pins, 2, pm_emit_empty(e, s4, 4, "f32"),
                               "      %%y = arith.divf %%b0, %%b1 : f32\n      linalg.yield %%y : f32\n");
    int64_t p3[3] = {KV, R * S, S};
    pm_val p3v = pm_emit_collapse(e, p, "[[0], [1, 2], [3]]", p3, 3);

    /* P·V, back to token-major S x H*hd. */
    pm_val ctx = pm_emit_batch_matmul(e, p3v, vt, KV, R * S, hd);
    int64_t c4[4] = {KV, R, S, hd};
    pm_val ctx4 = pm_emit_expand(e, ctx, "[[0], [1, 2], [3]]", c4, 4);
    int64_t t4[4] = {S, KV, R, hd};
    pm_val tok = pm_emit_generic(e, "affine_map<(d0, d1, d2, d3) -> (d1, d2, d0, d3)>, " MAP4, PAR4, &ctx4, 1,
                                 pm_emit_empty(e, t4, 4, "f32"), "      linalg.yield %%b0 : f32\n");
    int64_t out2[2] = {S, (int64_t)c->heads * hd};
    return pm_emit_collapse(e, tok, "[[0], [1, 2, 3]]", out2, 2);
}

static pm_val mlp(gen_ctx *g, pm_val h, const layer_w *w)
{
    pm_emit *e = &g->e;
    const llm_cfg *c = g->c;
    int64_t S = g->S, I = c->inter;
    pm_val gate, up;
    if (c->fused) {
        pm_val gu = linear(g, h, &w->gate_up);
        int64_t o0[2] = {0, 0}, o1[2] = {0, I}, sz[2] = {S, I};
        gate = pm_emit_extract(e, gu, o0, sz, 2);
        up = pm_emit_extract(e, gu, o1, sz, 2);
    } else {
        gate = linear(g, h, &w->gate);
        up = linear(g, h, &w->up);
    }
    int64_t d[2] = {S, I};
    pm_val ins[2] = {gate, up};
    pm_val a;
    if (c->act == ACT_GELU_TANH) /* gelu_pytorch_tanh: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
        a = pm_emit_generic(e, MAP2 ", " MAP2 ", " MAP2, PAR2, ins, 2, pm_emit_empty(e, d, 2, "f32"),
                            "      %%half = arith.constant 0.5 : f32\n"
                            "      %%one = arith.constant 1.0 : f32\n"
                            "      %%k0 = arith.constant 7.978845608e-01 : f32\n"
                            "      %%k1 = arith.constant 4.471500000e-02 : f32\n"
                            "      %%x2 = arith.mulf %%b0, %%b0 : f32\n"
                            "      %%x3 = arith.mulf %%x2, %%b0 : f32\n"
                            "      %%c3 = arith.mulf %%x3, %%k1 : f32\n"
                            "      %%in = arith.addf %%b0, %%c3 : f32\n"
                            "      %%sc = arith.mulf %%in, %%k0 : f32\n"
                            "      %%t = math.tanh %%sc : f32\n"
                            "      %%t1 = arith.addf %%t, %%one : f32\n"
                            "      %%hx = arith.mulf %%b0, %%half : f32\n"
                            "      %%ge = arith.mulf %%hx, %%t1 : f32\n"
                            "      %%y = arith.mulf %%ge, %%b1 : f32\n"
                            "      linalg.yield %%y : f32\n");
    else /* SiLU(gate) * up */
        a = pm_emit_generic(e, MAP2 ", " MAP2 ", " MAP2, PAR2, ins, 2, pm_emit_empty(e, d, 2, "f32"),
                            "      %%one = arith.constant 1.0 : f32\n"
                            "      %%n = arith.negf %%b0 : f32\n"
                            "      %%ex = math.exp %%n : f32\n"
                            "      %%den = arith.addf %%ex, %%one : f32\n"
                            "      %%si = arith.divf %%b0, %%den : f32\n"
                            "      %%y = arith.mulf %%si, %%b1 : f32\n"
                            "      linalg.yield %%y : f32\n");
    return linear(g, a, &w->down);
}

static pm_val layer_body(gen_ctx *g, int layer, pm_val x, pm_val cos, pm_val sin, const layer_w *w)
{
    pm_emit *e = &g->e;
    const llm_cfg *c = g->c;
    int64_t S = g->S, qd = (int64_t)c->heads * c->head_dim, kvd = (int64_t)c->kv_heads * c->head_dim;
    pm_val h = rmsnorm(g, x, w->attn_norm);
    pm_val q, k, v;
    if (c->fused) {
        pm_val qkv = linear(g, h, &w->qkv);
        int64_t oq[2] = {0, 0}, ok[2] = {0, qd}, ov[2] = {0, qd + kvd}, sq[2] = {S, qd}, skv[2] = {S, kvd};
        q = pm_emit_extract(e, qkv, oq, sq, 2);
        k = pm_emit_extract(e, qkv, ok, skv, 2);
        v = pm_emit_extract(e, qkv, ov, skv, 2);
    } else {
        q = linear(g, h, &w->q);
        k = linear(g, h, &w->k);
        v = linear(g, h, &w->v);
    }
    if (c->qkv_bias) {
        q = add_bias(g, q, w->bq, qd);
        k = add_bias(g, k, w->bk, kvd);
        v = add_bias(g, v, w->bv, kvd);
    }
    pm_val att = attention(g, layer, q, k, v, cos, sin);
    pm_val o = linear(g, att, &w->o);
    if (c->gemma)
        o = rmsnorm(g, o, w->post_attn_norm);
    x = add(g, x, o);
    h = rmsnorm(g, x, w->ffn_norm);
    pm_val m = mlp(g, h, w);
    if (c->gemma)
        m = rmsnorm(g, m, w->post_ffn_norm);
    return add(g, x, m);
}

static int64_t param_count(const llm_cfg *c)
{
    int64_t D = c->hidden, qd = (int64_t)c->heads * c->head_dim, kvd = (int64_t)c->kv_heads * c->head_dim;
    int64_t per = D * qd + 2 * D * kvd + qd * D + 3 * D * (int64_t)c->inter + (c->gemma ? 4 : 2) * D;
    if (c->qkv_bias)
        per += qd + 2 * kvd;
    int64_t emb = (int64_t)c->vocab * D;
    return emb * (c->tied ? 1 : 2) + per * c->layers + D;
}

static void sig(pm_emit *e, const char *name, const pm_val *fixed, int n_fixed, const pm_val *args, int n_args,
                const char *ret, int private_)
{
    pm_emit_printf(e, "  func.func %s@%s(", private_ ? "private " : "", name);
    for (int i = 0; i < n_fixed; i++)
        pm_emit_arg_decl(e, &fixed[i], i == n_fixed - 1 && n_args == 0);
    for (int i = 0; i < n_args; i++)
        pm_emit_arg_decl(e, &args[i], i == n_args - 1);
    pm_emit_printf(e, ") -> %s {\n", ret);
}

/* The family's config and the precision opts name, each checked (window, layers) against the model. */
static int llm_config(const pm_workload *opts, const llm_cfg **cfg, const char **precision, pm_err *err)
{
    char list[256];
    if (!opts || !opts->family)
        return pm_err_set(err, PM_ERR_USAGE, "no family given (one of: gemma2, tinyllama, llama3.2, phi3, qwen2)");
    const char *const *sizes = pm_gen_llm_sizes(opts->family);
    if (!sizes) {
        join_names(list, sizeof list, FAMILIES);
        return pm_err_set(err, PM_ERR_USAGE, "unknown LLM family '%s' (one of: %s)", opts->family, list);
    }
    const char *size = opts->size ? opts->size : sizes[0];
    const llm_cfg *c = NULL;
    for (int i = 0; i < N_CFGS; i++)
        if (!strcmp(CFGS[i].family, opts->family) && !strcmp(CFGS[i].size, size))
            c = &CFGS[i];
    if (!c) {
        join_names(list, sizeof list, sizes);
        return pm_err_set(err, PM_ERR_USAGE, "unknown size '%s' for %s (one of: %s)", size, opts->family, list);
    }
    const char *prec = NULL;
    for (int i = 0; PRECISIONS[i]; i++)
        if (opts->precision && !strcmp(opts->precision, PRECISIONS[i]))
            prec = PRECISIONS[i];
    if (!prec) {
        join_names(list, sizeof list, PRECISIONS);
        return pm_err_set(err, PM_ERR_USAGE, "unknown precision '%s' (one of: %s)",
                          opts->precision ? opts->precision : "(none)", list);
    }
    if (opts->window < 1 || opts->window > c->max_pos)
        return pm_err_set(err, PM_ERR_USAGE, "window %d out of range for %s-%s (1..%d, max_position_embeddings)",
                          opts->window, c->family, c->size, c->max_pos);
    if (opts->layers < 0 || opts->layers > c->layers)
        return pm_err_set(err, PM_ERR_USAGE, "layers %d out of range for %s-%s (0 = all, 1..%d)", opts->layers,
                          c->family, c->size, c->layers);
    *cfg = c;
    *precision = prec;
    return PM_OK;
}

int pm_gen_llm(const pm_workload *opts, FILE *out, pm_gen_info *info, pm_err *err)
{
    const llm_cfg *c = NULL;
    const char *prec = NULL;
    int rc = llm_config(opts, &c, &prec, err);
    if (rc)
        return rc;
    int nl = opts->layers ? opts->layers : c->layers;

    gen_ctx *g = calloc(1, sizeof *g);
    layer_w *lw = calloc((size_t)nl, sizeof *lw);
    pm_val *all = calloc((size_t)nl * MAX_LAYER_ARGS, sizeof *all);
    int *n_layer = calloc((size_t)nl, sizeof *n_layer);
    if (!g || !lw || !all || !n_layer) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    g->c = c;
    g->prec = prec;
    g->S = opts->window;
    pm_emit_init(&g->e, out);
    pm_emit *e = &g->e;

    int64_t S = g->S, D = c->hidden, h2 = c->head_dim / 2;
    int64_t xd[2] = {S, D}, rd[2] = {S, h2};
    pm_val fixed[3] = {pm_emit_arg("%x", xd, 2, "f32"), pm_emit_arg("%rope_cos", rd, 2, "f32"),
                       pm_emit_arg("%rope_sin", rd, 2, "f32")};
    int n_all = 0;
    for (int l = 0; l < nl; l++) {
        make_layer(g, l, &lw[l]);
        n_layer[l] = layer_args(&lw[l], all + n_all);
        n_all += n_layer[l];
    }
    pm_val fnorm = make_vec(g, "", "final_norm", D);
    all[n_all++] = fnorm;
    char xt[128];
    memcpy(xt, fixed[0].type, sizeof xt);

    pm_emit_printf(e, "// %s-%s decoder prefill: window %lld, %s weights, %d of %d layers%s; embedding and LM head "
                      "omitted\nmodule {\n",
                   c->family, c->size, (long long)S, prec, nl, c->layers, opts->func_per_layer ? ", one func per layer" : "");
    int functions = 1;
    if (opts->func_per_layer) {
        int off = 0;
        for (int l = 0; l < nl; l++) {
            char fn[32];
            snprintf(fn, sizeof fn, "layer_%d", l);
            sig(e, fn, fixed, 3, all + off, n_layer[l], xt, 1);
            pm_val y = layer_body(g, l, fixed[0], fixed[1], fixed[2], &lw[l]);
            pm_emit_printf(e, "    return %s : %s\n  }\n", y.name, y.type);
            off += n_layer[l];
            functions++;
        }
    }
    sig(e, "forward", fixed, 3, all, n_all, xt, 0);
    pm_val x = fixed[0];
    int off = 0;
    for (int l = 0; l < nl; l++) {
        if (opts->func_per_layer) {
            pm_val y;
            snprintf(y.name, sizeof y.name, "%%v%d", e->next_id++);
            memcpy(y.type, xt, sizeof y.type);
            pm_emit_printf(e, "    %s = func.call @layer_%d(%s, %s, %s", y.name, l, x.name, fixed[1].name, fixed[2].name);
            for (int i = 0; i < n_layer[l]; i++)
                pm_emit_printf(e, ", %s", all[off + i].name);
            pm_emit_printf(e, ") : (%s, %s, %s", x.type, fixed[1].type, fixed[2].type);
            for (int i = 0; i < n_layer[l]; i++)
                pm_emit_printf(e, ", %s", all[off + i].type);
            pm_emit_printf(e, ") -> %s\n", xt);
            x = y;
        } else
            x = layer_body(g, l, x, fixed[1], fixed[2], &lw[l]);
        off += n_layer[l];
    }
    x = rmsnorm(g, x, fnorm);
    pm_emit_printf(e, "    return %s : %s\n  }\n}\n", x.name, x.type);
    if (e->failed || ferror(out)) {
        rc = pm_err_errno(err, PM_ERR_IO, "writing the MLIR module");
        goto cleanup;
    }
    if (info) {
        memset(info, 0, sizeof *info);
        info->params = param_count(c);
        info->weight_bytes = g->weight_bytes;
        info->layers_total = c->layers;
        info->layers_emitted = nl;
        info->linalg_ops = e->linalg_ops;
        info->functions = functions;
    }
cleanup:
    pm_free_all(n_layer, all, lw, g);
    return rc;
}

/* ---- the kind's row (kinds.h): what the spec, the back ends and the report know of an LLM ---- */

/* The longest LLM family and size a [llm] section's FAMILY:SIZE splits into (with the terminator). */
#define FAMILY_MAX 32
#define SIZE_MAX_LEN 16

/* Beyond one tile the tile loops unroll: about 2.5x more ops per doubling of window / tile
 * (studies/embedded-llm-measurements.md). */
static double grow_llm(const pm_workload *w, int tile)
{
    return tile > 0 && w->window > tile ? pow((double)w->window / tile, 1.3) : 1;
}

static char *section_llm(const pm_workload *w, const char *name, int size_cap, int depth_cap)
{
    char *s = NULL;
    return asprintf(&s, "[llm %s]\nmodels = %s:%s\nwindows = %d\nprecisions = %s\nlayers = %d\n", name, w->family,
                    w->size, pm_kind_capped(w->window, size_cap), w->precision, pm_kind_capped(w->layers, depth_cap)) < 0 ? NULL : s;
}

/* [llm NAME] models (FAMILY:SIZE ...), windows, precisions, layers: a config per model, window and precision. */
static int expand_llm(const pm_kind_reader *r, pm_err *err)
{
    char mwhat[192], wwhat[192], pwhat[192], names[512];
    int nm, nw, np, layers, rc;
    const char *const *models = r->list(r->user, "models", &nm, mwhat, sizeof mwhat);
    const char *const *windows = r->list(r->user, "windows", &nw, wwhat, sizeof wwhat);
    const char *const *precisions = r->list(r->user, "precisions", &np, pwhat, sizeof pwhat);
    if (nm < 0 || nw < 0 || np < 0)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    if ((rc = r->number(r->user, "layers", 0, 1000, 1, &layers, err)))
        return rc;
    if (!nm || !nw || !np)
        return pm_err_set(err, PM_ERR_USAGE, "[%s] needs models, windows and precisions", r->section);
    if ((rc = r->check_size(r->user, (long long)nm * nw * np, err)))
        return rc;
    for (int m = 0; m < nm; m++) {
        const char *colon = strchr(models[m], ':');
        if (!colon)
            return pm_err_set(err, PM_ERR_USAGE, "%s: '%s' is not FAMILY:SIZE", mwhat, models[m]);
        char family[FAMILY_MAX], size[SIZE_MAX_LEN];
        if ((size_t)(colon - models[m]) >= sizeof family)
            return pm_err_set(err, PM_ERR_USAGE, "family: value too long (max %zu)", sizeof family - 1);
        if (strlen(colon + 1) >= sizeof size)
            return pm_err_set(err, PM_ERR_USAGE, "size: value too long (max %zu)", sizeof size - 1);
        snprintf(family, sizeof family, "%.*s", (int)(colon - models[m]), models[m]);
        snprintf(size, sizeof size, "%s", colon + 1);
        const char *const *sizes = pm_gen_llm_sizes(family);
        if (!sizes) {
            pm_kind_join(pm_gen_llm_families(), names, sizeof names);
            return pm_err_set(err, PM_ERR_USAGE, "%s: unknown LLM family '%s' (%s)", mwhat, family, names);
        }
        if (!pm_kind_in_list(size, sizes)) {
            pm_kind_join(sizes, names, sizeof names);
            return pm_err_set(err, PM_ERR_USAGE, "%s: %s has no size '%s' (%s)", mwhat, family, size, names);
        }
        for (int w = 0; w < nw; w++) {
            int window;
            if ((rc = pm_kind_parse_int(windows[w], 1, 1 << 20, &window, err, wwhat)))
                return rc;
            for (int p = 0; p < np; p++) {
                if ((rc = pm_kind_check_precision(precisions[p], err, pwhat)))
                    return rc;
                pm_workload wl = {.family = family, .size = size, .precision = precisions[p], .window = window,
                                  .layers = layers};
                char stem[512];
                snprintf(stem, sizeof stem, "llm/%s/%s/w%d/%s/L%d", family, size, window, precisions[p], layers);
                if ((rc = r->add(r->user, &wl, stem, err)))
                    return rc;
            }
        }
    }
    return PM_OK;
}

/* A model's compile grows with its size and window; families are what a user compares at equal compile
 * time. The fingerprint holds window and precision fixed and shows every (family, size). */
const pm_kind pm_kind_llm = {
    .name = "llm", .label = "LLM",
    .key_legend = "llm/FAMILY/SIZE/wWINDOW/PRECISION/LLAYERS/VARIANT: w128 = a 128-token prompt window, "
                  "L1 = 1 decoder layer emitted",
    .handoff_x = "wall", .series = "family", .bars = "family,size",
    .prefer = {{"precision", "int8"}}, .figure = "fingerprint", .regime_rows = "size", .regime_cols = "window",
    .slice = "precision", .rows_label = "model size (parameters)", .cols_label = "window (prompt tokens)",
    .regime_figure = "regime-map", .precision_study = 1,
    .axes = "family,size,window,precision,layers", .depth_axis = "layers", .emit = pm_gen_llm, .grow = grow_llm,
    .spec_section = section_llm, .size_axis = "window", .families = pm_gen_llm_families,
    .sizes = pm_gen_llm_sizes, .npuw = 1,
    .section_keys = "models,windows,precisions,variants,layers", .expand = expand_llm,
};
