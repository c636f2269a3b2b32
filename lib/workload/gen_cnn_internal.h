/* What the CNN generator's files share: its value and generator state (gen_cnn_ops.c emits the layers;
 * gen_cnn.c builds each family from them and is the kind's row). Not for use outside lib/workload. */
#ifndef PM_GEN_CNN_INTERNAL_H
#define PM_GEN_CNN_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "gen_emit.h"

enum prec { P_FP16, P_INT8, P_INT4 };
enum act { A_NONE, A_RELU, A_RELU6, A_SILU, A_HSWISH, A_HSIG, A_SIGMOID, A_GELU };

/* An activation value: tensor<1 x c x h x w x f32>, SSA name %v<id> (id < 0: the input %x). */
typedef struct tv {
    int id;
    int c, h, w;
} tv;

typedef struct gen {
    pm_emit body, args; /* the function's body (its %vN counter, its linalg op count) and argument list */
    char *body_buf, *args_buf;
    size_t body_len, args_len;
    int nargs;
    enum prec prec;
    int blocks;        /* units to emit; 0: all */
    int unit;          /* current unit index */
    bool emit;
    tv out;            /* last value of the last emitted unit */
    bool have_out;
    int64_t params, weight_bytes;
    int layers_total, layers_emitted;
} gen;

/* An activation's SSA name and type (%x for the input, %v<id> else). */
pm_val pm_cnn_val(tv t);
/* Inference BatchNorm (scale/shift per channel) + activation: used where BN precedes the conv (DenseNet). */
tv pm_cnn_bn_act(gen *g, tv x, enum act a);
/* y = act(a + b), or y = a * b when mul (b broadcast per channel when b is 1x1 spatial). */
tv pm_cnn_binary(gen *g, tv a, tv b, bool mul, enum act act);
/* Convolution + bias (folded BN when bn, else a real bias when has_bias, else none) + activation.
 * groups == cin == cout: depthwise. */
tv pm_cnn_conv(gen *g, tv x, int cout, int k, int stride, int p, int groups, bool bn, bool has_bias, enum act a);
/* The common case: conv + folded BN + activation, "same" padding. */
tv pm_cnn_conv_bn(gen *g, tv x, int cout, int k, int stride, enum act a);
tv pm_cnn_pool(gen *g, tv x, int k, int stride, int p, bool max);
tv pm_cnn_global_avg(gen *g, tv x);
/* LayerNorm over channels at every pixel (ConvNeXt's channels-first LayerNorm), eps 1e-6, gamma/beta. */
tv pm_cnn_layer_norm(gen *g, tv x);
/* y = x * gamma[c] (ConvNeXt layer scale). */
tv pm_cnn_layer_scale(gen *g, tv x);
/* Channel concatenation by tensor.insert_slice into a tensor.empty. */
tv pm_cnn_concat(gen *g, const tv *parts, int n);
/* Classifier: (optional LayerNorm), global average pool, flatten, linear with bias. Returns 1 x n x 1 x 1. */
tv pm_cnn_classifier(gen *g, tv x, int n, bool pool_first);
void pm_cnn_begin_unit(gen *g);
void pm_cnn_end_unit(gen *g, tv x);

#endif
