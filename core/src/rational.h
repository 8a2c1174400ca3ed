/* rational.h - internal: reduced non-negative rationals for the exact
 * waterline (Eq. waterfill) and policy bound (Eq. policy). */
#ifndef PASCAL_RATIONAL_H
#define PASCAL_RATIONAL_H

#include <stdint.h>

#include "pascal/static.h"

/* num / den reduced by their gcd; den >= 1. */
pascal_rational pc_rational_reduce(uint64_t num, uint64_t den);

#endif
