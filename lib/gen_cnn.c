/* STUB: replaced by the CNN generator work. */
#include "gen.h"
int pm_gen_cnn(const pm_cnn_opts *o, FILE *out, pm_gen_info *info, pm_err *e) { return pm_err_set(e, PM_ERR_UNSUPPORTED, "cnn generator not built"); }
const char *const *pm_gen_cnn_families(void) { static const char *const none[] = {NULL}; return none; }
