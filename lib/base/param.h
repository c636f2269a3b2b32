/* pm_param: one name=value parameter of a config (an axis and its value). A config's identity is a key, a
 * kind, a variant and a list of these: pm_cfg (config.h), shared by spec, store, study and compare. */
#ifndef PM_PARAM_H
#define PM_PARAM_H

typedef struct pm_param {
    char *name;
    char *value;
} pm_param;

#endif
