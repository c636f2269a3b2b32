/* passmap gen {llm,cnn,list}: writes workload MLIR for the embedded compiler. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "cli_opts.h"
#include "cmds.h"
#include "gen.h"
#include "kinds.h"

/* What the options say, each row binding its field. */
typedef struct gen_cli {
    pm_workload w;
    const char *outpath;
    int want_info, json;
} gen_cli;

enum { MAX_DIM = 1 << 30 };   /* the largest window, resolution, layer or block count taken */

/* clang-format off */
static const cli_opt gen_opts[] = {
    {"family", 0, 0, "F", "the model family (passmap gen list names them)", CLI_BIND_STR(gen_cli, w.family)},
    {"size", 0, 0, "S", "llm: the family's size (passmap gen list)", CLI_BIND_STR(gen_cli, w.size)},
    {"window", 0, 0, "W", "llm: the prompt window in tokens", CLI_BIND_INT(gen_cli, w.window, 0, MAX_DIM)},
    {"precision", 0, 0, "P", "int4, int8 or fp16", CLI_BIND_STR(gen_cli, w.precision)},
    {"layers", 0, 0, "N", "llm: decoder layers emitted (default: the model's)", CLI_BIND_INT(gen_cli, w.layers, 0, MAX_DIM)},
    {"func-per-layer", 0, 0, NULL, "llm: one func.func per decoder layer", CLI_BIND_FLAG(gen_cli, w.func_per_layer)},
    {"resolution", 0, 0, "R", "cnn: the input resolution", CLI_BIND_INT(gen_cli, w.resolution, 0, MAX_DIM)},
    {"blocks", 0, 0, "N", "cnn: the stem and the first N blocks (default: all)", CLI_BIND_INT(gen_cli, w.blocks, 0, MAX_DIM)},
    {"output", 'o', 1, "FILE", "write the module there (default: stdout)", CLI_BIND_STR(gen_cli, outpath)},
    {"info", 0, 0, NULL, "print the workload summary to stderr", CLI_BIND_FLAG(gen_cli, want_info)},
    {"json", 0, 0, NULL, "print the summary as JSON on stdout (then -o is needed for the module)",
     CLI_BIND_FLAG(gen_cli, json)},
    {0},
};
/* clang-format on */
static const cli_cmd gen_cmd = {
    .name = "gen",
    .synopsis = "llm --family F [--size S] --window W --precision P [--layers N]\n"
                "    [--func-per-layer] [-o FILE] [--info] [--json]\n"
                "passmap gen cnn --family F --resolution R --precision P [--blocks N] [-o FILE] [--info] [--json]\n"
                "passmap gen list [--json]",
    .about = "Writes a linalg-on-tensors MLIR module (stdout or FILE); gen list names the kinds, families and sizes.",
    .opts = gen_opts,
};

static json_t *info_json(const char *kind, const char *family, const char *size, const pm_gen_info *info)
{
    return json_pack("{s:s, s:s, s:s?, s:I, s:I, s:i, s:i, s:i, s:i}", "kind", kind, "family", family, "size", size,
                     "params", (json_int_t)info->params, "weight_bytes", (json_int_t)info->weight_bytes,
                     "layers_total", info->layers_total, "layers_emitted", info->layers_emitted, "linalg_ops",
                     info->linalg_ops, "functions", info->functions);
}

static int gen_list(int argc, char **argv)
{
    int json = argc > 1 && !strcmp(argv[1], "--json");
    if (argc > 1 && !json) {
        if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
            cli_usage(stdout, &gen_cmd);
            return PM_EXIT_OK;
        }
        fprintf(stderr, "passmap gen list: unknown option '%s' (try --json)\n", argv[1]);
        return PM_EXIT_USAGE;
    }
    if (json) {
        json_t *root = json_object();
        for (int k = 0; pm_kind_at(k); k++) {
            const pm_kind *row = pm_kind_at(k);
            const char *const *fams = row->families ? row->families() : NULL;
            /* a kind with sizes: {family: [sizes]}; else [families] */
            json_t *list = row->sizes ? json_object() : json_array();
            for (int i = 0; fams && fams[i]; i++) {
                if (!row->sizes) {
                    json_array_append_new(list, json_string(fams[i]));
                    continue;
                }
                json_t *sz = json_array();
                for (const char *const *s = row->sizes(fams[i]); *s; s++)
                    json_array_append_new(sz, json_string(*s));
                json_object_set_new(list, fams[i], sz);
            }
            json_object_set_new(root, row->name, list);
        }
        pm_json_stamp(root, NULL);
        json_dumpf(root, stdout, JSON_INDENT(2));
        fputc('\n', stdout);
        json_decref(root);
        return PM_EXIT_OK;
    }
    printf("%-8s %-12s %s\n", "KIND", "FAMILY", "SIZES");
    for (int k = 0; pm_kind_at(k); k++) {
        const pm_kind *row = pm_kind_at(k);
        const char *const *fams = row->families ? row->families() : NULL;
        for (int i = 0; fams && fams[i]; i++) {
            printf("%-8s %-12s", row->name, fams[i]);
            if (!row->sizes)
                printf(" -");
            for (const char *const *s = row->sizes ? row->sizes(fams[i]) : NULL; s && *s; s++)
                printf(" %s", *s);
            printf("\n");
        }
    }
    return PM_EXIT_OK;
}

int cmd_gen(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "passmap gen: missing workload kind (%s, list); see passmap gen --help\n", pm_kind_names());
        return PM_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        cli_usage(stdout, &gen_cmd);
        return PM_EXIT_OK;
    }
    const char *kind = argv[1];
    if (!strcmp(kind, "list"))
        return gen_list(argc - 1, argv + 1);
    const pm_kind *row = pm_kind_find(kind);
    if (!row || !row->emit) {
        fprintf(stderr, "passmap gen: unknown workload kind '%s' (%s, list)\n", kind, pm_kind_names());
        return PM_EXIT_USAGE;
    }
    gen_cli cli = {.w = {.window = -1, .resolution = -1}};
    int ac = argc - 1;
    char **av = argv + 1;
    int c = cli_parse_args(&gen_cmd, ac, av, &cli, NULL);
    if (c != CLI_GO)
        return c;
    const char *outpath = cli.outpath, *family = cli.w.family, *size = cli.w.size, *precision = cli.w.precision;
    int want_info = cli.want_info, json = cli.json, window = cli.w.window, resolution = cli.w.resolution;
    if (optind < ac) {
        fprintf(stderr, "passmap gen %s: unexpected argument '%s'\n", kind, av[optind]);
        return PM_EXIT_USAGE;
    }
    int size_value = !row->size_axis ? 0 : !strcmp(row->size_axis, "window") ? window : resolution;
    int need_precision = pm_kind_list_has(row->axes, "precision");   /* a kind's configs may have none */
    if (!family || (need_precision && !precision) || size_value < 0) {
        char need[96];   /* "--family, --precision and --window" as the row's axes ask */
        snprintf(need, sizeof need, "--family%s%s%s%s", need_precision && row->size_axis ? ", " : "",
                 need_precision ? (row->size_axis ? "--precision" : " and --precision") : "",
                 row->size_axis ? " and --" : "", row->size_axis ? row->size_axis : "");
        fprintf(stderr, "passmap gen %s: %s %s required (see passmap gen --help)\n", kind, need,
                need_precision || row->size_axis ? "are" : "is");
        return PM_EXIT_USAGE;
    }
    if (json && !outpath) {
        fprintf(stderr, "passmap gen %s: --json prints to stdout; give the module a file with -o\n", kind);
        return PM_EXIT_USAGE;
    }
    FILE *out = stdout;
    if (outpath && !(out = fopen(outpath, "w"))) {
        perror(outpath);
        return PM_EXIT_FAIL;
    }
    pm_gen_info info;
    pm_err err = {0};
    int rc = row->emit(&cli.w, out, &info, &err);
    if (outpath && fclose(out) != 0 && rc == PM_OK) {
        perror(outpath);
        rc = PM_ERR_IO;
        err.msg[0] = '\0';
    }
    if (rc != PM_OK) {
        if (outpath)
            remove(outpath);
        if (err.msg[0])
            fprintf(stderr, "passmap gen %s: %s\n", kind, err.msg);
        return rc == PM_ERR_USAGE ? PM_EXIT_USAGE : PM_EXIT_FAIL;
    }
    if (json) {
        json_t *j = info_json(kind, family, size, &info);
        pm_json_stamp(j, "params", "count", "weight_bytes", "B", NULL);
        json_dumpf(j, stdout, JSON_INDENT(2));
        fputc('\n', stdout);
        json_decref(j);
    } else if (want_info)
        fprintf(stderr, "%s %s%s%s: params %lld, weight bytes %lld, layers %d/%d, linalg ops %d, functions %d\n", kind,
                family, size ? " " : "", size ? size : "", (long long)info.params, (long long)info.weight_bytes,
                info.layers_emitted, info.layers_total, info.linalg_ops, info.functions);
    return PM_EXIT_OK;
}
