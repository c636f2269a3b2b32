/* libFuzzer harness for the sweep spec parser (INI text to a planned matrix): any text gives a spec or an
 * error, never a crash. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    pm_spec *spec = NULL;
    pm_err e = {0};
    if (pm_spec_parse(text, "fuzz.ini", &spec, &e) == PM_OK)
        pm_spec_free(spec);
    free(text);
    return 0;
}
