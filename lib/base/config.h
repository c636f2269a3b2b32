/* pm_cfg: the identity of a config, the one model spec, store, study and compare share.
 *
 * A config is a key (unique within a sweep: "llm/qwen2/0.5b/w256/int8/L1/stock", "c/input=a.c/opt=2"), a kind
 * (a workload-kind row of kinds.c, "command"; older stores' "cmd" reads as "command"), a variant (the compile variant, "stock"; "" or NULL when
 * none) and its axes as name=value parameters. Each layer's config struct embeds it with PM_CFG_EMBED, so the
 * fields read as c->key, c->params in the code that has always read them, and &c->cfg is the pm_cfg the
 * accessors below take (the idiom of Linux's struct_group: an anonymous union of the named struct and the same
 * members unnamed).
 *
 * Ownership is the embedding struct's: spec and study own their strings (pm_cfg_clear frees them); the store's
 * pm_config only borrows them for the call. */
#ifndef PM_CONFIG_H
#define PM_CONFIG_H

#include <stddef.h>
#include "error.h"
#include "param.h"

#define PM_CFG_MEMBERS \
    const char *key;       /* unique within a sweep */ \
    const char *kind;      /* llm | cnn | command (an older import: cmd, read as command); NULL: not recorded */ \
    const char *variant;   /* compile variant, or "" / NULL */ \
    pm_param *params;      /* every axis as name=value, in the order added (the store returns them sorted) */ \
    size_t n_params

typedef struct pm_cfg {
    PM_CFG_MEMBERS;
} pm_cfg;

/* Inside a struct: the member `cfg` (a pm_cfg) whose fields are also the struct's own (c->key == c->cfg.key). */
#define PM_CFG_EMBED \
    union { \
        pm_cfg cfg; \
        struct { \
            PM_CFG_MEMBERS; \
        }; \
    }

/* The value of axis `name`, or NULL (also for a NULL name). */
const char *pm_cfg_param(const pm_cfg *c, const char *name);
/* The value of axis `name` when the whole of it is a number (strtod); NAN when absent or not a number. */
double pm_cfg_param_num(const pm_cfg *c, const char *name);
/* Like pm_cfg_param, with the pseudo-axis "variant" naming the variant. */
const char *pm_cfg_axis(const pm_cfg *c, const char *name);
/* Appends name=value (copies). Returns 0, or -1 when out of memory (the list is unchanged then). */
int pm_cfg_param_add(pm_cfg *c, const char *name, const char *value);
/* Sets key/kind/variant to copies of the strings (NULL stays NULL); the old strings are freed. 0 or -1. */
int pm_cfg_set(pm_cfg *c, const char *key, const char *kind, const char *variant);
/* Frees the strings and the parameters of an owning config and zeroes it. */
void pm_cfg_clear(pm_cfg *c);
/* Frees a parameter list of n entries (as the store returns it). */
void pm_params_free(pm_param *p, size_t n);

/* The key without its variant part (what configs run as another variant match on): the last '/' part when it
 * is the variant; with variant NULL the last part whatever it is; else the whole key. *base and, when var is
 * not NULL, *var (the variant part, "" when none) are malloc'd. 0, or -1 out of memory. */
int pm_cfg_split_key(const char *key, const char *variant, char **base, char **var);
/* A key naming every axis: "prefix/name=value/..." over the parameters in their order (a command config's
 * key; pm_cfg_params_from_key reads the axes back). malloc'd; NULL out of memory. */
char *pm_cfg_key_of(const char *prefix, const pm_cfg *c);
/* The matching key on all axes but `axis`: "name=value/..." over the parameters in their order, then
 * "variant=V" when the variant is set and is not the axis itself. malloc'd; NULL out of memory. */
char *pm_cfg_key_except(const pm_cfg *c, const char *axis);
/* 1 when a and b have the same variant and the same value of every axis (either side's) but `axis` (NULL:
 * every axis; "variant": all but the variant). An axis one side lacks differs from any value. */
int pm_cfg_equal_except(const pm_cfg *a, const pm_cfg *b, const char *axis);
/* Adds the NAME=VALUE parts of a '/'-separated key as parameters ("c/input=a.c/opt=2" -> input, opt). The parts
 * before the first NAME=VALUE part are the key's prefix, not axes ("c", "llm/qwen2"); a later part without '='
 * belongs to the value before it, so a value may hold '/' as pm_cfg_key_of writes it ("c/input=sub/a.c/opt=2"
 * -> input = sub/a.c). PM_OK; PM_ERR_USAGE for a part with an empty name ("=x") or an axis named twice (one
 * line naming the key); PM_ERR_NOMEM. On error the parameters added so far stay (pm_cfg_clear frees them). */
int pm_cfg_params_from_key(pm_cfg *c, const char *key, pm_err *err);

#endif
