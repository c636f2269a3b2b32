/* pm_gen: workloads as MLIR (linalg on tensors) for the embedded compiler, with the real architecture
 * hyperparameters of each model family. */
#ifndef PM_GEN_H
#define PM_GEN_H

#include <stdint.h>
#include <stdio.h>
#include "error.h"

/* A workload config's model fields: declared here only. The generators take them (each kind row's emit); the
 * spec's configs carry them as parameters (kinds.h: pm_workload_of decodes them), the store's config carries
 * them for its columns and the analysis's config keeps them. Strings belong to whoever fills the struct
 * (borrowed from a config's parameters, or owned: pm_workload_copy / pm_workload_clear). */
typedef struct pm_workload {
    const char *family;     /* LLM: gemma2, tinyllama, llama3.2, phi3, qwen2; CNN: resnet18 ... convnext */
    const char *size;       /* LLM: e.g. "0.5b", "1.5b", "7b" (NULL: the family's first); NULL for a CNN */
    const char *precision;  /* int4, int8, fp16 */
    int window;             /* LLM prompt tokens (sequence length of the prefill) */
    int resolution;         /* CNN input H = W in pixels */
    int layers, blocks;     /* depth emitted: LLM decoder layers (0: the model's real count) / CNN blocks
                             * (0: all; else the first N blocks/stages units) */
    int func_per_layer;     /* LLM: one func.func per layer, called from @forward. Not a model field (never a
                             * parameter): the per-layer variant's emission */
} pm_workload;

typedef struct pm_gen_info {
    int64_t params;         /* parameters of the real model (all layers) */
    int64_t weight_bytes;   /* bytes of the weights emitted (after layer reduction) */
    int layers_total;       /* the model's real layer count */
    int layers_emitted;
    int linalg_ops;         /* linalg ops emitted */
    int functions;
} pm_gen_info;

/* An LLM's family, size, window, precision, layers and func_per_layer; a CNN's family, resolution, precision
 * and blocks (the other fields are not read). */
int pm_gen_llm(const pm_workload *opts, FILE *out, pm_gen_info *info, pm_err *err);
int pm_gen_cnn(const pm_workload *opts, FILE *out, pm_gen_info *info, pm_err *err);
/* PM_OK when pm_gen_cnn accepts this input resolution, else PM_ERR_USAGE saying which it accepts. */
int pm_gen_cnn_check_resolution(int resolution, pm_err *err);

/* Lists known names (NULL-terminated static arrays). */
const char *const *pm_gen_llm_families(void);
const char *const *pm_gen_llm_sizes(const char *family);   /* NULL when the family is unknown */
const char *const *pm_gen_cnn_families(void);

#endif
