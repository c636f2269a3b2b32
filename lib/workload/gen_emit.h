/* pm_emit: small helpers that print MLIR (linalg on tensors, arith, math, tensor, func) as text.
 * Shared by the workload generators (gen_llm.c, gen_cnn.c). Values are named SSA strings; every helper
 * returns the result value (name + tensor type). Write errors are sticky (pm_emit.failed). */
#ifndef PM_GEN_EMIT_H
#define PM_GEN_EMIT_H

#include <stdint.h>
#include <stdio.h>

#define PM_EMIT_MAX_RANK 6

typedef struct pm_val {
    char name[32];       /* "%v12", "%v3#1", "%arg_wq" */
    char type[128];      /* "tensor<256x896xf32>" */
} pm_val;

typedef struct pm_emit {
    FILE *out;
    int next_id;         /* next %vN */
    int linalg_ops;      /* linalg ops printed so far (generic, matmul, batch_matmul, fill, conv...) */
    int failed;          /* a write failed */
} pm_emit;

void pm_emit_init(pm_emit *e, FILE *out);
/* printf to the output with two-space indentation of function bodies done by the caller. */
void pm_emit_printf(pm_emit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Formats "tensor<d0xd1x...xELT>" into buf. */
char *pm_emit_ttype(char *buf, size_t n, const int64_t *dims, int rank, const char *elt);
/* A value named NAME (e.g. a function argument "%w0") with the given shape. */
pm_val pm_emit_arg(const char *name, const int64_t *dims, int rank, const char *elt);
/* "%w0: tensor<...>" for a func signature. */
void pm_emit_arg_decl(pm_emit *e, const pm_val *v, int last);
/* Parses the dims of v->type back (returns rank, or -1). */
int pm_emit_dims(const pm_val *v, int64_t dims[PM_EMIT_MAX_RANK], char *elt, size_t eltn);

/* tensor.empty() of the given shape. */
pm_val pm_emit_empty(pm_emit *e, const int64_t *dims, int rank, const char *elt);
/* linalg.fill of a new empty tensor with a float literal (e.g. "0.0", "-3.0e+38"). */
pm_val pm_emit_filled(pm_emit *e, const int64_t *dims, int rank, const char *elt, const char *literal);

/* linalg.generic with ins/outs. maps: comma-separated affine_map<...> list (inputs then outputs);
 * iters: e.g. "\"parallel\", \"reduction\"". Body: block args are %b0.. (ins then outs) of the element
 * types given in the values; body_fmt prints the ops and must end with linalg.yield.
 * n_outs > 1 gives a multi-result op: results are RES#0, RES#1 ... (returned in results[]). */
void pm_emit_generic_n(pm_emit *e, const char *maps, const char *iters, const pm_val *ins, int n_ins,
                       const pm_val *outs, int n_outs, pm_val *results, const char *body_fmt, ...)
    __attribute__((format(printf, 9, 10)));
pm_val pm_emit_generic(pm_emit *e, const char *maps, const char *iters, const pm_val *ins, int n_ins,
                       pm_val out, const char *body_fmt, ...) __attribute__((format(printf, 7, 8)));

/* C[MxN] = A[MxK] * B[KxN] (B may be of another element type: mixed-type matmul, extended to f32). */
pm_val pm_emit_matmul(pm_emit *e, pm_val a, pm_val b, int64_t m, int64_t n);
/* C[BxMxN] = A[BxMxK] * B[BxKxN]. */
pm_val pm_emit_batch_matmul(pm_emit *e, pm_val a, pm_val b, int64_t batch, int64_t m, int64_t n);
/* Group-symmetric dequantisation: w tensor<G x GS x N x iB>, scales tensor<G x N x f32> → tensor<(G*GS) x N x f32>
 * (linalg.generic extsi → sitofp → mulf, then collapse_shape). */
pm_val pm_emit_dequant(pm_emit *e, pm_val w, pm_val scales);

/* tensor.expand_shape / collapse_shape; reassoc like "[[0], [1, 2]]". */
pm_val pm_emit_expand(pm_emit *e, pm_val x, const char *reassoc, const int64_t *dims, int rank);
pm_val pm_emit_collapse(pm_emit *e, pm_val x, const char *reassoc, const int64_t *dims, int rank);
/* tensor.extract_slice with static offsets and sizes (unit strides). */
pm_val pm_emit_extract(pm_emit *e, pm_val x, const int64_t *offsets, const int64_t *sizes, int rank);
/* tensor.insert_slice of src into dest at offsets (unit strides); returns the new dest. */
pm_val pm_emit_insert(pm_emit *e, pm_val src, pm_val dest, const int64_t *offsets);

/* Prints an identity affine map of the given rank ("affine_map<(d0, d1) -> (d0, d1)>"). */
char *pm_emit_identity_map(char *buf, size_t n, int rank);
/* Float literal MLIR accepts (%.9e). */
char *pm_emit_flit(char *buf, size_t n, double v);

#endif
