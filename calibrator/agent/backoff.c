/* backoff.c - capped exponential backoff with equal jitter (backoff.h). */
#include "backoff.h"

double agent_backoff_delay(unsigned attempt, double base_s, double cap_s, double u)
{
  double raw = base_s;
  /* Double until the cap: at most ~1100 steps even for tiny bases, and no
   * overflow because the loop stops at cap_s. */
  for (unsigned i = 0; i < attempt && raw < cap_s; i++)
    raw *= 2.0;
  if (raw > cap_s)
    raw = cap_s;
  if (!(u >= 0.0))
    u = 0.0;
  if (u > 1.0)
    u = 1.0;
  return raw * (1.0 + u) / 2.0;
}

double agent_rng_uniform(uint64_t *state)
{
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  /* top 53 bits of the xorshift64* output -> [0, 1) */
  return (double)((x * 0x2545F4914F6CDD1DULL) >> 11) * 0x1.0p-53;
}
