/* The seeded generator the statistics simulations share: xorshift64* for uniforms, Box-Muller for normals. A
 * seed gives the same runs on every machine, so each measured rate is reproducible. */
#ifndef PM_TEST_SIM_RNG_H
#define PM_TEST_SIM_RNG_H

#include <math.h>
#include <stdint.h>

typedef struct rng {
    uint64_t s;
} rng;

static inline double uniform(rng *r)
{
    r->s ^= r->s >> 12, r->s ^= r->s << 25, r->s ^= r->s >> 27;
    return ((r->s * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

static inline double normal(rng *r)
{
    double u = uniform(r), v = uniform(r);
    return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

#endif
