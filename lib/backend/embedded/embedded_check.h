/* pm_embedded_check: does a compile variant still compute the same thing? The object the embedded compiler
 * produces is linked with a generated C driver that calls @forward on fixed inputs (a seeded generator, the
 * same bytes for every variant) and writes the result; two variants' results are then compared.
 *
 * The driver follows the memref calling convention of MLIR's LLVM lowering without llvm.emit_c_interface:
 * each memref argument is passed expanded (allocated pointer, aligned pointer, offset, sizes[rank],
 * strides[rank]) and the result descriptor is returned as a struct. Inputs: f32 in [-0.1, 0.1), f16/bf16 small
 * normal numbers, i8 in [-127, 127], i4 in [0, 7] (one per byte, so sign and zero extension agree). memrefCopy,
 * which the lowering calls for copies, is provided by the driver (no MLIR runtime library needed). */
#ifndef PM_EMBEDDED_CHECK_H
#define PM_EMBEDDED_CHECK_H

#include <stdint.h>
#include "embedded.h"
#include "error.h"

/* The tolerance stated for "same": bit-exact, or every element within this relative difference of the
 * reference (|a - b| <= tol * max(1, |a|)) when a variant may reassociate floating-point arithmetic. */
#define PM_CHECK_TOLERANCE 1e-5

/* Writes the C driver for the @forward function of the MLIR module in mlir_path. */
int pm_embedded_check_driver(const char *mlir_path, const char *c_path, pm_err *err);

/* Compiles input_mlir with opts into workdir (mlir-opt, mlir-translate, llc as the sweep runs them), builds
 * the driver with `cc` and runs it; out_bin (in workdir) receives the result's bytes. Every process goes
 * through the runner with timeout_s and co's cancel flag, group recorder and deadline (pm_fix_check_start). A
 * failing step is an error naming the step and its stderr's last line; a timeout is PM_ERR_TIMEOUT. */
int pm_embedded_check_run(const pm_embedded_opts *opts, const pm_embedded_tools *tools, const char *input_mlir,
                          const char *workdir, const pm_fix_check_opts *co, double timeout_s, char *out_bin, size_t cap,
                          pm_err *err);

typedef struct pm_check_cmp {
    int64_t n;             /* f32 elements compared */
    int64_t n_differ;      /* elements whose bits differ */
    int64_t n_nan;         /* NaN in the reference */
    double max_abs, max_rel;
    int bit_exact;         /* every byte equal */
    int within;            /* every element within PM_CHECK_TOLERANCE (implied by bit_exact) */
} pm_check_cmp;

/* Runs the driver pm_embedded_check_run built in workdir once more (through lib/run): *forward_s is the run time
 * of @forward itself as the driver measures it (monotonic clock around the call, printed on its stdout),
 * *cpu_wall the process's (user+sys)/wall (NAN: none). co: as for pm_embedded_check_run. */
int pm_embedded_check_time(const char *workdir, const pm_fix_check_opts *co, double timeout_s, double *forward_s,
                           double *cpu_wall, pm_err *err);
/* The summed size of an ELF64 object's sections named `section` or `section.*` (".text" with -ffunction-sections'
 * ".text.f"); PM_ERR_PARSE when the file is no such object or has none. */
int pm_elf_section_size(const char *path, const char *section, double *bytes, pm_err *err);

/* Compares two result files as f32 arrays; sizes must match (else PM_ERR_PARSE). */
int pm_embedded_check_compare(const char *ref_path, const char *path, pm_check_cmp *out, pm_err *err);

#endif
