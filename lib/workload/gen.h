/* pm_gen: workloads as MLIR (linalg on tensors) for the embedded compiler, with the real architecture
 * hyperparameters of each model family. */
#ifndef PM_GEN_H
#define PM_GEN_H

#include <stdint.h>
#include <stdio.h>
#include "error.h"

typedef struct pm_llm_opts {
    const char *family;     /* gemma2, tinyllama, llama3.2, phi3, qwen2 */
    const char *size;       /* e.g. "0.5b", "1.5b", "7b"; NULL: the family's first size */
    int window;             /* prompt tokens (sequence length of the prefill) */
    const char *precision;  /* int4, int8, fp16 */
    int layers;             /* decoder layers emitted; 0: the model's real count */
    int func_per_layer;     /* 1: one func.func per layer, called from @forward */
} pm_llm_opts;

typedef struct pm_cnn_opts {
    const char *family;     /* resnet18 ... convnext */
    int resolution;         /* input H = W in pixels */
    const char *precision;
    int blocks;             /* 0: all; else emit only the first N blocks/stages units */
} pm_cnn_opts;

typedef struct pm_gen_info {
    int64_t params;         /* parameters of the real model (all layers) */
    int64_t weight_bytes;   /* bytes of the weights emitted (after layer reduction) */
    int layers_total;       /* the model's real layer count */
    int layers_emitted;
    int linalg_ops;         /* linalg ops emitted */
    int functions;
} pm_gen_info;

int pm_gen_llm(const pm_llm_opts *opts, FILE *out, pm_gen_info *info, pm_err *err);
int pm_gen_cnn(const pm_cnn_opts *opts, FILE *out, pm_gen_info *info, pm_err *err);
/* PM_OK when pm_gen_cnn accepts this input resolution, else PM_ERR_USAGE saying which it accepts. */
int pm_gen_cnn_check_resolution(int resolution, pm_err *err);

/* Lists known names (NULL-terminated static arrays). */
const char *const *pm_gen_llm_families(void);
const char *const *pm_gen_llm_sizes(const char *family);   /* NULL when the family is unknown */
const char *const *pm_gen_cnn_families(void);

#endif
