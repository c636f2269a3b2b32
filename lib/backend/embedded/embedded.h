/* pm_embedded: the embedded compiler back end, upstream MLIR/LLVM (mlir-opt → mlir-translate → llc),
 * with a tiling + full-unroll pipeline so compile cost grows with model size and window
 * (the pipeline is the INI preset in embedded.c; docs/spec.md documents its options). */
#ifndef PM_EMBEDDED_H
#define PM_EMBEDDED_H

#include <signal.h>
#include "backend.h"
#include "error.h"
#include "spec.h"

typedef struct pm_embedded_opts {
    const char *bindir;      /* NULL: $PASSMAP_LLVM_BINDIR, then the newest /usr/lib/llvm-N/bin with mlir-opt, then PATH */
    int tile;                /* affine-loop-tile size; 0: 256 */
    int unroll;              /* unroll-full-threshold; 0: 16 */
    int no_rollback;         /* back end with allow-pattern-rollback=0 */
    int single_thread;       /* --mlir-disable-threading */
    const char *display;     /* "tree" (default) or "list" */
    int json;                /* --mlir-output-format=json */
    int llc_opt;             /* llc -O level; 0..3, default 2 (use -1 for default) */
    int timing_twins;        /* each step names its timing flags (--mlir-timing..., -time-passes): twin runs */
} pm_embedded_opts;

/* The [embedded] section (the embedded back end's own; the openvino back end reads its tile/unroll as the
 * matrix sections' defaults): tile 256, unroll 16, llc_opt 2, display tree when absent. */
typedef struct pm_embedded_spec {
    int tile, unroll, json, single_thread, llc_opt;
    int timing_twins;        /* timing_twins = yes: each cold run gets a twin without the timing flags */
    char display[8];
    char bindir[512];
} pm_embedded_spec;

struct pm_spec;
struct pm_spec_entries;
/* Reads the [embedded] entries of es into *out (marking them used): errors name the line. */
int pm_embedded_spec_parse(struct pm_spec_entries *es, pm_embedded_spec *out, pm_err *err);
/* The [embedded] settings of a spec the embedded back end parsed. */
const pm_embedded_spec *pm_embedded_spec_of(const struct pm_spec *s);
/* The pipeline keys every workload section takes (the openvino back end's sections too): tile and unroll, in
 * [1, 65536], [embedded]'s values their defaults. The configs carry them as parameters (spec.h: pm_spec_pipe). */
pm_spec_pipe pm_embedded_pipe(const pm_embedded_spec *es);
/* A workload config's tile / unroll, read back from its parameters (0: it has none). */
int pm_embedded_config_tile(const pm_spec_config *c);
int pm_embedded_config_unroll(const pm_spec_config *c);

typedef struct pm_embedded_tools {
    char bindir[512];
    char mlir_opt[600], mlir_translate[600], llc[600];
    char version[64];        /* e.g. "22.1.8" */
} pm_embedded_tools;

int pm_embedded_find_tools(const char *bindir, pm_embedded_tools *tools, pm_err *err);
/* The three steps that compile input_mlir inside workdir (outputs: out.mlirbc, out.ll, out.o). */
int pm_embedded_steps(const pm_embedded_opts *opts, const pm_embedded_tools *tools, const char *input_mlir,
                      const char *workdir, pm_steps *out, pm_err *err);
/* The --pass-pipeline string used (heap). */
char *pm_embedded_pipeline(const pm_embedded_opts *opts);

/* The IR each stage processes: op counts at the entry of the pipeline's stages (names as in
 * data/stages-embedded.tsv), from one extra mlir-opt run with print-op-stats at the stage boundaries. The
 * sweep runs it once per config, outside the timed runs, so timing is untouched. (The LLVM-IR instruction count
 * before llc is the ir.llvm_ops metric of every run.) */
#define PM_EMBEDDED_N_PROBES 5
typedef struct pm_embedded_stage_size { const char *stage; double ops; } pm_embedded_stage_size;
int pm_embedded_stage_sizes(const pm_embedded_opts *opts, const pm_embedded_tools *tools, const char *input_mlir,
                            const char *workdir, double timeout_s, const volatile sig_atomic_t *cancel,
                            pm_embedded_stage_size out[PM_EMBEDDED_N_PROBES], pm_err *err);

#endif
