/* passmap show DB: a stored compile's pass tree in the terminal (bars and shares), or the sweep's configs. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli_opts.h"
#include "cmds.h"
#include "analysis.h"
#include "table.h"
#include "passtree.h"
#include "store_runs.h"

/* What the options say, each row binding its field. */
typedef struct show_cli {
    pm_cli_run_pick pick;
    const char *chrome_trace;
    double min_share; /* < 0: not given */
    cli_list maps;
    int json;
} show_cli;

/* --min-share: a fraction in [0, 1). */
static int share(const cli_cmd *cmd, const cli_opt *o, const char *arg, void *field)
{
    char *end;
    double v = strtod(arg, &end);
    if (*end || !*arg || !(v >= 0 && v < 1))
        return cli_refuse(cmd, "--%s wants a fraction in [0, 1), not '%s'", o->name, arg);
    *(double *)field = v;
    return 0;
}

/* clang-format off */
static const cli_opt show_opts[] = {
    {"sweep", 's', 1, "NAME", "which sweep (default: the latest study)", CLI_BIND_STR(show_cli, pick.sweep)},
    {"config", 'c', 1, "KEY", "that config's compile: its pass tree per step", CLI_BIND_STR(show_cli, pick.config)},
    {"run", 'r', 1, "ID", "the run with this id (instead of --config)", CLI_BIND_FN(show_cli, pick.run_id, pm_cli_run_id)},
    {"repeat", 'n', 1, "N", "that repeat (default: the successful run with the median wall)",
     CLI_BIND_FN(show_cli, pick.repeat, pm_cli_repeat)},
    {"mode", 'm', 1, "MODE", "cold (default), cache-miss or warm", CLI_BIND_STR(show_cli, pick.mode)},
    {"min-share", 'f', 1, "F", "fold passes below this share of the run (fraction, default 0.005) into one line",
     CLI_BIND_FN(show_cli, min_share, share)},
    {"stage-map", 'M', 1, "FILE", "pass->stage map (default: the data dir's stages-*.tsv); repeatable",
     CLI_BIND_LIST(show_cli, maps)},
    {"json", 'j', 1, NULL, "the tree as JSON (schema in docs/json.md)", CLI_BIND_FLAG(show_cli, json)},
    {"chrome-trace", 'C', 0, "FILE", "write the compile as Chrome trace event JSON to FILE ('-': stdout) for\n"
                                     "https://ui.perfetto.dev or chrome://tracing, instead of the tree (was `passmap trace`)",
     CLI_BIND_STR(show_cli, chrome_trace)},
    {0},
};
/* clang-format on */
static const cli_cmd show_cmd = {
    .name = "show",
    .synopsis = "DB [--sweep NAME] [--config KEY [--repeat N] [--mode MODE] | --run ID]\n"
                "[--min-share F] [--stage-map FILE]... [--json]\n"
                "passmap show DB [--sweep NAME] [--config KEY [--repeat N] [--mode MODE] | --run ID] --chrome-trace FILE",
    .about = "  without --config: every config of the sweep with its median cold wall as a bar.\n"
             "  with --config (or --run): that compile's pass tree per step: time, share of the run's wall, stage, bar.\n"
             "  with --chrome-trace: that compile as a trace, one track per step process, the step as a span, its passes\n"
             "  nested inside in the compiler's order (see passmap-trace(1) for how each report format places them).",
    .opts = show_opts,
    .notes = "width: $COLUMNS, else the terminal's, else 100; colour only on a terminal and never with NO_COLOR",
};


static json_t *num(double v) { return v >= 0 && !isnan(v) ? json_real(v) : json_null(); }

/* The run's NPUW setting k as compiled (*compiled) and as sent (*sent, the same when they did not differ); 0
 * when the run has none (not an NPUW compile). */
static int npuw_setting(const pm_stored_run *r, int k, double *compiled, double *sent)
{
    const char *m = pm_an_npuw_settings[k].metric;
    size_t n = strlen(m);
    int found = 0;
    *sent = NAN;
    for (size_t i = 0; i < r->n_metrics; i++) {
        if (strncmp(r->metrics[i].name, m, n))
            continue;
        if (!r->metrics[i].name[n]) {
            *compiled = r->metrics[i].value;
            found = 1;
        } else if (!strcmp(r->metrics[i].name + n, ".sent")) {
            *sent = r->metrics[i].value;
        }
    }
    if (found && isnan(*sent))
        *sent = *compiled;
    return found;
}

/* What NPUW compiled (the compiled model's values), with the sent value where it differs. */
static void print_npuw(FILE *f, const pm_stored_run *r)
{
    int any = 0;
    for (int k = 0; k < PM_AN_NPUW_SETTINGS; k++) {
        double c, sent;
        if (!npuw_setting(r, k, &c, &sent))
            continue;
        char ct[32], st[32];
        pm_an_npuw_setting_text(k, c, ct, sizeof ct);
        pm_an_npuw_setting_text(k, sent, st, sizeof st);
        fprintf(f, "%s%s %s", any ? ", " : "NPUW compiled: ", pm_an_npuw_settings[k].label, ct);
        if (sent != c)
            fprintf(f, " (sent %s)", st);
        any = 1;
    }
    if (any)
        fputc('\n', f);
}

static json_t *run_json(const pm_stored_run *r)
{
    json_t *steps = json_array();
    for (size_t k = 0; k < r->n_steps; k++) {
        const pm_stored_step *st = &r->steps[k];
        pm_span *sp = calloc(st->n_passes ? st->n_passes : 1, sizeof *sp);
        if (!sp)
            break;
        pm_passtree_layout(st, sp);
        json_t *ps = json_array();
        for (size_t i = 0; i < st->n_passes; i++) {
            const pm_stored_pass *p = &st->passes[i];
            json_array_append_new(ps, json_pack("{s:s,s:i,s:i,s:o,s:o,s:o,s:b,s:b,s:o,s:o}", "name", p->name ? p->name : "",
                                                "depth", p->depth, "parent", p->parent, "wall_s", num(p->wall_s),
                                                "user_s", num(p->user_s), "share",
                                                num(r->wall_s > 0 && p->wall_s >= 0 ? p->wall_s / r->wall_s : -1),
                                                "counted", p->counted, "shown", sp[i].shown, "start_s",
                                                p->has_start ? json_real(p->start_s) : json_null(), "section",
                                                p->section ? json_string(p->section) : json_null()));
        }
        free(sp);
        json_array_append_new(steps, json_pack("{s:i,s:o,s:o,s:o,s:o,s:s,s:o}", "seq", st->seq, "tool",
                                               st->tool ? json_string(st->tool) : json_null(), "status",
                                               st->status ? json_string(st->status) : json_null(), "wall_s",
                                               num(st->wall_s), "report_format",
                                               st->report_format ? json_string(st->report_format) : json_null(),
                                               "pass_order", pm_pass_order_name(st->order), "passes", ps));
    }
    json_t *npuw = json_object();
    for (int k = 0; k < PM_AN_NPUW_SETTINGS; k++) {
        double c, sent;
        if (npuw_setting(r, k, &c, &sent))
            json_object_set_new(npuw, pm_an_npuw_settings[k].label,
                                json_pack("{s:f,s:o}", "compiled", c, "sent", sent != c ? json_real(sent) : json_null()));
    }
    return json_pack("{s:i,s:{s:s,s:s},s:I,s:o,s:o,s:i,s:o,s:o,s:o,s:o}", "schema", 1, "units", "wall_s", "s", "share",
                     "fraction of the run's wall (0..1)", "run_id", (json_int_t)r->id, "config",
                     r->config_key ? json_string(r->config_key) : json_null(), "mode",
                     r->mode ? json_string(r->mode) : json_null(), "repeat", r->repeat, "status",
                     r->status ? json_string(r->status) : json_null(), "wall_s", num(r->wall_s), "steps", steps,
                     "npuw_settings", npuw);
}

/* Every config of the sweep: its representative cold run's wall, as a bar against the slowest. */
static int show_configs(sqlite3 *db, const char *path, const char *sweep, int width, int json, pm_err *err)
{
    int64_t sweep_id;
    char **keys = NULL;
    size_t n = 0;
    int rc = pm_store_pick_sweep(db, sweep, &sweep_id, err);
    if (rc || (rc = pm_store_config_keys(db, sweep_id, &keys, &n, err)))
        return rc;
    double *wall = calloc(n ? n : 1, sizeof *wall), max = 0;
    size_t key_w = 6;
    json_t *arr = json_array();
    for (size_t i = 0; i < n && wall; i++) {
        int64_t id;
        pm_stored_run r;
        pm_err ignored;
        wall[i] = -1;
        if (!pm_store_find_run(db, sweep_id, keys[i], "cold", -1, &id, &ignored) &&
            !pm_store_load_run(db, id, 0, &r, &ignored)) {
            wall[i] = r.wall_s;
            pm_stored_run_free(&r);
        }
        if (wall[i] > max)
            max = wall[i];
        if (strlen(keys[i]) > key_w)
            key_w = strlen(keys[i]);
        json_array_append_new(arr, json_pack("{s:s,s:o}", "config", keys[i], "cold_wall_s", num(wall[i])));
    }
    if (!wall) {
        rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    } else if (json) {
        json_t *j = json_pack("{s:i,s:{s:s},s:o}", "schema", 1, "units", "cold_wall_s", "s (median-wall cold run)",
                              "configs", arr);
        arr = NULL;
        json_dumpf(j, stdout, JSON_INDENT(2));
        putchar('\n');
        json_decref(j);
    } else {
        int bar = width - (int)key_w - 14;
        if (bar < 10)
            bar = 10;
        /* the hint on its own line, so the header never wraps at 80 columns */
        /* the hint names the store as given, so it can be copied as it stands; the command on a line of its own,
         * so only a long path makes it wider than the terminal */
        printf("(median-wall cold run; one config's pass tree:)\n  passmap show %s --config KEY\n%-*s %10s\n", path,
               (int)key_w, "config", "cold wall");
        for (size_t i = 0; i < n; i++) {
            if (wall[i] < 0) {
                printf("%-*s %10s  no successful cold run\n", (int)key_w, keys[i], "-");
                continue;
            }
            char w[32];
            pm_fmt_time(w, sizeof w, wall[i], 0);   /* the report's one duration format */
            printf("%-*s %10s  ", (int)key_w, keys[i], w);
            pm_show_bar(stdout, max > 0 ? wall[i] / max : 0, bar, isatty(STDOUT_FILENO));   /* NO_COLOR: no colour, same glyphs */
            putchar('\n');
        }
    }
    json_decref(arr);
    for (size_t i = 0; i < n; i++)
        free(keys[i]);
    free(keys);
    free(wall);
    return rc;
}

/* One run's pass tree on stdout, its stages from the --stage-map files (else the default map). */
static int show_tree(const pm_stored_run *run, const char **maps, int n_maps, pm_show_opts *o, pm_err *err)
{
    pm_stagemap *map = pm_stagemap_new();
    if (!map)
        return pm_err_set(err, PM_ERR_NOMEM, "out of memory");
    int rc = PM_OK;
    for (int i = 0; i < n_maps && rc == PM_OK; i++)
        rc = pm_stagemap_load(map, maps[i], err);
    if (!n_maps)
        rc = pm_stagemap_load_default(map, err);
    if (!rc) {
        o->map = pm_stagemap_rules(map) ? map : NULL;
        if (!(rc = pm_show_run(stdout, run, o, err)))
            print_npuw(stdout, run);
    }
    pm_stagemap_free(map);
    return rc;
}

/* The overview, a run's tree or its trace, as the options say. */
static int show_run(const show_cli *cli, int argc, char **argv)
{
    const char *config = cli->pick.config, *mode = cli->pick.mode, *sweep = cli->pick.sweep;
    const char **maps = cli->maps.v;
    int n_maps = (int)cli->maps.n, json = cli->json, repeat = cli->pick.repeat;
    long long run_id = cli->pick.run_id;
    double min_share = cli->min_share < 0 ? 0.005 : cli->min_share;
    if (cli_one_db(&show_cmd, argc) != CLI_GO || pm_cli_pick_check("show", &cli->pick))
        return PM_EXIT_USAGE;
    if (cli->chrome_trace) {
        if (json || n_maps || cli->min_share >= 0) {
            fprintf(stderr, "passmap show: --json, --min-share and --stage-map shape the tree, not --chrome-trace's trace\n");
            return PM_EXIT_USAGE;
        }
        return pm_cli_trace("show", argv[optind], &cli->pick,
                            strcmp(cli->chrome_trace, "-") ? cli->chrome_trace : NULL);
    }
    pm_err err = {0};
    sqlite3 *db = NULL;
    pm_stored_run run = {0};
    int ret = PM_EXIT_FAIL, rc;
    int64_t id;
    int width = cli_term_width(100);
    const char *nc = getenv("NO_COLOR");
    int color = isatty(STDOUT_FILENO) && !nc;
    if ((rc = pm_store_open_sqlite_readonly(argv[optind], &db, &err)))
        goto cleanup;
    if (!config && !run_id) {
        /* one config (an import): its tree; several: the overview */
        int64_t sweep_id;
        char **keys = NULL;
        size_t n = 0;
        if ((rc = pm_store_pick_sweep(db, sweep, &sweep_id, &err)) ||
            (rc = pm_store_config_keys(db, sweep_id, &keys, &n, &err)))
            goto cleanup;
        for (size_t i = 0; i < n; i++)
            free(keys[i]);
        free(keys);
        if (n != 1) {
            if ((rc = show_configs(db, argv[optind], sweep, width, json, &err)))
                goto cleanup;
            ret = PM_EXIT_OK;
            goto cleanup;
        }
    }
    if ((rc = pm_cli_pick_run(db, "show", sweep, config, mode, repeat, run_id, &id, &err)) ||
        (rc = pm_store_load_run(db, id, 1, &run, &err)))
        goto cleanup;
    if (json) {
        json_t *j = run_json(&run);
        json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(9));
        putchar('\n');
        json_decref(j);
    } else {
        pm_show_opts o = {.width = width, .color = color, .unicode = isatty(STDOUT_FILENO), .min_share = min_share};
        if ((rc = show_tree(&run, maps, n_maps, &o, &err)))
            goto cleanup;
    }
    ret = PM_EXIT_OK;
cleanup:
    if (ret != PM_EXIT_OK)
        fprintf(stderr, "passmap show: %s\n", err.msg[0] ? err.msg : "failed");
    if (ret != PM_EXIT_OK && err.code == PM_ERR_USAGE)
        ret = PM_EXIT_USAGE;
    pm_stored_run_free(&run);
    pm_store_db_close(db);
    return ret;
}

int cmd_show(int argc, char **argv)
{
    show_cli cli = {.pick = {.repeat = -1}, .min_share = -1};
    int ret = cli_parse_args(&show_cmd, argc, argv, &cli, NULL);
    if (ret == CLI_GO)
        ret = show_run(&cli, argc, argv);
    cli_list_free(&cli.maps);
    return ret;
}
