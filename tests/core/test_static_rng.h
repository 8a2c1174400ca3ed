/* test_static_rng.h - the seeded xorshift64 generator the static-core tests
 * share, so that every random case is reproducible from its seed. */
#ifndef PASCAL_TEST_STATIC_RNG_H
#define PASCAL_TEST_STATIC_RNG_H

#include <stdint.h>

/* Next value of the xorshift64 sequence in *state (state != 0). */
static inline uint64_t test_rng_next(uint64_t *state)
{
  uint64_t x = *state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *state = x;
  return x;
}

/* Uniform double in [0, 1). */
static inline double test_rng_unit(uint64_t *state)
{
  return (double)(test_rng_next(state) >> 11) / 9007199254740992.0;
}

#endif
