/* rational.c - gcd reduction for pascal_rational (see rational.h). */
#include "rational.h"

#include <assert.h>

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
  while (b) { /* Euclid: gcd(a, b) is invariant */
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

pascal_rational pc_rational_reduce(uint64_t num, uint64_t den)
{
  assert(den != 0);
  uint64_t g = gcd_u64(num, den);
  pascal_rational r = {num / g, den / g};
  assert(r.den != 0 && gcd_u64(r.num, r.den) == 1); /* lowest terms */
  return r;
}
