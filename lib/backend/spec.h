/* pm_spec: a sweep spec (INI, parsed with inih) expanded into its matrix of configs.
 *
 *   [sweep]    name, backend (embedded|openvino), repeats (a number, or auto), order (interleaved|sequential),
 *              seed, timeout (e.g. 120s), mem_limit (e.g. 8G), warm (true|false), warm_repeats,
 *              min_repeats, max_repeats, precision (e.g. 3%), stop (answer|precision): with repeats = auto a
 *              config stops once its dominant stage is known or the 95% CI half-width of its deciding metric's
 *              log is within precision (stop = precision: the latter only); at least min_repeats, at most
 *              max_repeats, meter (auto|wall|counters|valgrind: how each step is measured, meter.h)
 *   [embedded] tile, unroll, display (tree|list), json, single_thread, llc_opt, bindir (read by embedded.c)
 *   [openvino] (read by sweep_ov.c) device, lib, log_level, schedule_trace, strategy_json, task_stats (the switches of the
 *              instrumented variant), reuse_strategy, platform (NPU_PLATFORM: offline without an NPU),
 *              prefill_hint (STATIC|DYNAMIC), generate_pyramid (bool), min_response_len,
 *              prefill_attention_hint, generate_attention_hint (STATIC|DYNAMIC|PYRAMID|HFA; default STATIC),
 *              shared_head (bool; default true): pinned from OpenVINO 2026.0, compiler_type (NPU_COMPILER_TYPE:
 *              PLUGIN|DRIVER|PREFER_PLUGIN from 2026, MLIR|DRIVER before, checked against the release at
 *              compile time; default DRIVER on a device, PLUGIN offline), import_max_ram_share (0..1, 0.5),
 *              model (template with {family} {size} {precision} {window}), props (K=V K=V)
 *   [llm NAME] models (family:size ...), windows, precisions, layers, variants, tile, unroll
 *   [cnn NAME] families, resolutions, precisions, blocks, variants, tile, unroll
 *              (each kind's row, lib/workload/gen_KIND.c, expands its own section; variants and the back
 *              end's pipeline keys, tile and unroll, are read here: pm_spec_pipe)
 * tile/unroll in a matrix section override [embedded] for that section; the key then carries /T<tile>U<unroll>.
 * Lists are separated by commas or spaces. A variant is stock, no-rollback, per-layer, tile-N (embedded: the
 * affine tile N instead of the section's; the key keeps the section's /T part and names the tile in the variant),
 * reuse-strategy (openvino, not LLM/NPUW: deterministic strategy replay), instrumented (openvino: schedule
 * trace / strategy JSON / task stats on, NPUW's default mode params kept; stock runs send no mode params),
 * or a '+' join.
 * Several [llm …]/[cnn …] sections add up; each section is its own cartesian product.
 *
 * The [sweep] section is read here; every other section belongs to the back end named by [sweep] backend
 * (see backend.h: each back end parses its own sections). Sections or keys nobody reads are errors with their
 * line number.
 *   [sweep]    also: bindir (folder for {bindir} in step templates)
 *   [report]   size = AXIS, workload = AXIS: the axes the regime map and fits use (default: by kind)
 */
#ifndef PM_SPEC_H
#define PM_SPEC_H

#include <stdint.h>
#include "error.h"
#include "config.h"
#include "kinds.h"

/* One "name = value" line of the spec, with its section and line number. A back end marks what it read. */
typedef struct pm_spec_entry {
    char *section, *name, *value;
    int line;
    int used;
} pm_spec_entry;

typedef struct pm_spec_entries {
    pm_spec_entry *items;
    int n, cap, oom;
} pm_spec_entries;

/* Limits of a spec config's key and variant, each an error naming it when passed. */
#define PM_SPEC_KEY_MAX 512
#define PM_SPEC_VARIANT_MAX 48

typedef struct pm_spec_config {
    /* The config identity (config.h), owned (pm_spec_config_clear frees it): key unique in the spec
     * ("llm/qwen2/0.5b/w256/int8/L1/stock", "c/input=a.c/opt=2", < PM_SPEC_KEY_MAX), kind (llm | cnn | command),
     * variant ("" when none, < PM_SPEC_VARIANT_MAX) and every axis as name=value. */
    PM_CFG_EMBED;           /* a workload config's model fields are its parameters (pm_spec_workload), then its
                             * back end's pipeline keys (the embedded pipeline's tile, unroll: pm_spec_pipe) */
    char **paths;           /* [n_params]: for a file axis the absolute path {name} stands for, else NULL */
    int matrix;             /* command: index of its [matrix NAME] section */
} pm_spec_config;

typedef struct pm_spec {
    char name[128];
    char backend[16];       /* a back end's name (backend.h registry): embedded | openvino | command */
    int repeats;            /* fixed count; with repeats_auto the first round's count (min_repeats) */
    int repeats_auto;       /* adaptive: rounds re-run only the configs not yet settled */
    int min_repeats, max_repeats;
    double precision;       /* relative 95% CI half-width of the deciding metric's log, e.g. 0.03 */
    int stop_on_precision;  /* stop = precision: only the precision settles a config (default: its known dominant
                             * stage too) */
    int interleaved;
    /* some step names a timing_flag: every cold repeat gets an uninstrumented twin ("plain" run, pm_step.plain_argv)
     * beside it, so the walls come from runs the timers did not slow (set by the back end's parse_spec) */
    int timing_pairs;
    unsigned seed;
    double timeout_s;
    uint64_t mem_limit;
    int warm, warm_repeats;
    pm_spec_config *configs;
    int n_configs, cap_configs;
    char *text;             /* the spec file as read, stored with the sweep */
    char path[1024];
    char dir[4096];         /* absolute folder of the spec file ({spec_dir}); "." when parsed from text */
    char sweep_bindir[512]; /* [sweep] bindir */
    char meter[32];         /* [sweep] meter: a meter row's name (meter.h) or "auto"; "" when not given (auto) */
    char report_size[64], report_workload[64];   /* [report] size / workload axes, "" when not given */
    /* The back end's own parsed state, freed by backend_free: its sections' settings and what it made of them
     * (the embedded back end's [embedded] options and preset steps, the openvino back end's [openvino], the
     * command back end's steps); only the back end reads it (through its own header). */
    void *backend_data;
    void (*backend_free)(void *data);
} pm_spec;

/* Limits, each an error when passed: configs in one spec (a million cold compiles would not finish anyway; the
 * matrix is checked before it is expanded) and the size of the spec file. */
#define PM_SPEC_MAX_CONFIGS 1000000
#define PM_SPEC_MAX_BYTES ((size_t)16 << 20)

int pm_spec_load(const char *path, pm_spec **out, pm_err *err);
int pm_spec_parse(const char *text, const char *path_for_messages, pm_spec **out, pm_err *err);
/* As above; backend (non-NULL) replaces [sweep] backend before the back end reads its sections. */
int pm_spec_load_as(const char *path, const char *backend, pm_spec **out, pm_err *err);
int pm_spec_parse_as(const char *text, const char *path, const char *backend, pm_spec **out, pm_err *err);
void pm_spec_free(pm_spec *spec);

/* For back ends parsing their sections. */
/* Reads INI text into entries with line numbers (a back end's built-in preset goes through this too). */
int pm_spec_entries_parse(const char *text, pm_spec_entries *es, pm_err *err);
void pm_spec_entries_free(pm_spec_entries *es);
/* A back end's pipeline keys: what every workload section takes beside its kind's own keys (the embedded
 * pipeline's tile and unroll, embedded.h). Each is an integer in [lo, hi], def when the section does not say;
 * a config carries each as a parameter after its kind's axes, and its key carries "/<tag><value>..." for all of
 * them (e.g. /T512U16) when one differs from its default. The back end owns the values: it reads them back
 * from the config's parameters. */
#define PM_SPEC_PIPE_MAX 4
typedef struct pm_spec_pipe {
    struct { const char *key, *tag; int lo, hi, def; } keys[PM_SPEC_PIPE_MAX];
    int n;
} pm_spec_pipe;
/* The workload sections, one kind row's each ([llm NAME], [cnn NAME]: the embedded and openvino back ends). */
int pm_spec_parse_workloads(pm_spec *s, pm_spec_entries *es, const pm_spec_pipe *pipe, pm_err *err);
/* A back end reading its own section's scalars: what = "line N: [SECTION] KEY" (e marked used); the value
 * parsers' errors start with what; an unknown key is an error suggesting the closest of keys (NULL-terminated). */
const char *pm_spec_entry_what(pm_spec_entry *e, char *what, size_t cap);
int pm_spec_int(const char *v, int lo, int hi, int *out, pm_err *err, const char *what);
int pm_spec_bool(const char *v, int *out, pm_err *err, const char *what);   /* true/yes/1/on, false/no/0/off */
int pm_spec_str(char *dst, size_t cap, const char *v, pm_err *err, const char *what);  /* too long: error */
int pm_spec_unknown_key(const pm_spec_entry *e, const char *what, const char *const *keys, pm_err *err);
/* Appends a config (its key must be new); takes ownership of its identity and paths (c is zeroed). Past
 * PM_SPEC_MAX_CONFIGS it is an error naming the limit (the backstop of pm_spec_check_configs). */
int pm_spec_add_config(pm_spec *s, pm_spec_config *c, pm_err *err);
/* The one config cap, for every back end, before a section is expanded: the product of its list lengths
 * (n_lists of them; computed without overflow) added to the configs already planned. */
int pm_spec_check_configs(const pm_spec *s, const char *section, const size_t *list_lens, int n_lists, pm_err *err);
/* Adds name=value (path: the absolute file for a file axis, or NULL) to a config under construction. */
int pm_spec_config_param(pm_spec_config *c, const char *name, const char *value, const char *path);
void pm_spec_config_clear(pm_spec_config *c);   /* frees its identity and paths */

/* *out = a copy of study config src named key with variant (parameters and file paths duplicated, the other
 * fields as src's); on an error nothing is left to free. */
int pm_spec_config_copy(const pm_spec_config *src, const char *key, const char *variant, pm_spec_config *out,
                        pm_err *err);
/* A passmap fix round made from a copy of a study's spec: named `name`, `repeats` cold runs per config,
 * interleaved, no warm runs, and no configs yet (the round adds its own). */
void pm_spec_round_reset(pm_spec *s, const char *name, int repeats);
/* Pair i of a round's (configs, variants): *dup = 1 when an earlier pair is the same (skip it); an error when
 * configs[i] is not one of the study's n_configs. */
int pm_spec_round_pair(const int *configs, const char *const *variants, size_t i, int n_configs, int *dup,
                       pm_err *err);
/* The workload of an llm/cnn config, as its kind row's functions take them: its parameters decoded
 * (pm_workload_of, kinds.h; strings borrowed from c) with its variant's per-layer emission. */
pm_workload pm_spec_workload(const pm_spec_config *c);
/* What a config's variant asks of the back end that runs it (the spec checked its tokens): whether it has the
 * '+'-joined token (no-rollback, per-layer, reuse-strategy, instrumented), and the tile-N token's N (0: none,
 * the config's tile). */
int pm_spec_variant_has(const pm_spec_config *c, const char *token);
int pm_spec_variant_tile(const pm_spec_config *c);
/* Whether section is "KIND" or "KIND NAME"; *name gets the NAME part ("" when none). */
int pm_spec_section_is(const char *section, const char *kind, const char **name);
/* Whether entry i is the first of its section (a section is read once, from its first entry). */
int pm_spec_entry_opens_section(const pm_spec_entries *es, int i);

#endif
