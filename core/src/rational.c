/* rational.c - gcd reduction for pascal_rational (see rational.h). */
#include "rational.h"

pascal_rational pc_rational_reduce(uint64_t num, uint64_t den)
{
  uint64_t a = num, b = den;
  while (b) { /* Euclid: gcd(a, b) is invariant */
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  pascal_rational r = {num / a, den / a};
  return r;
}
