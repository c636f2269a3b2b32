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
/* A sweep does not import a blob whose weights exceed this share of the machine's RAM (MemTotal): the import
 * reads the whole weights bank back while the process may still hold the compiled model's; the run says so. */
#define PM_OV_IMPORT_RAM_SHARE 0.5
/* NPU_COMPILER_TYPE's words: OpenVINO >= 2026.0 has PLUGIN|DRIVER|PREFER_PLUGIN, <= 2025.3 MLIR|DRIVER. */
#define PM_OV_COMPILER_TYPES "PLUGIN, DRIVER, PREFER_PLUGIN (OpenVINO >= 2026.0); MLIR, DRIVER (older)"
/* NPUW's attention hints (NPUW_LLM_PREFILL_ATTENTION_HINT, NPUW_LLM_GENERATE_ATTENTION_HINT). */
#define PM_OV_ATTENTION_HINTS "STATIC, DYNAMIC, PYRAMID, HFA"

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
    /* > 0: no import (import_skipped says why) when the weights exceed this share of MemTotal; 0: always. */
    double import_max_ram_share;
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
    char import_skipped[256];                      /* why no import was timed although asked */
    int import_pending;                            /* 1 on the interim line only: the import had started and
                                                      not finished (a process that then died lost it) */
    int import_skipped_ram;                        /* 1: skipped because the weights exceed the RAM share */
    long long mem_total_bytes;                     /* the machine's MemTotal; < 0: unknown */
    char refused_property[128];                    /* a failed compile: the key the message names as refused
                                                      ("Option '<KEY>'", "Unsupported configuration key: <KEY>") */
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
    char compiler_version_source[96];              /* where compiler_version came from: "compiled model", "core
                                                      with NPU_COMPILER_TYPE=<T>" (the type this compile used), or
                                                      "core default type <T>" (maybe another compiler's) */
    char compiler_type_set[32];                    /* what we asked for (NPU_COMPILER_TYPE), "" if not */
    char compiler_type_resolved[64];               /* the compiler this compile used: what was pinned, else
                                                      what the compiled model reports; "" if unknown */
    char npuw_pins[192];                           /* "" or why the 2026 NPUW settings were not pinned */
    char device[32];
    pm_ov_props props;                             /* exactly what was passed to compile */
    pm_ov_props effective;                         /* NPUW_LLM_* as the compiled model reports them (what was
                                                      compiled: NPUW rounds and defaults); empty if none answer */
    int n_prop_args;                               /* the nargs given: 2 * props.n */
    char strategy_key[33];                         /* set by the caller when strategy reuse is on */
    int strategy_reused;                           /* 1: a cached strategy_in.json was offered */
} pm_ov_result;

/* The NPUW_LLM_* keys read back from a compiled model (NULL-terminated). */
extern const char *const pm_ov_npuw_effective_keys[];
/* The property a failed compile's message names as refused (upstream's "Option '<KEY>' is not supported for
 * current configuration", NPUW's "Unsupported configuration key: <KEY>"), into out; 0 when it names none. */
int pm_ov_refused_property(const char *msg, char *out, size_t size);
/* Whether OpenVINO ov_version (its build number, "2026.0.0-...") has NPU_COMPILER_TYPE type: PM_OK, else a
 * PM_ERR_USAGE naming the release's words. An unknown version accepts every word of PM_OV_COMPILER_TYPES. */
int pm_ov_compiler_type_check(const char *type, const char *ov_version, pm_err *err);
/* How many generate models NPUW compiles (llm_compiled_model.cpp create_generate_model_variants): with the
 * pyramid, one per 1024*2^k + min_response below the KV size, plus the KV size; without, one. */
int pm_ov_npuw_generate_variants(int max_prompt, int min_response, int pyramid);

/* The submodel split inferred from NPUW's fixed compile order (every generate variant, then the prefill, then
 * the LM head) when no log line names the submodels: the LM head's one block last (with a shared head), the
 * other blocks split evenly over the generate variants and the prefill. Inferred, never measured by name. */
typedef struct pm_ov_split {
    int blocks[3];          /* generate, prefill, lm_head */
    double total_s[3];
} pm_ov_split;
/* totals: each report block's Total in order (n blocks). PM_OK with out filled, else why it cannot infer. */
int pm_ov_infer_split(const double *totals, int n, int generate_variants, int shared_head, pm_ov_split *out,
                      char *why, size_t why_size);

/* The NPUW value of key (NPUW_LLM_...) this compile used: the compiled model's answer, else what was sent;
 * NULL when neither. *effective says which. */
const char *pm_ov_npuw_value(const pm_ov_result *r, const char *key, int *effective);
/* Each report block's Total, in block order (the "Total" row, else its top-level rows' sum): *totals is heap
 * (n_reports entries; NULL when none). PM_ERR_NOMEM or PM_OK. */
int pm_ov_block_totals(const pm_report *rep, double **totals, int *n, pm_err *err);
/* The inferred split of an NPUW compile's report (pm_ov_infer_split with the generate variants and the shared
 * head this compile used, from r). */
int pm_ov_infer_report(const pm_report *rep, const pm_ov_result *r, pm_ov_split *out, char *why, size_t why_size);

/* The compiler version as OpenVINO reports it (a decimal uint32) decoded to "major.minor"; "" if not one. */
void pm_ov_decode_compiler_version(const char *packed, char *out, size_t size);
/* 1 when the options ask for any compilation-mode instrumentation. */
int pm_ov_instrumented(const pm_ov_opts *o);

/* What OpenVINO on this machine offers (passmap doctor): version, devices, NPU properties from the core. */
typedef struct pm_ov_probe_compiler {
    const char *type;                               /* "DRIVER", "PLUGIN" */
    int ok;                                         /* the core answered NPU_COMPILER_VERSION with it set */
    char version[64], version_decoded[32];
    char error[512];                                /* OpenVINO's message, verbatim, when not ok */
    int driver_compiler_missing;                    /* DRIVER: the message says libnpu_driver_compiler is absent */
} pm_ov_probe_compiler;

typedef struct pm_ov_probe_result {
    char lib_path[512], ov_version[128], ov_description[128];
    char devices[512];                              /* comma-separated */
    int npu_present;
    char compiler_type[32], compiler_version[64], compiler_version_decoded[32], driver_version[64],
        device_arch[64];
    pm_ov_probe_compiler compilers[2];              /* DRIVER, PLUGIN: each set on the core, then asked */
    char supported[8192];                           /* SUPPORTED_PROPERTIES as the core lists it; "" unknown */
    long long mem_total_bytes;                      /* MemTotal; < 0: unknown */
} pm_ov_probe_result;
/* The machine's MemTotal in bytes (/proc/meminfo); < 0 when unknown. */
long long pm_ov_mem_total(void);
/* The keys pm_ov_build_props may send (NULL-terminated), for doctor's check against SUPPORTED_PROPERTIES. */
extern const char *const pm_ov_sent_keys[];
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
