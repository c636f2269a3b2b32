/* pm_ov: one cold compile through OpenVINO (libopenvino_c loaded with dlopen at run time, so passmap builds
 * and tests without OpenVINO), its export and the timed import of the blob (the warm path); offline compiles
 * (NPU_PLATFORM, no device); the deterministic-strategy-replay cache. The library is never unloaded: unloading
 * oneTBB and the NPU driver while their threads live is a known crash. */
#ifndef PM_OV_H
#define PM_OV_H

#include <stddef.h>
#include "backend.h"
#include "error.h"
#include "stats.h"

#define PM_OV_MAX_PROPS 24   /* key/value pairs passed to one ov_core_compile_model */

/* NPUW's own NPU_COMPILATION_MODE_PARAMS for LLM submodels (npuw/llm_compiled_model.cpp). A user value replaces
 * it (with only a warning), so an instrumented run keeps it in front of passmap's switches. */
#define PM_OV_NPUW_DEFAULT_MODE "compute-layers-with-higher-precision=Sqrt,Power,ReduceMean,Add_RMSNorm"
#define PM_OV_NPUW_DEFAULT_MODE_4000 "optimization-level=3"   /* added by NPUW on NPU4000 */
/* NPUW settings whose defaults move inside 2026.x (prefill attention STATIC in 2026.0, PYRAMID later): passmap
 * pins them (OpenVINO >= 2026.0, where the keys exist) so the same spec compiles the same work on every release. */
#define PM_OV_PREFILL_ATTENTION_HINT "STATIC"
#define PM_OV_GENERATE_ATTENTION_HINT "STATIC"
#define PM_OV_SHARED_HEAD "YES"
#define PM_OV_MIN_RESPONSE_LEN 128   /* NPUW_LLM_MIN_RESPONSE_LEN default, sent explicitly as GenAI does */

typedef struct pm_ov_prop {
    char *key, *value;
} pm_ov_prop;

typedef struct pm_ov_props {
    pm_ov_prop items[PM_OV_MAX_PROPS];
    int n;
} pm_ov_props;

struct pm_ov_result;

typedef struct pm_ov_opts {
    const char *lib;          /* libopenvino_c path; NULL: $PASSMAP_OPENVINO_LIB, then libopenvino_c.so[.N] */
    const char *model_xml;    /* OpenVINO IR */
    const char *model_bin;    /* NULL: OpenVINO looks for the .bin beside the .xml */
    const char *device;       /* "NPU" (also "CPU", "GPU"); NULL: "NPU" */
    const char *log_level;    /* NULL: "LOG_INFO" (turns the compiler's timing report on) */
    int window;               /* > 0 (NPU): NPU_USE_NPUW, NPUW_LLM, NPUW_LLM_MAX_PROMPT_LEN = window, and
                                 NPUW_LLM_MIN_RESPONSE_LEN, NPUW_LLM_BATCH_DIM=0, NPUW_LLM_SEQ_LEN_DIM=2 */
    int min_response_len;     /* NPUW_LLM_MIN_RESPONSE_LEN; 0: PM_OV_MIN_RESPONSE_LEN */
    const char *prefill_hint; /* NPUW_LLM_PREFILL_HINT (STATIC: prefill compiled at the window); NULL: not sent */
    const char *generate_pyramid; /* NPUW_LLM_GENERATE_PYRAMID YES|NO; NULL: not sent */
    /* NPUW_LLM_PREFILL_ATTENTION_HINT, NPUW_LLM_GENERATE_ATTENTION_HINT (STATIC|DYNAMIC|PYRAMID) and
     * NPUW_LLM_SHARED_HEAD (YES|NO); NULL: the PM_OV_* pins. Sent only when pin_npuw_attention is set (the
     * compile sets it for OpenVINO >= 2026.0; older NPUW rejects the keys as unknown). */
    const char *prefill_attention_hint, *generate_attention_hint, *shared_head;
    int pin_npuw_attention;
    const char *compiler_type; /* NPU_COMPILER_TYPE; NULL: PLUGIN offline, DRIVER on a device (the 2026.0 stock
                                  default, valid on every release; later minors move to PREFER_PLUGIN) */
    int offline_only;         /* with platform: refuse to compile on a present NPU (an offline study's runs
                                 are never pooled with on-device ones) */
    const char *platform;     /* NPU_PLATFORM (NPU3720, NPU4000, NPU5010): with no NPU present the compile is
                                 offline (NPU_COMPILER_TYPE=PLUGIN, NPU_CREATE_EXECUTOR=0, no import) */
    const char *cache_mode;   /* CACHE_MODE; NULL: OPTIMIZE_SPEED for an NPUW compile whose blob is exported
                                 (NPUW exports a weightless blob otherwise, which the C API cannot import) */
    /* Instrumentation (each adds to NPU_COMPILATION_MODE_PARAMS; the run is then "instrumented"): */
    int schedule_trace;       /* enable-schedule-trace=true */
    int strategy_out;         /* write-strategy-to-json=true */
    int task_stats;           /* dump-task-stats=true */
    const char *strategy_in;  /* copied to <workdir>/strategy_in.json, then read-strategy-from-json=true */
    const char *const *extra; /* NULL-terminated "KEY=VALUE": override a built key, or appended;
                                 NPU_COMPILATION_MODE_PARAMS is merged with the built one */
    const char *workdir;      /* compile runs with this as cwd (the trace files land there); NULL: cwd */
    const char *export_path;  /* blob path; NULL: <workdir>/model.blob when do_import, else no export */
    int do_import;            /* time ov_core_import_model of the exported blob (the warm path) */
    /* Called once, before any teardown (compiled model, core), with the final status: the caller writes its
     * result there, so a crash while OpenVINO tears down cannot lose it. error is NULL on success. */
    void (*on_result)(struct pm_ov_result *r, int status, const char *error, void *ctx);
    void *on_result_ctx;
    /* Called once after the compile and export succeeded and before the import, with import_skipped saying the
     * import had not finished: the caller writes an interim result, so an import that kills the process (out of
     * memory: it reads the whole weights bank) cannot lose the compile. NULL: none. */
    void (*on_compiled)(struct pm_ov_result *r, void *ctx);
} pm_ov_opts;

typedef struct pm_ov_result {
    double read_s, compile_s, export_s, import_s;  /* < 0: not done; each phase timed on its own */
    double compile_user_s, compile_sys_s;          /* CPU of this process over the compile call; < 0: unknown */
    long compile_maxrss_kb;                        /* peak RSS at the end of the compile phase (before the
                                                      export and import); <= 0: unknown */
    long export_maxrss_kb, import_maxrss_kb;       /* peak RSS so far at the end of each phase; <= 0: none */
    long long blob_bytes;                          /* < 0: not exported */
    int blob_weightless;                           /* 1: NPUW blob exported without weights (not importable) */
    long long weights_bytes;                       /* the model's .bin; < 0: unknown */
    char import_error[1024];                       /* the warm measurement failed (the compile did not) */
    char import_skipped[128];                      /* why no import was timed although asked */
    int instrumented;                              /* passmap added compilation-mode switches */
    int npuw_default_kept;                         /* -1: no NPUW mode params involved; 1: kept in front; 0:
                                                      replaced by a user NPU_COMPILATION_MODE_PARAMS */
    int offline;                                   /* compiled for NPU_PLATFORM with no NPU present */
    char platform[32];
    char lib_path[512];
    char ov_version[128], ov_description[128];
    /* Read back from the compiled model (or the core): empty when the device does not report them. */
    char compiler_type[32], compiler_version[64], driver_version[64], device_arch[64], num_threads[16];
    char compiler_version_decoded[32];             /* "major.minor" of the packed uint32 (v >> 16, v & 0xffff) */
    char compiler_type_source[16];                 /* "compiled" or "core" (the plugin default, maybe not used) */
    char compiler_type_set[32];                    /* what we asked for (NPU_COMPILER_TYPE), "" if not */
    char compiler_type_resolved[64];               /* the compiler this compile used: what was pinned, else
                                                      what the compiled model reports; "" if unknown */
    char npuw_pins[192];                           /* "" or why the 2026 NPUW settings were not pinned */
    char device[32];
    pm_ov_props props;                             /* exactly what was passed to compile */
    int n_prop_args;                               /* the nargs given: 2 * props.n */
    char strategy_key[33];                         /* set by the caller when strategy reuse is on */
    int strategy_reused;                           /* 1: a cached strategy_in.json was offered */
} pm_ov_result;

/* The compiler version as OpenVINO reports it (a decimal uint32) decoded to "major.minor"; "" if not one. */
void pm_ov_decode_compiler_version(const char *packed, char *out, size_t size);
/* 1 when the options ask for any compilation-mode instrumentation. */
int pm_ov_instrumented(const pm_ov_opts *o);

/* What OpenVINO on this machine offers (passmap doctor): version, devices, NPU properties from the core. */
typedef struct pm_ov_probe_result {
    char lib_path[512], ov_version[128], ov_description[128];
    char devices[512];                              /* comma-separated */
    int npu_present;
    char compiler_type[32], compiler_version[64], compiler_version_decoded[32], driver_version[64],
        device_arch[64];
} pm_ov_probe_result;
int pm_ov_probe(const char *lib, pm_ov_probe_result *p, pm_err *err);
/* Writes DIR/passmap-doctor.xml + .bin: a tiny OpenVINO IR v11, one matmul block (MatMul 1x64 by a 64x64
 * constant, bias Add, ReLU). xml_path gets the .xml's path. */
int pm_ov_write_tiny_ir(const char *dir, char *xml_path, size_t xml_path_size, pm_err *err);

/* Writes DIR/passmap-doctor-llm.xml + .bin: a tiny stateful LLM-shaped IR v11 (input_ids, attention_mask,
 * position_ids, beam_idx; one attention layer with ReadValue/Assign key and value caches; logits) for an NPUW
 * LLM compile. Inferred from optimum's layout, not checked against a real NPUW. */
int pm_ov_write_tiny_llm_ir(const char *dir, char *xml_path, size_t xml_path_size, pm_err *err);
void pm_ov_props_free(pm_ov_props *p);
void pm_ov_result_free(pm_ov_result *r);

/* Builds the documented property list (order: LOG_LEVEL, NPU_BYPASS_UMD_CACHING=YES, NPU_PLATFORM and the
 * offline pair, NPUW*, CACHE_MODE, extras, NPU_COMPILATION_MODE_PARAMS). Never sets CACHE_DIR: every compile
 * is cold. arch ("4000", or NULL: taken from platform) decides NPUW's default mode params for instrumented
 * runs; offline adds NPU_COMPILER_TYPE=PLUGIN and NPU_CREATE_EXECUTOR=0 (unless given). */
int pm_ov_build_props(const pm_ov_opts *o, const char *arch, int offline, pm_ov_props *out, pm_err *err);

/* Loads the library, checks the device (absent is fine with a platform: offline), reads, compiles (cwd =
 * workdir), exports and imports. The compiler prints to this process's stdout. r is filled as far as it got,
 * also on error. A failed import is not a failed compile: PM_OK with r->import_error set. */
int pm_ov_compile(const pm_ov_opts *o, pm_ov_result *r, pm_err *err);

/* The child's result line: "PASSMAP-OV-RESULT {json}\n" (see docs/npu.md). Heap string. */
#define PM_OV_RESULT_PREFIX "PASSMAP-OV-RESULT "
char *pm_ov_result_json(const pm_ov_result *r, int ok, const char *error);
/* Finds the last result line in captured stdout (anywhere, since compiler output may precede it without a
 * newline) and fills r (strings and timings), *ok and error (may be NULL). PM_ERR_NOTFOUND without one. */
int pm_ov_parse_result_line(const char *buf, size_t len, pm_ov_result *r, int *ok, char *error,
                            size_t error_size, pm_err *err);
/* The same, from a captured stdout file: PM_OK only for a result line saying ok (r filled); PM_ERR_CHILD with its
 * error when the compile failed; PM_ERR_NOTFOUND without a result line. */
int pm_ov_read_result_file(const char *path, pm_ov_result *r, pm_err *err);
/* The children's own seconds over n captured stdout files (NULL entries and files without an ok result line
 * are skipped): the compile, and the import of the exported blob (the warm path). PM_ERR_NOMEM, else PM_OK. */
int pm_ov_result_files_summarize(char *const files[], size_t n, pm_stats_summary *compile,
                                 pm_stats_summary *import, pm_err *err);

/* Deterministic strategy replay (upstream: read-strategy-from-json overwrites the search's result after the
 * search ran, so it is not a compile-time fix by itself; off under NPUW, where only the last subgraph's file
 * survives). Key: XXH3-128 (hex, 32 chars) of the model's .xml and .bin contents plus the options
 * that shape the tiling search (device, window, extra properties, NPU_COMPILATION_MODE_PARAMS other than
 * the trace/strategy switches). Not included: log level, trace and export switches. */
int pm_ov_strategy_key(const pm_ov_opts *o, char key[33], pm_err *err);
/* Cache dir: cache_dir, else $PASSMAP_CACHE_DIR, else $XDG_CACHE_HOME/passmap, else ~/.cache/passmap.
 * Files: <dir>/strategy/<key>.json. */
int pm_ov_strategy_store(const char *cache_dir, const char *key, const char *strategy_out_json, pm_err *err);
/* Sets *path (heap) to the cached file; PM_ERR_NOTFOUND when absent. */
int pm_ov_strategy_fetch(const char *cache_dir, const char *key, char **path, pm_err *err);

/* For the sweep: appends one "ov-compile" step (argv: passmap_exe ov-compile ... from o; cwd NULL = the run
 * folder, which is then the compile's workdir) to out. Report on stdout, format npu-log; artifacts
 * compileTimeScheduleTrace.json / strategy_out.json when asked (or with reuse_strategy). */
int pm_ov_add_step(const char *passmap_exe, const pm_ov_opts *o, int reuse_strategy, const char *cache_dir,
                   pm_steps *out, pm_err *err);

#endif
