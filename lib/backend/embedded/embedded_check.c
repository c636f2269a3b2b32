/* Output check of the embedded compiler: a generated C driver runs the compiled @forward (see the header). */
#include "embedded_check.h"

#include <ctype.h>
#include <elf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "run.h"
#include "util.h"

#define MAX_RANK 8

typedef struct arg_type {
    int rank;
    int64_t dims[MAX_RANK];
    char elt[16];
} arg_type;

/* Parses "tensor<AxBxELT>" at *p; advances past '>'. */
static int parse_tensor(const char **pp, arg_type *t, pm_err *err)
{
    const char *p = *pp;
    while (isspace((unsigned char)*p))
        p++;
    if (strncmp(p, "tensor<", 7))
        return pm_err_set(err, PM_ERR_PARSE, "@forward takes or returns '%.30s', not a ranked tensor", p);
    p += 7;
    t->rank = 0;
    while (isdigit((unsigned char)*p)) {
        if (t->rank == MAX_RANK)
            return pm_err_set(err, PM_ERR_UNSUPPORTED, "@forward has a tensor of rank > %d", MAX_RANK);
        char *end;
        t->dims[t->rank++] = strtoll(p, &end, 10);
        p = end;
        if (*p != 'x')
            return pm_err_set(err, PM_ERR_PARSE, "@forward: malformed tensor type near '%.30s'", p);
        p++;
    }
    size_t k = 0;
    while (isalnum((unsigned char)p[k]))
        k++;
    if (k == 0 || k >= sizeof t->elt || p[k] != '>')
        return pm_err_set(err, PM_ERR_PARSE, "@forward: malformed tensor element type near '%.30s'", p);
    memcpy(t->elt, p, k);
    t->elt[k] = '\0';
    *pp = p + k + 1;
    return PM_OK;
}

/* Element size in memory and the fill kind the driver uses. */
static int elt_kind(const char *elt, int *size, int *kind, pm_err *err)
{
    static const struct { const char *name; int size, kind; } k[] = {
        {"f32", 4, 0}, {"f16", 2, 1}, {"bf16", 2, 2}, {"i8", 1, 3}, {"i4", 1, 4}};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (!strcmp(k[i].name, elt)) {
            *size = k[i].size;
            *kind = k[i].kind;
            return PM_OK;
        }
    return pm_err_set(err, PM_ERR_UNSUPPORTED, "@forward: element type %s has no fill rule (f32 f16 bf16 i8 i4)", elt);
}

static const char DRIVER_HEAD[] =
    "#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <time.h>\n"
    "static uint64_t rng = 0x9E3779B97F4A7C15ull;\n"
    "static uint32_t next32(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return (uint32_t)(rng >> 32); }\n"
    "static void *buf(size_t n, size_t es, int kind)\n{\n"
    "    size_t bytes = (n * es + 63) / 64 * 64;\n"
    "    unsigned char *p = aligned_alloc(64, bytes ? bytes : 64);\n"
    "    if (!p) { fprintf(stderr, \"out of memory\\n\"); exit(3); }\n"
    "    for (size_t i = 0; i < n; i++) {\n"
    "        float f = (float)((int)(next32() % 2001u) - 1000) * 1e-4f;\n"
    "        uint32_t fb; memcpy(&fb, &f, 4);\n"
    "        uint16_t h = (uint16_t)(((next32() & 1u) << 15) | ((8u + next32() % 7u) << 10) | (next32() & 0x3ffu));\n"
    "        uint16_t bf = (uint16_t)(fb >> 16);\n"
    "        switch (kind) {\n"
    "        case 0: memcpy(p + 4 * i, &f, 4); break;\n"
    "        case 1: memcpy(p + 2 * i, &h, 2); break;\n"
    "        case 2: memcpy(p + 2 * i, &bf, 2); break;\n"
    "        case 3: p[i] = (unsigned char)(int8_t)((int)(next32() % 255u) - 127); break;\n"
    "        default: p[i] = (unsigned char)(next32() % 8u); break;\n"
    "        }\n"
    "    }\n"
    "    return p;\n}\n"
    "/* The lowering calls memrefCopy(elemSize, UnrankedMemRef *src, UnrankedMemRef *dst) for strided copies. */\n"
    "typedef struct { int64_t rank; void *desc; } unranked_t;\n"
    "void memrefCopy(int64_t es, unranked_t *src, unranked_t *dst)\n{\n"
    "    int64_t r = src->rank, idx[16] = {0}, total = 1;\n"
    "    char *s = ((char **)src->desc)[1], *d = ((char **)dst->desc)[1];\n"
    "    int64_t *sm = (int64_t *)((char **)src->desc + 2), *dm = (int64_t *)((char **)dst->desc + 2);\n"
    "    if (r > 16) { fprintf(stderr, \"memrefCopy: rank %lld\\n\", (long long)r); exit(3); }\n"
    "    for (int64_t k = 0; k < r; k++) total *= sm[1 + k];\n"
    "    for (int64_t n = 0; n < total; n++) {\n"
    "        int64_t so = sm[0], dof = dm[0];\n"
    "        for (int64_t k = 0; k < r; k++) { so += idx[k] * sm[1 + r + k]; dof += idx[k] * dm[1 + r + k]; }\n"
    "        memcpy(d + dof * es, s + so * es, (size_t)es);\n"
    "        for (int64_t k = r - 1; k >= 0; k--) { if (++idx[k] < sm[1 + k]) break; idx[k] = 0; }\n"
    "    }\n}\n";

/* @forward's signature: its arguments' tensor types and its result's. */
typedef struct forward_sig {
    arg_type *args;
    size_t n, cap;
    arg_type ret;
} forward_sig;

static const char *skip_space(const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

/* Parse, first: the argument list after "func.func @forward(", up to and past its ')'. */
static int parse_forward_args(const char **pp, const char *mlir_path, forward_sig *s, pm_err *err)
{
    const char *p = *pp;
    for (;;) {
        p = skip_space(p);
        if (*p == ')') {
            *pp = p + 1;
            return PM_OK;
        }
        const char *colon = strchr(p, ':');
        if (*p != '%' || !colon)
            return pm_err_set(err, PM_ERR_PARSE, "%s: @forward argument list near '%.30s'", mlir_path, p);
        arg_type *na = pm_grow(s->args, &s->cap, s->n, sizeof *na, 64);
        if (!na)
            return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
        s->args = na;
        p = colon + 1;
        int rc = parse_tensor(&p, &s->args[s->n], err);
        if (rc)
            return rc;
        s->n++;
        p = skip_space(p);
        if (*p == ',')
            p++;
    }
}

/* Parse: @forward's arguments and its one f32 result, from the module's text. */
static int parse_forward(const char *text, const char *mlir_path, forward_sig *s, pm_err *err)
{
    const char *p = strstr(text, "func.func @forward(");
    if (!p)
        return pm_err_set(err, PM_ERR_PARSE, "%s: no func.func @forward", mlir_path);
    p += strlen("func.func @forward(");
    int rc = parse_forward_args(&p, mlir_path, s, err);
    if (rc)
        return rc;
    p = skip_space(p);
    if (strncmp(p, "->", 2))
        return pm_err_set(err, PM_ERR_PARSE, "%s: @forward returns nothing", mlir_path);
    p += 2;
    if ((rc = parse_tensor(&p, &s->ret, err)))
        return rc;
    int rsize, rkind;
    if ((rc = elt_kind(s->ret.elt, &rsize, &rkind, err)))
        return rc;
    if (rkind != 0)
        return pm_err_set(err, PM_ERR_UNSUPPORTED, "@forward returns %s; the check compares f32 results", s->ret.elt);
    return PM_OK;
}

/* Write, first: the driver's helpers, its result type and the exact prototype of the lowered function (per
 * memref argument its expanded descriptor). */
static void write_prototype(FILE *f, const char *mlir_path, const forward_sig *s)
{
    int rr = s->ret.rank ? s->ret.rank : 1;
    fprintf(f, "/* Generated by passmap: calls @forward of %s on fixed inputs, writes the f32 result. */\n%s",
            mlir_path, DRIVER_HEAD);
    fprintf(f, "typedef struct { void *alloc, *aligned; int64_t offset, sizes[%d], strides[%d]; } result_t;\n", rr,
            rr);
    fprintf(f, "extern result_t forward(");
    for (size_t i = 0; i < s->n; i++) {
        fprintf(f, "%s\n    void *, void *, int64_t", i ? "," : "");
        for (int k = 0; k < 2 * s->args[i].rank; k++)
            fputs(", int64_t", f);
    }
    fputs(");\n", f);
}

/* Write: main's fixed inputs, one buffer per argument. */
static int write_inputs(FILE *f, const forward_sig *s, pm_err *err)
{
    fputs("int main(int argc, char **argv)\n{\n    if (argc != 2) { fprintf(stderr, \"usage: driver OUT\\n\"); return 2; }\n", f);
    for (size_t i = 0; i < s->n; i++) {
        int size, kind, rc;
        if ((rc = elt_kind(s->args[i].elt, &size, &kind, err)))
            return rc;
        int64_t count = 1;
        for (int k = 0; k < s->args[i].rank; k++)
            count *= s->args[i].dims[k];
        fprintf(f, "    void *a%zu = buf(%lldu, %d, %d);\n", i, (long long)count, size, kind);
    }
    return PM_OK;
}

/* Write: the timed call, each argument as its descriptor (dense strides). forward's own run time (monotonic
 * clock) is the program side of passmap fix's ledger: printed on stdout. */
static void write_call(FILE *f, const forward_sig *s)
{
    fputs("    struct timespec t0, t1;\n    clock_gettime(CLOCK_MONOTONIC, &t0);\n", f);
    fputs("    result_t r = forward(", f);
    for (size_t i = 0; i < s->n; i++) {
        const arg_type *a = &s->args[i];
        fprintf(f, "%s\n        a%zu, a%zu, 0", i ? "," : "", i, i);
        for (int k = 0; k < a->rank; k++)
            fprintf(f, ", %lld", (long long)a->dims[k]);
        int64_t stride = 1;
        int64_t strides[MAX_RANK];
        for (int k = a->rank - 1; k >= 0; k--) {
            strides[k] = stride;
            stride *= a->dims[k];
        }
        for (int k = 0; k < a->rank; k++)
            fprintf(f, ", %lld", (long long)strides[k]);
    }
    fputs(");\n", f);
    fputs("    clock_gettime(CLOCK_MONOTONIC, &t1);\n"
          "    printf(\"forward_s %.9f\\n\", (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);\n",
          f);
}

/* Write, last: the result's elements, in order, to the file named on the command line. */
static void write_output(FILE *f, const forward_sig *s)
{
    int rank = s->ret.rank;
    fprintf(f,
            "    FILE *f = fopen(argv[1], \"wb\");\n"
            "    if (!f) { perror(argv[1]); return 1; }\n"
            "    int64_t idx[%d] = {0}, total = 1;\n"
            "    for (int k = 0; k < %d; k++) total *= r.sizes[k];\n"
            "    for (int64_t e = 0; e < total; e++) {\n"
            "        int64_t off = r.offset;\n"
            "        for (int k = 0; k < %d; k++) off += idx[k] * r.strides[k];\n"
            "        fwrite((char *)r.aligned + off * 4, 4, 1, f);\n"
            "        for (int k = %d; k >= 0; k--) { if (++idx[k] < r.sizes[k]) break; idx[k] = 0; }\n"
            "    }\n"
            "    return fclose(f) ? 1 : 0;\n}\n",
            rank ? rank : 1, rank, rank, rank - 1);
}

int pm_embedded_check_driver(const char *mlir_path, const char *c_path, pm_err *err)
{
    char *text = NULL;
    size_t len;
    forward_sig s = {0};
    FILE *f = NULL;
    int rc = pm_util_read_file(mlir_path, &text, &len, err);
    if (rc)
        return rc;
    if ((rc = parse_forward(text, mlir_path, &s, err)))
        goto cleanup;
    if (!(f = fopen(c_path, "w"))) {
        rc = pm_err_errno(err, PM_ERR_IO, "cannot write %s", c_path);
        goto cleanup;
    }
    write_prototype(f, mlir_path, &s);
    if ((rc = write_inputs(f, &s, err)))
        goto cleanup;
    write_call(f, &s);
    write_output(f, &s);
    if (ferror(f))
        rc = pm_err_errno(err, PM_ERR_IO, "writing %s", c_path);
cleanup:
    if (f && fclose(f) && rc == PM_OK)
        rc = pm_err_errno(err, PM_ERR_IO, "writing %s", c_path);
    free(s.args);
    free(text);
    return rc;
}

/* Runs one process (its group on record through co, none after co's deadline); a failure becomes an error
 * naming `what` and the last line of its stderr; a timeout or an interruption is PM_ERR_TIMEOUT (no answer). */
static int run_one(const char *const *argv, const char *cwd, const pm_fix_check_opts *co, double timeout_s,
                   const char *what, pm_err *err)
{
    char err_path[4200];
    snprintf(err_path, sizeof err_path, "%s/%s.stderr", cwd, what);
    pm_run_opts ro = {.timeout_s = timeout_s, .cwd = cwd, .stderr_path = err_path};
    pm_run_result res;
    int rc = pm_fix_check_start(co, what, &ro, err);
    if (rc || (rc = pm_run_exec(argv, &ro, &res, err)))
        return rc;
    if (res.status == PM_RUN_OK)
        return PM_OK;
    if (res.status == PM_RUN_TIMEOUT || (co->cancel && *co->cancel))
        return pm_err_set(err, PM_ERR_TIMEOUT, "check: %s %s", what,
                          res.status == PM_RUN_TIMEOUT ? "timed out (the spec's timeout)" : "interrupted");
    char last[300] = "";
    char *tail = NULL;
    size_t len = 0;
    pm_err ignore = {0};
    if (pm_util_read_file(err_path, &tail, &len, &ignore) == PM_OK) {
        while (len && (tail[len - 1] == '\n' || tail[len - 1] == '\r'))
            tail[--len] = '\0';
        const char *nl = strrchr(tail, '\n');
        snprintf(last, sizeof last, "%s", nl ? nl + 1 : tail);
        free(tail);
    }
    return pm_err_set(err, PM_ERR_CHILD, "check: %s %s%s%s%s", what, pm_run_status_name(res.status),
                      res.spawn_error[0] ? ": " : "", res.spawn_error, last[0] ? last : "");
}

int pm_embedded_check_run(const pm_embedded_opts *opts, const pm_embedded_tools *tools, const char *input_mlir,
                          const char *workdir, const pm_fix_check_opts *co, double timeout_s, char *out_bin, size_t cap,
                          pm_err *err)
{
    pm_steps steps = {0};
    char c_path[4200], drv_o[4200], exe[4200];
    int rc;
    if ((rc = pm_util_mkdir_p(workdir, err)) || (rc = pm_embedded_steps(opts, tools, input_mlir, workdir, &steps, err)))
        return rc;
    for (int i = 0; i < steps.n; i++)
        if ((rc = run_one((const char *const *)steps.items[i].argv, workdir, co, timeout_s, steps.items[i].tool, err)))
            goto cleanup;
    const char *obj = steps.n ? steps.items[steps.n - 1].output : NULL;
    int w = snprintf(c_path, sizeof c_path, "%s/driver.c", workdir);
    snprintf(drv_o, sizeof drv_o, "%s/driver.o", workdir);
    snprintf(exe, sizeof exe, "%s/driver", workdir);
    if (w < 0 || (size_t)w >= sizeof c_path || (size_t)snprintf(out_bin, cap, "%s/result.bin", workdir) >= cap) {
        rc = pm_err_set(err, PM_ERR_USAGE, "check folder path too long: %s", workdir);
        goto cleanup;
    }
    if (!obj) {
        rc = pm_err_set(err, PM_ERR_UNSUPPORTED, "the embedded back end made no object");
        goto cleanup;
    }
    if ((rc = pm_embedded_check_driver(input_mlir, c_path, err)))
        goto cleanup;
    const char *cc_argv[] = {"cc", "-std=gnu11", "-O1", "-c", c_path, "-o", drv_o, NULL};
    const char *ld_argv[] = {"cc", "-no-pie", drv_o, obj, "-lm", "-o", exe, NULL};
    const char *run_argv[] = {exe, out_bin, NULL};
    if ((rc = run_one(cc_argv, workdir, co, timeout_s, "cc", err)) ||
        (rc = run_one(ld_argv, workdir, co, timeout_s, "link", err)) ||
        (rc = run_one(run_argv, workdir, co, timeout_s, "driver", err)))
        goto cleanup;
cleanup:
    pm_steps_free(&steps);
    return rc;
}

int pm_embedded_check_compare(const char *ref_path, const char *path, pm_check_cmp *out, pm_err *err)
{
    char *a = NULL, *b = NULL;
    size_t na, nb;
    memset(out, 0, sizeof *out);
    int rc = pm_util_read_file(ref_path, &a, &na, err);
    if (rc || (rc = pm_util_read_file(path, &b, &nb, err)))
        goto cleanup;
    if (na != nb || na % 4) {
        rc = pm_err_set(err, PM_ERR_PARSE, "results differ in size (%zu vs %zu bytes)", na, nb);
        goto cleanup;
    }
    out->n = (int64_t)(na / 4);
    out->bit_exact = memcmp(a, b, na) == 0;
    out->within = 1;
    for (int64_t i = 0; i < out->n; i++) {
        float x, y;
        memcpy(&x, a + 4 * i, 4);
        memcpy(&y, b + 4 * i, 4);
        if (isnan(x))
            out->n_nan++;
        if (memcmp(a + 4 * i, b + 4 * i, 4) == 0)
            continue;
        out->n_differ++;
        double d = fabs((double)x - (double)y);
        if (isnan(d)) {
            out->within = 0;
            out->max_abs = INFINITY;
            continue;
        }
        double rel = d / fmax(1.0, fabs((double)x));
        if (d > out->max_abs)
            out->max_abs = d;
        if (rel > out->max_rel)
            out->max_rel = rel;
        if (rel > PM_CHECK_TOLERANCE)
            out->within = 0;
    }
cleanup:
    free(a);
    free(b);
    return rc;
}

int pm_embedded_check_time(const char *workdir, const pm_fix_check_opts *co, double timeout_s, double *forward_s,
                           double *cpu_wall, pm_err *err)
{
    char exe[4200], out[4200], so[4200], se[4200];
    if (snprintf(exe, sizeof exe, "%s/driver", workdir) >= (int)sizeof exe ||
        snprintf(out, sizeof out, "%s/result-timed.bin", workdir) >= (int)sizeof out ||
        snprintf(so, sizeof so, "%s/timed.stdout", workdir) >= (int)sizeof so ||
        snprintf(se, sizeof se, "%s/timed.stderr", workdir) >= (int)sizeof se)
        return pm_err_set(err, PM_ERR_USAGE, "check folder path too long: %s", workdir);
    const char *argv[] = {exe, out, NULL};
    pm_run_opts ro = {.timeout_s = timeout_s, .cwd = workdir, .stdout_path = so, .stderr_path = se};
    pm_run_result res;
    int rc = pm_fix_check_start(co, "the program run", &ro, err);
    if (rc || (rc = pm_run_exec(argv, &ro, &res, err)))
        return rc;
    if (res.status == PM_RUN_TIMEOUT || (co->cancel && *co->cancel))
        return pm_err_set(err, PM_ERR_TIMEOUT, "%s: %s", exe,
                          res.status == PM_RUN_TIMEOUT ? "timed out (the spec's timeout)" : "interrupted");
    if (res.status != PM_RUN_OK)
        return pm_err_set(err, PM_ERR_CHILD, "%s: %s (exit %d)", exe, pm_run_status_name(res.status), res.exit_code);
    char *text = NULL;
    size_t len;
    if ((rc = pm_util_read_file(so, &text, &len, err)))
        return rc;
    const char *p = strstr(text, "forward_s ");
    char *end = NULL;
    double v = p ? strtod(p + 10, &end) : NAN;
    free(text);
    if (!p || end == p + 10 || !(v >= 0))
        return pm_err_set(err, PM_ERR_PARSE, "%s: no forward_s line on its stdout (a driver from an older passmap? "
                          "rerun passmap fix)", exe);
    *forward_s = v;
    *cpu_wall = res.wall_s > 0 ? (res.user_s + res.sys_s) / res.wall_s : NAN;
    return PM_OK;
}

int pm_elf_section_size(const char *path, const char *section, double *bytes, pm_err *err)
{
    char *d = NULL;
    size_t n;
    int rc = pm_util_read_file(path, &d, &n, err);
    if (rc)
        return rc;
    rc = pm_err_set(err, PM_ERR_PARSE, "%s: not a 64-bit little-endian ELF file with a %s section", path, section);
    if (n < sizeof(Elf64_Ehdr) || memcmp(d, ELFMAG, SELFMAG) || d[EI_CLASS] != ELFCLASS64 || d[EI_DATA] != ELFDATA2LSB)
        goto cleanup;
    Elf64_Ehdr eh;
    memcpy(&eh, d, sizeof eh);
    if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > n || eh.e_shnum > (n - eh.e_shoff) / sizeof(Elf64_Shdr) ||
        eh.e_shstrndx >= eh.e_shnum)
        goto cleanup;
    Elf64_Shdr strs;
    memcpy(&strs, d + eh.e_shoff + (size_t)eh.e_shstrndx * sizeof strs, sizeof strs);
    if (strs.sh_offset > n || strs.sh_size > n - strs.sh_offset)
        goto cleanup;
    double total = 0;
    int found = 0;
    for (size_t i = 0; i < eh.e_shnum; i++) {
        Elf64_Shdr sh;
        memcpy(&sh, d + eh.e_shoff + i * sizeof sh, sizeof sh);
        if (sh.sh_name >= strs.sh_size)
            continue;
        const char *name = d + strs.sh_offset + sh.sh_name;
        size_t room = strs.sh_size - sh.sh_name, len = strlen(section);
        /* ".text" and ".text.NAME" (one section per function) together */
        if (room > len && !strncmp(name, section, len) && (name[len] == '\0' || name[len] == '.')) {
            total += (double)sh.sh_size;
            found = 1;
        }
    }
    if (found) {
        *bytes = total;
        rc = PM_OK;
    }
cleanup:
    free(d);
    return rc;
}
