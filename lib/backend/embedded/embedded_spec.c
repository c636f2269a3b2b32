/* The embedded back end's [embedded] section, the pipeline keys every workload section takes, and a config's
 * tile and unroll read back: below the row (embedded.c) and its fix side (embedded_fix.c), which both read them. */
#include "embedded_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"

/* The keys [embedded] reads (for "did you mean" on a mistyped one). */
static const char *const embedded_keys[] = {"tile",   "unroll",  "llc_opt",      "json", "single_thread",
                                            "bindir", "display", "timing_twins", NULL};

static int embedded_scalar(pm_spec_entry *e, pm_embedded_spec *s, pm_err *err)
{
    char what[160];
    pm_spec_entry_what(e, what, sizeof what);
    const char *n = e->name, *v = e->value;
    if (!strcmp(n, "tile")) return pm_spec_int(v, 1, 1 << 16, &s->tile, err, what);
    if (!strcmp(n, "unroll")) return pm_spec_int(v, 1, 1 << 16, &s->unroll, err, what);
    if (!strcmp(n, "llc_opt")) return pm_spec_int(v, 0, 3, &s->llc_opt, err, what);
    if (!strcmp(n, "json")) return pm_spec_bool(v, &s->json, err, what);
    if (!strcmp(n, "single_thread")) return pm_spec_bool(v, &s->single_thread, err, what);
    if (!strcmp(n, "timing_twins"))
        return pm_spec_bool(v, &s->timing_twins, err, what);
    if (!strcmp(n, "bindir")) return pm_spec_str(s->bindir, sizeof s->bindir, v, err, what);
    if (!strcmp(n, "display")) {
        if (strcmp(v, "tree") && strcmp(v, "list"))
            return pm_err_set(err, PM_ERR_USAGE, "%s: '%s' (tree, list)", what, v);
        return pm_spec_str(s->display, sizeof s->display, v, err, what);
    }
    return pm_spec_unknown_key(e, what, embedded_keys, err);
}

int pm_embedded_spec_parse(pm_spec_entries *es, pm_embedded_spec *out, pm_err *err)
{
    *out = (pm_embedded_spec){.tile = DEFAULT_TILE, .unroll = DEFAULT_UNROLL, .llc_opt = 2, .display = "tree"};
    for (int i = 0; i < es->n; i++) {
        int rc = strcmp(es->items[i].section, "embedded") ? PM_OK : embedded_scalar(&es->items[i], out, err);
        if (rc)
            return rc;
    }
    return PM_OK;
}

void pm_embedded_data_free(void *p)
{
    embedded_data *d = p;
    if (d)
        pm_step_tmpls_free(&d->tmpls);
    free(d);
}

const pm_embedded_spec *pm_embedded_spec_of(const pm_spec *s)
{
    return &((const embedded_data *)s->backend_data)->opts;
}

pm_spec_pipe pm_embedded_pipe(const pm_embedded_spec *es)
{
    return (pm_spec_pipe){.keys = {{"tile", "T", 1, 1 << 16, es->tile}, {"unroll", "U", 1, 1 << 16, es->unroll}},
                          .n = 2};
}

static int config_int(const pm_spec_config *c, const char *name)
{
    double v = pm_cfg_param_num(&c->cfg, name);
    return isnan(v) ? 0 : (int)v;
}

int pm_embedded_config_tile(const pm_spec_config *c)
{
    return config_int(c, "tile");
}

int pm_embedded_config_unroll(const pm_spec_config *c)
{
    return config_int(c, "unroll");
}
