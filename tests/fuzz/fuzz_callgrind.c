/* libFuzzer harness for the callgrind output reader and the per-pass counting on it: any bytes give counts or an
 * error, never a crash. */
#include <stddef.h>
#include <stdint.h>

#include "callgrind.h"
#include "passcount.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pm_callgrind cg;
    pm_callgrind_init(&cg);
    pm_err e = {0};
    if (pm_callgrind_parse_buffer((const char *)data, size, "fuzz.out", &cg, &e) == PM_OK) {
        pm_report r;
        pm_report_init(&r);
        char name[] = "ISel";
        pm_pass p = {.name = name, .wall_s = 1, .user_s = -1, .parent = -1};
        pm_passcount pc;
        if (pm_report_add_pass(&r, &p) == PM_OK && pm_passcount_compute(&cg, &r, NULL, "llc", &pc, &e) == PM_OK)
            pm_passcount_free(&pc);
        pm_report_free(&r);
    }
    pm_callgrind_free(&cg);
    return 0;
}
