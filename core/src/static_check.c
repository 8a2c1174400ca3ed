/* static_check.c - input validation shared by the static theory and the
 * simulators (see static_check.h; paper §3.1 model domain). */
#include "static_check.h"

#include <inttypes.h>
#include <stdio.h>

#include "pascal/static.h"

pascal_status pc_check_n(uint64_t n, uint64_t limit, pascal_error *err)
{
  if (n < 1)
    return pascal_error_set(err, PASCAL_EINVAL, "N", "N must be at least 1");
  if (n > limit)
    return pascal_error_set(err, PASCAL_ERANGE, "N", "N must be at most %" PRIu64, limit);
  return PASCAL_OK;
}

pascal_status pc_check_c(uint64_t n, uint64_t c, pascal_error *err)
{
  if (c < 1)
    return pascal_error_set(err, PASCAL_EINVAL, "C", "C must be at least 1");
  if (c >= n)
    return pascal_error_set(err, PASCAL_EINVAL, "C", "C must be below N (%" PRIu64 ")", n);
  return PASCAL_OK;
}

pascal_status pc_check_phases(uint64_t n, const uint64_t *phases, size_t m, pascal_error *err)
{
  if (m == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "M", "at least one worker phase is needed");
  if (!phases)
    return pascal_error_set(err, PASCAL_EINVAL, "phases", "phases is NULL");
  for (size_t w = 0; w < m; w++) {
    if (phases[w] >= n) {
      char field[32];
      snprintf(field, sizeof field, "phases[%zu]", w);
      return pascal_error_set(err, PASCAL_EINVAL, field,
                              "phase %" PRIu64 " is outside [0, N) with N = %" PRIu64, phases[w],
                              n);
    }
  }
  return PASCAL_OK;
}

pascal_status pc_check_model(uint64_t n, uint64_t c, const uint64_t *phases, size_t m,
                             pascal_error *err)
{
  pascal_status st = pc_check_n(n, PASCAL_STATIC_N_MAX, err);
  if (st == PASCAL_OK)
    st = pc_check_c(n, c, err);
  if (st == PASCAL_OK)
    st = pc_check_phases(n, phases, m, err);
  return st;
}

pascal_status pc_check_mul(uint64_t a, uint64_t b, uint64_t limit, const char *field, uint64_t *out,
                           pascal_error *err)
{
  if (a != 0 && b > limit / a)
    return pascal_error_set(err, PASCAL_ERANGE, field, "%" PRIu64 " x %" PRIu64 " exceeds %" PRIu64,
                            a, b, limit);
  *out = a * b;
  return PASCAL_OK;
}
