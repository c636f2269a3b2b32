/* libFuzzer harness for one timing-report parser: built once per format with -DFUZZ_FORMAT=PM_FMT_... (AUTO:
 * the sniffer picks). Any input must give PM_OK or an error, never a crash, leak or undefined behaviour; a
 * successful parse must keep the report's invariants (finite, non-negative times; parents before children). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "parse.h"

#ifndef FUZZ_FORMAT
#define FUZZ_FORMAT PM_FMT_AUTO
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pm_report r;
    pm_err e = {0};
    pm_report_init(&r);
    if (pm_parse_buffer((const char *)data, size, FUZZ_FORMAT, &r, &e) == PM_OK) {
        for (size_t i = 0; i < r.n_passes; i++) {
            const pm_pass *p = &r.passes[i];
            if (!isfinite(p->wall_s) || p->wall_s < 0 || (p->parent >= 0 && (size_t)p->parent >= i) ||
                p->parent < -1 || p->depth < 0)
                abort();
        }
        double sum = pm_report_pass_wall(&r);
        if (!isfinite(sum))
            abort();
    }
    pm_report_free(&r);
    return 0;
}
