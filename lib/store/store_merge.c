/* pm_store_merge: one database's runs into another, as SQL over an ATTACHed input.
 *
 * Rows are copied with their ids shifted past the output's largest id (run, step, metric), so steps, passes and
 * metrics follow their run without a lookup per row; configs, sweeps and hosts are matched by their natural keys
 * (sweep name, config key, host name + fingerprint, pass name). A run is named by what it measured and where and
 * when: (sweep, config, mode, host, start time, status, wall). One already in the output is a duplicate and is
 * skipped, which makes merging idempotent and a killed merge resumable (each input is one transaction). The repeat
 * number is not part of it: `run --db` and `import` number repeats per database, so two machines' repeat 0 are two
 * measurements; a new run whose (config, mode, repeat) is taken is appended with the next free repeat. Column lists come from the schema, so a column added by a later migration is copied
 * too; a table the merge does not know is an error rather than data silently left behind. */
#include "store.h"
#include "store_internal.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct col_override {
    const char *column, *expr;
} col_override;

/* How each table is copied: the alias of the input table is s; extra is the FROM/WHERE tail. */
typedef struct table_copy {
    const char *table;
    const char *conflict;         /* "ON CONFLICT ... DO NOTHING" text, or NULL */
    int skip_id;                  /* the id column is assigned by the output (natural-key tables) */
    col_override overrides[4];
    const char *tail;
    const char *tail_all_new;     /* when every run of the input was new: no per-row filter (the common case) */
} table_copy;

static const table_copy copies[] = {
    {"sweep", NULL, 1, {{NULL, NULL}}, "FROM src.sweep s WHERE s.name NOT IN (SELECT name FROM main.sweep)", NULL},
    {"host", "ON CONFLICT(name, fingerprint) DO NOTHING", 1, {{NULL, NULL}}, "FROM src.host s WHERE 1", NULL},
    {"config",
     "ON CONFLICT(sweep_id, key) DO NOTHING",
     1,
     {{"sweep_id", "ms.id"}, {NULL, NULL}},
     "FROM src.config s JOIN src.sweep ss ON ss.id = s.sweep_id JOIN main.sweep ms ON ms.name = ss.name WHERE 1",
     NULL},
    /* A run already in the output (same config, mode, host, start, status and wall) is skipped; see the top. */
    {"run",
     NULL,
     0,
     {{"id", "s.id + @run_off"}, {"config_id", "cm.dst"}, {"host_id", "hm.dst"}, {NULL, NULL}},
     "FROM src.run s JOIN temp.pm_config_map cm ON cm.src = s.config_id\n"
     "  LEFT JOIN temp.pm_host_map hm ON hm.src = s.host_id\n"
     "WHERE NOT EXISTS (SELECT 1 FROM main.run x WHERE x.config_id = cm.dst AND x.mode = s.mode\n"
     "                  AND x.host_id IS hm.dst AND x.started_at = s.started_at AND x.status = s.status\n"
     "                  AND x.wall_s IS s.wall_s)",
     NULL},
    /* a config's parameters follow it (the config map is made with the runs, just above) */
    {"config_param",
     "ON CONFLICT(config_id, name) DO NOTHING",
     0,
     {{"config_id", "cm.dst"}, {NULL, NULL}},
     "FROM src.config_param s JOIN temp.pm_config_map cm ON cm.src = s.config_id WHERE 1",
     NULL},
    {"step",
     NULL,
     0,
     {{"id", "s.id + @step_off"}, {"run_id", "s.run_id + @run_off"}, {NULL, NULL}},
     "FROM src.step s WHERE s.run_id IN (SELECT id - @run_off FROM main.run WHERE id > @run_off)",
     "FROM src.step s"},
    /* pass names by name (ids are per file); the name map is made right after, for pass_time below */
    {"pass_name", "ON CONFLICT(name) DO NOTHING", 1, {{NULL, NULL}}, "FROM src.pass_name s WHERE 1", NULL},
    {"pass_time",
     NULL,
     0,
     {{"step_id", "s.step_id + @step_off"},
      {"name_id", "(SELECT dst FROM temp.pm_name_map WHERE src = s.name_id)"},
      {NULL, NULL}},
     "FROM src.pass_time s WHERE s.step_id IN (SELECT id - @step_off FROM main.step WHERE id > @step_off)",
     "FROM src.pass_time s"},
    {"pass_count",
     NULL,
     0,
     {{"step_id", "s.step_id + @step_off"}, {NULL, NULL}},
     "FROM src.pass_count s WHERE s.step_id IN (SELECT id - @step_off FROM main.step WHERE id > @step_off)",
     "FROM src.pass_count s"},
    {"metric",
     NULL,
     0,
     {{"id", "s.id + @metric_off"},
      {"run_id", "s.run_id + @run_off"},
      {"step_id", "s.step_id + @step_off"},
      {NULL, NULL}},
     "FROM src.metric s WHERE s.run_id IN (SELECT id - @run_off FROM main.run WHERE id > @run_off)",
     "FROM src.metric s"},
    {"shard",
     "ON CONFLICT(sweep_id, shard_n, config_key) DO NOTHING",
     0,
     {{"sweep_id", "ms.id"}, {NULL, NULL}},
     "FROM src.shard s JOIN src.sweep ss ON ss.id = s.sweep_id JOIN main.sweep ms ON ms.name = ss.name WHERE 1",
     NULL},
    /* start-up runs of a sweep on a machine (the host map is made with the runs, above) */
    {"startup",
     "ON CONFLICT(sweep_id, host_id, tool, repeat) DO NOTHING",
     1,
     {{"sweep_id", "ms.id"}, {"host_id", "hm.dst"}, {NULL, NULL}},
     "FROM src.startup s JOIN src.sweep ss ON ss.id = s.sweep_id JOIN main.sweep ms ON ms.name = ss.name\n"
     "  LEFT JOIN temp.pm_host_map hm ON hm.src = s.host_id WHERE 1",
     NULL},
    /* the tools each sweep ran on each machine (schema 7) */
    {"tool",
     "ON CONFLICT(sweep_id, host_id, name, path, hash) DO NOTHING",
     1,
     {{"sweep_id", "ms.id"}, {"host_id", "hm.dst"}, {NULL, NULL}},
     "FROM src.tool s JOIN src.sweep ss ON ss.id = s.sweep_id JOIN main.sweep ms ON ms.name = ss.name\n"
     "  LEFT JOIN temp.pm_host_map hm ON hm.src = s.host_id WHERE 1",
     NULL},
    {"meta", "ON CONFLICT(key) DO NOTHING", 0, {{NULL, NULL}}, "FROM src.meta s WHERE 1", NULL},
    /* The input's own merge history (it may itself be a merge), once. */
    {"merge_log",
     NULL,
     1,
     {{NULL, NULL}},
     "FROM src.merge_log s WHERE NOT EXISTS (SELECT 1 FROM main.merge_log x WHERE x.source = s.source\n"
     "  AND x.merged_at = s.merged_at AND x.sweep IS s.sweep)",
     NULL},
};

/* The compiler a sweep measured, from its method metadata: fields that differ between two stores of the
 * same sweep mean the runs are not of the same compiler. */
#define IDENT(field) "CASE WHEN json_valid(%s.meta_json) THEN json_extract(%s.meta_json, '$." field "') END"
static const char *const ident_fields[] = {"compiler", "compiler_version", "\"ov.version\"",
                                           "\"ov.compiler_version\""};

typedef struct merge_ctx {
    pm_store *out;
    sqlite3 *db;
    const char *in_path;
    pm_err *err;
    long long run_off, step_off, metric_off;
} merge_ctx;

static int db_fail(merge_ctx *m, const char *what)
{
    return pm_err_set(m->err, PM_ERR_DB, "merging %s: %s: %s", m->in_path, what, sqlite3_errmsg(m->db));
}

static int exec(merge_ctx *m, const char *sql, const char *what)
{
    char *msg = NULL;
    if (sqlite3_exec(m->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        pm_err_set(m->err, PM_ERR_DB, "merging %s: %s: %s", m->in_path, what, msg ? msg : sqlite3_errmsg(m->db));
        sqlite3_free(msg);
        return PM_ERR_DB;
    }
    return PM_OK;
}

/* Runs a query that yields one integer (or text into buf when buf is given). */
static int query_one(merge_ctx *m, const char *sql, long long *v, char *buf, size_t cap, const char *what)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(m->db, sql, -1, &s, NULL) != SQLITE_OK)
        return db_fail(m, what);
    int rc = PM_OK, step = sqlite3_step(s);
    if (step == SQLITE_ROW) {
        if (v)
            *v = sqlite3_column_int64(s, 0);
        if (buf) {
            const unsigned char *t = sqlite3_column_text(s, 0);
            snprintf(buf, cap, "%s", t ? (const char *)t : "");
        }
    } else if (step != SQLITE_DONE) {
        rc = db_fail(m, what);
    } else if (buf) {
        buf[0] = '\0';
    }
    sqlite3_finalize(s);
    return rc;
}

/* Column names of SCHEMA.TABLE, in order. */
static int columns(merge_ctx *m, const char *schema, const char *table, char ***cols, int *n, pm_err *err)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT name FROM pragma_table_info('%s', '%s') ORDER BY cid", table, schema);
    sqlite3_stmt *s = NULL;
    *cols = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(m->db, sql, -1, &s, NULL) != SQLITE_OK)
        return db_fail(m, "table columns");
    int rc = PM_OK, step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        char **c = realloc(*cols, (size_t)(*n + 1) * sizeof *c);
        if (!c || !(c[*n] = strdup((const char *)sqlite3_column_text(s, 0)))) {
            if (c)
                *cols = c;
            rc = pm_err_set(err, PM_ERR_NOMEM, "out of memory");
            break;
        }
        *cols = c;
        (*n)++;
    }
    if (rc == PM_OK && step != SQLITE_DONE)
        rc = db_fail(m, "table columns");
    sqlite3_finalize(s);
    return rc;
}

static void free_cols(char **cols, int n)
{
    pm_free_strs(cols, n);
}

/* Replaces @run_off etc. by the offsets (the same statement text is not reused across inputs). */
static void add_expr(pm_sbuf *b, const merge_ctx *m, const char *expr)
{
    static const struct { const char *name; size_t off; } vars[] = {
        {"@run_off", offsetof(merge_ctx, run_off)}, {"@step_off", offsetof(merge_ctx, step_off)},
        {"@metric_off", offsetof(merge_ctx, metric_off)}};
    while (*expr) {
        size_t i, n = 0;
        for (i = 0; i < sizeof vars / sizeof vars[0]; i++)
            if (!strncmp(expr, vars[i].name, n = strlen(vars[i].name)))
                break;
        if (i < sizeof vars / sizeof vars[0]) {
            pm_sbuf_add(b, "%lld", *(const long long *)((const char *)m + vars[i].off));
            expr += n;
        } else {
            pm_sbuf_add(b, "%c", *expr++);
        }
    }
}

static int copy_table(merge_ctx *m, const table_copy *t, int all_new, long long *changed)
{
    char **out_cols = NULL, **in_cols = NULL;
    int n_out = 0, n_in = 0, rc;
    pm_sbuf b = {0};
    if ((rc = columns(m, "main", t->table, &out_cols, &n_out, m->err)) ||
        (rc = columns(m, "src", t->table, &in_cols, &n_in, m->err)))
        goto cleanup;
    /* Both are at the same schema version, so this only catches a schema this passmap does not know. */
    for (int i = 0; i < n_in; i++) {
        int found = 0;
        for (int j = 0; j < n_out && !found; j++)
            found = !strcmp(in_cols[i], out_cols[j]);
        if (!found) {
            rc = pm_err_set(m->err, PM_ERR_UNSUPPORTED, "%s: column %s.%s is unknown to the output database",
                            m->in_path, t->table, in_cols[i]);
            goto cleanup;
        }
    }
    pm_sbuf_add(&b, "INSERT INTO main.%s(", t->table);
    int first = 1;
    for (int i = 0; i < n_out; i++) {
        if (t->skip_id && !strcmp(out_cols[i], "id"))
            continue;
        pm_sbuf_add(&b, "%s\"%s\"", first ? "" : ", ", out_cols[i]);
        first = 0;
    }
    pm_sbuf_add(&b, ") SELECT ");
    first = 1;
    for (int i = 0; i < n_out; i++) {
        if (t->skip_id && !strcmp(out_cols[i], "id"))
            continue;
        const char *expr = NULL;
        for (const col_override *o = t->overrides; o->column; o++)
            if (!strcmp(o->column, out_cols[i]))
                expr = o->expr;
        pm_sbuf_add(&b, "%s", first ? "" : ", ");
        if (expr)
            add_expr(&b, m, expr);
        else
            pm_sbuf_add(&b, "s.\"%s\"", out_cols[i]);
        first = 0;
    }
    pm_sbuf_add(&b, "\n");
    add_expr(&b, m, all_new && t->tail_all_new ? t->tail_all_new : t->tail);
    if (t->conflict)
        pm_sbuf_add(&b, " %s", t->conflict); /* the tails end in WHERE ..., which the upsert syntax needs */
    if (b.oom) {
        rc = pm_err_set(m->err, PM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    if ((rc = exec(m, b.s, t->table)) == PM_OK && changed)
        *changed = sqlite3_changes64(m->db);
cleanup:
    free(b.s);
    free_cols(out_cols, n_out);
    free_cols(in_cols, n_in);
    return rc;
}

/* Every table of the input must be one the merge copies (or derived data SQLite keeps itself). */
static int check_tables(merge_ctx *m)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(m->db, "SELECT name FROM src.sqlite_schema WHERE type = 'table' "
                                  "AND name NOT LIKE 'sqlite_%'", -1, &s, NULL) != SQLITE_OK)
        return db_fail(m, "tables");
    int rc = PM_OK, step;
    while (rc == PM_OK && (step = sqlite3_step(s)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(s, 0);
        /* the report's aggregates (agg_*) are copied apart (pm_store_agg_merge), or summed again in the output
         * where a config's sums must follow its runs in the output's id order */
        int known = !strncmp(name, "agg_", 4);
        for (size_t i = 0; i < sizeof copies / sizeof copies[0] && !known; i++)
            known = !strcmp(copies[i].table, name);
        if (!known)
            rc = pm_err_set(m->err, PM_ERR_UNSUPPORTED, "%s: table %s is unknown to passmap merge", m->in_path,
                            name);
    }
    sqlite3_finalize(s);
    return rc;
}

/* Sweeps present in both stores must be the same study of the same compiler. */
static int check_sweeps(merge_ctx *m, int force, pm_merge_result *res)
{
    pm_sbuf b = {0};
    pm_sbuf_add(&b, "SELECT ss.name, (ms.spec_text IS NOT NULL AND ss.spec_text IS NOT NULL "
               "AND ms.spec_text <> ss.spec_text)");
    for (size_t i = 0; i < sizeof ident_fields / sizeof ident_fields[0]; i++) {
        char a[256], c[256];
        snprintf(a, sizeof a, IDENT("%s"), "ms", "ms", ident_fields[i]);
        snprintf(c, sizeof c, IDENT("%s"), "ss", "ss", ident_fields[i]);
        pm_sbuf_add(&b, ", (SELECT %s || ' vs ' || %s WHERE %s IS NOT NULL AND %s IS NOT NULL AND %s <> %s)", a, c, a,
               c, a, c);
    }
    pm_sbuf_add(&b, " FROM src.sweep ss JOIN main.sweep ms ON ms.name = ss.name ORDER BY ss.name");
    if (b.oom)
        return pm_err_set(m->err, PM_ERR_NOMEM, "out of memory");
    sqlite3_stmt *s = NULL;
    int rc = PM_OK, step;
    if (sqlite3_prepare_v2(m->db, b.s, -1, &s, NULL) != SQLITE_OK) {
        free(b.s);
        return db_fail(m, "compare sweeps");
    }
    free(b.s);
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(s, 0);
        char why[400] = "";
        if (sqlite3_column_int(s, 1))
            snprintf(why, sizeof why, "sweep '%s' has a different spec text", name);
        for (int i = 0; !why[0] && i < (int)(sizeof ident_fields / sizeof ident_fields[0]); i++)
            if (sqlite3_column_type(s, 2 + i) != SQLITE_NULL)
                snprintf(why, sizeof why, "sweep '%s' was measured with another compiler (%s %s)", name,
                         ident_fields[i], (const char *)sqlite3_column_text(s, 2 + i));
        if (!why[0])
            continue;
        if (!force) {
            res->refused = 1;
            snprintf(res->reason, sizeof res->reason, "%s than %s (--force merges it anyway, recorded)", why,
                     pm_store_path(m->out));
            break;
        }
        res->forced = 1;
        snprintf(res->reason, sizeof res->reason, "forced: %s", why);
    }
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        rc = db_fail(m, "compare sweeps");
    sqlite3_finalize(s);
    return rc;
}

/* A message cut to its buffer says so. */
static void mark_cut(char *buf, size_t cap, int written)
{
    if (written >= (int)cap && cap > 4)
        memcpy(buf + cap - 4, "...", 4);
}

/* The tool builds of the sweeps present in both stores: a tool that both stores ran under the same name and
 * program word (tool.invoked: `clang`, `llc-14`) whose (hash, --version text less the lines describing the
 * machine, pm_version_text_part) one store has and the other lacks is another compiler build; the path and the
 * host CPU LLVM prints may differ across machines (a cluster of mixed CPUs runs one binary). A word only one store ran is no conflict (a
 * spec whose axis picks the build, sharded: llc-14 on one machine, llc-19 on the other). A row recorded before
 * schema 8 (invoked NULL) matches every word of its name. Stores recorded before tool identity (no rows for the
 * sweep) are not compared here. */
#define SAME_WORD(x, y) "x.name = " y ".name AND (x.invoked IS NULL OR " y ".invoked IS NULL OR x.invoked = " y ".invoked)"
static int check_tools(merge_ctx *m, int force, pm_merge_result *res)
{
    static const char sql[] =
        "WITH a AS (SELECT ss.name AS sweep, t.name, t.invoked, t.hash, t.version_text, 'in' AS side, ms.id AS mid,\n"
        "    ss.id AS sid FROM src.tool t JOIN src.sweep ss ON ss.id = t.sweep_id JOIN main.sweep ms ON ms.name = ss.name),\n"
        "  b AS (SELECT ms.name AS sweep, t.name, t.invoked, t.hash, t.version_text, 'out' AS side, ms.id AS mid,\n"
        "    ss.id AS sid FROM main.tool t JOIN main.sweep ms ON ms.id = t.sweep_id JOIN src.sweep ss ON ss.name = ms.name)\n"
        "SELECT a.sweep, coalesce(a.invoked, a.name), a.hash, a.version_text, a.side,\n"
        "  (SELECT x.hash FROM main.tool x WHERE x.sweep_id = a.mid AND " SAME_WORD(x, "a") " LIMIT 1),\n"
        "  (SELECT x.version_text FROM main.tool x WHERE x.sweep_id = a.mid AND " SAME_WORD(x, "a") " LIMIT 1)\n"
        "FROM a WHERE EXISTS (SELECT 1 FROM main.tool x WHERE x.sweep_id = a.mid AND " SAME_WORD(x, "a") ")\n"
        "  AND NOT EXISTS (SELECT 1 FROM main.tool x WHERE x.sweep_id = a.mid AND " SAME_WORD(x, "a") "\n"
        "                  AND x.hash = a.hash AND pm_build_text(x.version_text) = pm_build_text(a.version_text))\n"
        "UNION ALL\n"
        "SELECT b.sweep, coalesce(b.invoked, b.name), b.hash, b.version_text, b.side,\n"
        "  (SELECT x.hash FROM src.tool x WHERE x.sweep_id = b.sid AND " SAME_WORD(x, "b") " LIMIT 1),\n"
        "  (SELECT x.version_text FROM src.tool x WHERE x.sweep_id = b.sid AND " SAME_WORD(x, "b") " LIMIT 1)\n"
        "FROM b WHERE EXISTS (SELECT 1 FROM src.tool x WHERE x.sweep_id = b.sid AND " SAME_WORD(x, "b") ")\n"
        "  AND NOT EXISTS (SELECT 1 FROM src.tool x WHERE x.sweep_id = b.sid AND " SAME_WORD(x, "b") "\n"
        "                  AND x.hash = b.hash AND pm_build_text(x.version_text) = pm_build_text(b.version_text))\n"
        "LIMIT 1";
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(m->db, sql, -1, &s, NULL) != SQLITE_OK)
        return db_fail(m, "compare tools");
    int rc = PM_OK, step = sqlite3_step(s);
    if (step == SQLITE_ROW) {
        const char *sweep = (const char *)sqlite3_column_text(s, 0), *name = (const char *)sqlite3_column_text(s, 1);
        const char *hash = (const char *)sqlite3_column_text(s, 2), *side = (const char *)sqlite3_column_text(s, 4);
        const char *other_hash = (const char *)sqlite3_column_text(s, 5);
        char v[128], ov[128], why[480];
        pm_version_line((const char *)sqlite3_column_text(s, 3), v, sizeof v);
        pm_version_line((const char *)sqlite3_column_text(s, 6), ov, sizeof ov);
        int in = !strcmp(side, "in");
        snprintf(why, sizeof why, "sweep '%s' ran another build of %s: %s (%s) in %s, %s (%s) in %s", sweep, name,
                 in ? hash : other_hash ? other_hash : "none", in ? v : other_hash ? ov : "-", m->in_path,
                 in ? (other_hash ? other_hash : "none") : hash, in ? (other_hash ? ov : "-") : v,
                 pm_store_path(m->out));
        if (!force) {
            res->refused = 1;
            mark_cut(res->reason, sizeof res->reason,
                     snprintf(res->reason, sizeof res->reason, "%s (--force merges it anyway, recorded; the report "
                              "then names both builds)", why));
        } else {
            /* appended to a spec difference already forced: the log keeps both */
            size_t used = strlen(res->reason);
            mark_cut(res->reason + used, sizeof res->reason - used,
                     snprintf(res->reason + used, sizeof res->reason - used, "%sforced: %s", used ? "; " : "", why));
            res->forced = 1;
        }
    } else if (step != SQLITE_DONE) {
        rc = db_fail(m, "compare tools");
    }
    sqlite3_finalize(s);
    return rc;
}

/* The same build run on machines that describe themselves differently in its --version (Host CPU): ignored as a
 * build difference, and said in res->note. */
static int note_host_lines(merge_ctx *m, pm_merge_result *res)
{
    static const char sql[] =
        "SELECT coalesce(t.invoked, t.name), pm_host_text(t.version_text), pm_host_text(x.version_text)\n"
        "FROM src.tool t JOIN src.sweep ss ON ss.id = t.sweep_id JOIN main.sweep ms ON ms.name = ss.name\n"
        "  JOIN main.tool x ON x.sweep_id = ms.id AND " SAME_WORD(x, "t") " AND x.hash = t.hash\n"
        "WHERE pm_build_text(x.version_text) = pm_build_text(t.version_text)\n"
        "  AND pm_host_text(x.version_text) <> pm_host_text(t.version_text) LIMIT 1";
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(m->db, sql, -1, &s, NULL) != SQLITE_OK)
        return db_fail(m, "compare tools' host lines");
    int rc = PM_OK, step = sqlite3_step(s);
    if (step == SQLITE_ROW) {
        char in[160], out[160];
        pm_version_line((const char *)sqlite3_column_text(s, 1), in, sizeof in);
        pm_version_line((const char *)sqlite3_column_text(s, 2), out, sizeof out);
        mark_cut(res->note, sizeof res->note,
                 snprintf(res->note, sizeof res->note, "%s: one build (same hash and version) on other machines; "
                          "their lines '%s' (%s) and '%s' (%s) are not the build's, ignored",
                          (const char *)sqlite3_column_text(s, 0), in, m->in_path, out, pm_store_path(m->out)));
    } else if (step != SQLITE_DONE) {
        rc = db_fail(m, "compare tools' host lines");
    }
    sqlite3_finalize(s);
    return rc;
}
#undef SAME_WORD

/* pm_build_text(version_text) and pm_host_text(version_text) in this connection's SQL: pm_version_text_part. */
static void version_part_sql(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
    (void)argc;
    const unsigned char *t = sqlite3_value_text(argv[0]);
    char *part = pm_version_text_part((const char *)t, sqlite3_user_data(cx) != NULL);
    if (!part) {
        sqlite3_result_error_nomem(cx);
        return;
    }
    sqlite3_result_text(cx, part, -1, free);
}

/* Whether fingerprint text `with` is `without` plus its input files' lines ("input NAME: HASH"), and `without`
 * has none: a store recorded before the fingerprint held the inputs' contents, with the same steps and builds. */
static int only_inputs_added(const char *without, const char *with)
{
    if (!without || !with || !strncmp(without, "input ", 6) || strstr(without, "\ninput "))
        return 0;
    size_t n = strlen(without);
    for (const char *p = with; *p;) { /* `with` less its input lines, matched against `without` as it goes */
        size_t k = strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n');
        if (strncmp(p, "input ", 6)) {
            if (k > n || strncmp(without, p, k))
                return 0;
            without += k, n -= k;
        }
        p += k;
    }
    return n == 0;
}

/* A config of the same sweep in both stores whose steps differ (fingerprints recorded by both): its runs
 * are two measurements, which one key must never mix; refused even with --force. A store recorded before
 * fingerprints held the input files' contents, with the same steps otherwise, is refused for what it is: the
 * contents its runs compiled cannot be verified (said, with what to do). */
static int check_configs(merge_ctx *m, pm_merge_result *res)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(m->db,
                           "SELECT ss.name, c.key, mc.fingerprint_text, c.fingerprint_text\n"
                           "FROM src.config c JOIN src.sweep ss ON ss.id = c.sweep_id\n"
                           "  JOIN main.sweep ms ON ms.name = ss.name JOIN main.config mc ON mc.sweep_id = ms.id\n"
                           "  AND mc.key = c.key WHERE c.fingerprint <> mc.fingerprint ORDER BY ss.name, c.key",
                           -1, &s, NULL) != SQLITE_OK)
        return db_fail(m, "compare config fingerprints");
    int rc = PM_OK, step, n_steps = 0, n_inputs = 0, old_in = 0;
    char first_steps[600] = "", first_inputs[300] = "";
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        const char *sweep = (const char *)sqlite3_column_text(s, 0), *key = (const char *)sqlite3_column_text(s, 1);
        const char *out_text = (const char *)sqlite3_column_text(s, 2);
        const char *in_text = (const char *)sqlite3_column_text(s, 3);
        int in_old = only_inputs_added(in_text, out_text), out_old = !in_old && only_inputs_added(out_text, in_text);
        if (in_old || out_old) {
            if (!n_inputs++) {
                snprintf(first_inputs, sizeof first_inputs, "sweep '%s', config %s", sweep, key);
                old_in = in_old;
            }
        } else if (!n_steps++) {
            char diff[400];
            pm_fp_diff(out_text, in_text, diff, sizeof diff);
            snprintf(first_steps, sizeof first_steps, "sweep '%s', config %s: other steps than in %s (%s)", sweep, key,
                     pm_store_path(m->out), diff);
        }
    }
    if (step != SQLITE_DONE)
        rc = db_fail(m, "compare config fingerprints");
    sqlite3_finalize(s);
    if (rc || !(n_steps || n_inputs))
        return rc;
    res->refused = 1;
    res->forced = 0;
    int n = n_steps ? n_steps : n_inputs;
    char more[64] = "";
    if (n > 1)
        snprintf(more, sizeof more, "; %d more config%s differ", n - 1, n - 1 == 1 ? "" : "s");
    if (n_steps)
        mark_cut(res->reason, sizeof res->reason,
                 snprintf(res->reason, sizeof res->reason,
                          "%s%s: one config key never mixes two measurements, not even with --force; sweep it under "
                          "another name",
                          first_steps, more));
    else
        mark_cut(
            res->reason, sizeof res->reason,
            snprintf(res->reason, sizeof res->reason,
                     "%s%s: %s was recorded before passmap fingerprinted input files' contents, so the files its runs "
                     "compiled cannot be verified against %s's; not mixed, not even with --force. Rerun that shard "
                     "with this passmap into a new database and merge that; or, if its input files are unchanged, "
                     "resume it once with this passmap (passmap sweep SPEC --db %s, with its --shard): the resume "
                     "records their contents, then merge again",
                     first_inputs, more, old_in ? m->in_path : pm_store_path(m->out),
                     old_in ? pm_store_path(m->out) : m->in_path, old_in ? m->in_path : pm_store_path(m->out)));
    return PM_OK;
}

/* The version functions the checks call, and the input ATTACHed as src (its upgraded copy when there is one). */
static int merge_attach(merge_ctx *m, const char *copy)
{
    static char host_part = 1;   /* the user data of pm_host_text: non-NULL */
    if (sqlite3_create_function_v2(m->db, "pm_build_text", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                                   version_part_sql, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_create_function_v2(m->db, "pm_host_text", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, &host_part,
                                   version_part_sql, NULL, NULL, NULL) != SQLITE_OK)
        return db_fail(m, "register the version functions");
    sqlite3_stmt *att = NULL;
    if (sqlite3_prepare_v2(m->db, "ATTACH DATABASE ?1 AS src", -1, &att, NULL) != SQLITE_OK)
        return db_fail(m, "attach");
    sqlite3_bind_text(att, 1, copy[0] ? copy : m->in_path, -1, SQLITE_TRANSIENT);
    int step = sqlite3_step(att);
    sqlite3_finalize(att);
    if (step != SQLITE_DONE)
        return db_fail(m, "attach");
    return PM_OK;
}

/* Every table's new rows, in the order of copies[]: runs renumbered where their repeat is taken, pass names
 * mapped, the per-run tables copied whole when every run is new. */
static int merge_rows(merge_ctx *m, long long n_in, long long *merged_out)
{
    int rc = PM_OK;
    long long merged = 0;
    for (size_t i = 0; i < sizeof copies / sizeof copies[0] && rc == PM_OK; i++) {
        const table_copy *t = &copies[i];
        if (!strcmp(t->table, "run")) {
            rc = exec(m,
                      "DROP TABLE IF EXISTS temp.pm_config_map; DROP TABLE IF EXISTS temp.pm_host_map;\n"
                      "CREATE TEMP TABLE pm_config_map(src INTEGER PRIMARY KEY, dst INTEGER NOT NULL);\n"
                      "INSERT INTO temp.pm_config_map SELECT c.id, mc.id FROM src.config c\n"
                      "  JOIN src.sweep ss ON ss.id = c.sweep_id JOIN main.sweep ms ON ms.name = ss.name\n"
                      "  JOIN main.config mc ON mc.sweep_id = ms.id AND mc.key = c.key;\n"
                      "CREATE TEMP TABLE pm_host_map(src INTEGER PRIMARY KEY, dst INTEGER NOT NULL);\n"
                      "INSERT INTO temp.pm_host_map SELECT h.id, mh.id FROM src.host h\n"
                      "  JOIN main.host mh ON mh.name = h.name AND mh.fingerprint = h.fingerprint;",
                      "map configs and hosts");
            if (rc == PM_OK)
                rc = copy_table(m, t, 0, &merged);
            /* A new run whose repeat number is taken (by a run already there, or an earlier new one) gets the
             * next free numbers of its (config, mode), in id order. The numbers are computed before the update
             * so each sees the same maximum. */
            if (rc == PM_OK && merged > 0) {
                pm_sbuf b = {0};
                pm_sbuf_add(&b,
                            "DROP TABLE IF EXISTS temp.pm_renum;\n"
                            "CREATE TEMP TABLE pm_renum AS SELECT r.id AS id,\n"
                            "  (SELECT max(m2.repeat) FROM main.run m2 WHERE m2.config_id = r.config_id\n"
                            "     AND m2.mode = r.mode)\n"
                            "  + row_number() OVER (PARTITION BY r.config_id, r.mode ORDER BY r.id) AS rep\n"
                            "FROM main.run r WHERE r.id > %lld AND EXISTS (SELECT 1 FROM main.run o\n"
                            "  WHERE o.config_id = r.config_id AND o.mode = r.mode AND o.repeat = r.repeat\n"
                            "    AND o.id < r.id);\n"
                            "UPDATE main.run SET repeat = (SELECT rep FROM temp.pm_renum p WHERE p.id = run.id)\n"
                            "  WHERE id IN (SELECT id FROM temp.pm_renum);\n"
                            "DROP TABLE temp.pm_renum;",
                            m->run_off);
                rc = b.oom ? pm_err_set(m->err, PM_ERR_NOMEM, "out of memory") : exec(m, b.s, "renumber repeats");
                free(b.s);
            }
        } else if (!strcmp(t->table, "pass_name")) {
            if ((rc = copy_table(m, t, 0, NULL)) == PM_OK)
                rc = exec(m,
                          "DROP TABLE IF EXISTS temp.pm_name_map;\n"
                          "CREATE TEMP TABLE pm_name_map(src INTEGER PRIMARY KEY, dst INTEGER NOT NULL);\n"
                          "INSERT INTO temp.pm_name_map SELECT s.id, n.id FROM src.pass_name s\n"
                          "  JOIN main.pass_name n ON n.name = s.name;",
                          "map pass names");
        } else if (t->tail_all_new && merged == n_in) {
            /* Every run is new: rows are copied without a per-row filter, as the peer copy would. A row whose
             * run or step is missing in the input (a hand-edited file) fails the foreign key: then this table
             * is copied again with the filter, which leaves such orphans behind. */
            if ((rc = exec(m, "SAVEPOINT pm_rows", "savepoint")) != PM_OK)
                break;
            rc = copy_table(m, t, 1, NULL);
            if (rc == PM_ERR_DB && sqlite3_extended_errcode(m->db) == SQLITE_CONSTRAINT_FOREIGNKEY) {
                pm_err_clear(m->err);
                rc = exec(m, "ROLLBACK TO pm_rows", "rollback to savepoint");
                if (rc == PM_OK)
                    rc = copy_table(m, t, 0, NULL);
            }
            if (rc == PM_OK)
                rc = exec(m, "RELEASE pm_rows", "release savepoint");
        } else {
            rc = copy_table(m, t, 0, NULL);
        }
    }
    *merged_out = merged;
    return rc;
}

/* The merge_log row: what was merged from where, and what was forced or ignored. */
static int merge_log(merge_ctx *m, long long merged, long long n_in, const pm_merge_result *res)
{
    int rc = PM_OK;
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(m->db,
                           "INSERT INTO main.merge_log(source, sweep, runs_merged, runs_skipped, forced, note)\n"
                           "VALUES(?1, (SELECT group_concat(name, ',') FROM src.sweep), ?2, ?3, ?4, ?5)",
                           -1, &s, NULL) != SQLITE_OK)
        return db_fail(m, "merge log");
    sqlite3_bind_text(s, 1, m->in_path, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(s, 2, merged);
    sqlite3_bind_int64(s, 3, n_in - merged);
    sqlite3_bind_int(s, 4, res->forced);
    if (res->reason[0] || res->note[0])   /* the log keeps what was ignored too */
        sqlite3_bind_text(s, 5, res->reason[0] ? res->reason : res->note, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(s) != SQLITE_DONE)
        rc = db_fail(m, "merge log");
    sqlite3_finalize(s);
    return rc;
}

int pm_store_merge(pm_store *out, const char *in_path, int force, pm_merge_result *res, pm_err *err)
{
    merge_ctx m = {.out = out, .db = pm_store_db(out), .in_path = in_path, .err = err};
    int rc = PM_OK, attached = 0, in_txn = 0;
    memset(res, 0, sizeof *res);
    struct stat sb;
    if (stat(in_path, &sb) != 0)
        return errno == ENOENT ? pm_err_set(err, PM_ERR_NOTFOUND, "%s: no such database", in_path)
                               : pm_err_errno(err, PM_ERR_IO, "%s", in_path);
    if (!S_ISREG(sb.st_mode))
        return pm_err_set(err, PM_ERR_USAGE, "%s: not a regular file", in_path);
    if (pm_store_same_file(in_path, pm_store_path(out)))
        return pm_err_set(err, PM_ERR_USAGE, "%s is the output database itself: a store cannot be merged into itself",
                          in_path);
    if ((rc = pm_store_writer_check(in_path, err)) != PM_OK)
        return rc;
    char copy[PATH_MAX + 32];
    if ((rc = pm_store_merge_input_copy(in_path, pm_store_path(out), pm_store_schema_version(out), copy, sizeof copy,
                                        err))) {
        pm_store_merge_remove_copy(copy);
        return rc;
    }

    if ((rc = merge_attach(&m, copy)))
        goto cleanup;
    attached = 1;
    /* The id maps are small: kept in memory instead of a temporary file per input. */
    if ((rc = exec(&m, "PRAGMA temp_store = MEMORY", "temp store")) || (rc = exec(&m, "BEGIN IMMEDIATE", "begin")))
        goto cleanup;
    in_txn = 1;
    long long n_in = 0;
    if ((rc = check_tables(&m)) || (rc = check_sweeps(&m, force, res)))
        goto cleanup;
    if (!res->refused && ((rc = check_tools(&m, force, res)) || (rc = note_host_lines(&m, res))))
        goto cleanup;
    if (!res->refused && (rc = check_configs(&m, res)))
        goto cleanup;
    if (res->refused)
        goto cleanup;
    if ((rc = query_one(&m, "SELECT count(*) FROM src.run", &n_in, NULL, 0, "count runs")) ||
        (rc = query_one(&m, "SELECT coalesce(max(id), 0) FROM main.run", &m.run_off, NULL, 0, "max run")) ||
        (rc = query_one(&m, "SELECT coalesce(max(id), 0) FROM main.step", &m.step_off, NULL, 0, "max step")) ||
        (rc = query_one(&m, "SELECT coalesce(max(id), 0) FROM main.metric", &m.metric_off, NULL, 0, "max metric")))
        goto cleanup;
    long long merged = 0;
    rc = merge_rows(&m, n_in, &merged);
    /* The report's aggregates: an input's own (each shard of a sweep has them) when every run was new, else
     * summed from the merged runs' pass rows (which costs about as much as copying the rows) */
    int agg_copied = 0;
    if (rc == PM_OK && merged > 0 && merged == n_in)
        rc = pm_store_agg_merge(out, m.run_off, &agg_copied, err);
    if (rc == PM_OK && merged > 0 && !agg_copied)
        rc = pm_store_agg_after(out, m.run_off, err);
    if (rc)
        goto cleanup;
    res->runs_merged = (int)merged;
    res->runs_skipped = (int)(n_in - merged);
    if (merged > 0 || res->forced) {
        /* A merge that added nothing leaves no trace, so merging again changes nothing at all. */
        if ((rc = merge_log(&m, merged, n_in, res)))
            goto cleanup;
    }
    if ((rc = exec(&m, "COMMIT", "commit")) == PM_OK)
        in_txn = 0;
cleanup:
    if (in_txn)
        sqlite3_exec(m.db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_exec(m.db, "DROP TABLE IF EXISTS temp.pm_config_map; DROP TABLE IF EXISTS temp.pm_host_map; "
                       "DROP TABLE IF EXISTS temp.pm_name_map; DROP TABLE IF EXISTS temp.pm_renum;", NULL, NULL, NULL);
    if (attached)
        sqlite3_exec(m.db, "DETACH DATABASE src", NULL, NULL, NULL);
    pm_store_merge_remove_copy(copy);
    if (res->refused) {
        res->runs_merged = res->runs_skipped = 0;
    }
    return rc;
}
