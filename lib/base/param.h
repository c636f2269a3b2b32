/* pm_param: one name=value parameter of a config (an axis and its value). The config model every layer shares:
 * a config is a key, a kind, a variant and a list of these (spec, store, study and compare all read it). */
#ifndef PM_PARAM_H
#define PM_PARAM_H

typedef struct pm_param {
    char *name;
    char *value;
} pm_param;

#endif
