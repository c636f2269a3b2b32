/* libFuzzer harness for the cache entry reader (pm_cache_entry_check). A mutated entry almost always fails its
 * checksum first, so for odd-length inputs the harness re-seals the header as the cache writes it (payload
 * length at byte 16, XXH3-128 of header bytes 0..47 and the payload at byte 48; lib/cache/cache.c) and the
 * mutations reach the length checks, the zstd frame and the payload layout. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack, as cache.c does */
#include <xxhash.h>

#include "cache.h"

enum { HEADER = 64 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    if ((size & 1) && size >= HEADER) {
        uint64_t plen = size - HEADER;
        memcpy(buf + 16, &plen, 8);
        XXH3_state_t s;
        XXH3_INITSTATE(&s);
        XXH3_128bits_reset(&s);
        XXH3_128bits_update(&s, buf, 48);
        XXH3_128bits_update(&s, buf + HEADER, plen);
        XXH128_canonical_t can;
        XXH128_canonicalFromHash(&can, XXH3_128bits_digest(&s));
        memcpy(buf + 48, can.digest, 16);
    }
    pm_err e = {0};
    pm_cache_entry_check(buf, size, &e);
    free(buf);
    return 0;
}
