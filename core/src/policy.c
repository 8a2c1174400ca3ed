/*
 * policy.c - the policy-independent residency bound of paper §3.4,
 * Theorem 3 (Eq. policy): K_policy >= M - Phi(C), Phi the fractional knapsack
 * max sum x_w subject to 0 <= x_w <= 1 and sum tau_w x_w <= C.
 *
 * Exactness: with tau in units of 1/M round (integers, sum N M) the budget is
 * C M units; greedy on ascending tau takes j whole items and the fraction
 * rem / tau_(j+1) of the next, so M - Phi = (M - j - 1) + (tau_(j+1) - rem) /
 * tau_(j+1), kept as an integer plus a reduced proper fraction.
 */
#include "pascal/static.h"

#include <assert.h>
#include <stdlib.h>

#include "rational.h"
#include "sort_u64.h"
#include "static_check.h"

pascal_status pascal_policy_bound_compute(uint64_t n, uint64_t c, const uint64_t *phases, size_t m,
                                          pascal_policy_bound *out, pascal_error *err)
{
  pascal_status st = pc_check_model(n, c, phases, m, err);
  if (st != PASCAL_OK)
    return st;
  if (!out)
    return pascal_error_set(err, PASCAL_EINVAL, "out", "output pointer is NULL");
  uint64_t *tau = malloc(2 * m * sizeof *tau);
  if (!tau)
    return pascal_error_set(err, PASCAL_ENOMEM, "M", "cannot allocate %zu reuse times", m);
  st = pascal_reuse_time_compute(n, phases, m, tau, err);
  if (st != PASCAL_OK)
    goto done;
  pc_sort_u64(tau, m, tau + m);
  /* budget C M < N M = sum of all tau, so j < M below */
  uint64_t budget = c * (uint64_t)m, used = 0;
  size_t j = 0;
  while (used + tau[j] <= budget) {
    used += tau[j];
    j++;
  }
  uint64_t rem = budget - used, den = tau[j];
  assert(j < m && rem < den); /* item j + 1 only fits in part */
  out->phi = (double)j + (double)rem / (double)den;
  if (rem == 0) {
    out->whole = m - j;
    out->frac.num = 0;
    out->frac.den = 1;
  } else {
    out->whole = m - j - 1;
    out->frac = pc_rational_reduce(den - rem, den);
  }
  assert(out->frac.num < out->frac.den && out->whole <= m); /* 0 <= M - Phi <= M */
  out->bound = (double)out->whole + (double)out->frac.num / (double)out->frac.den;
done:
  free(tau);
  return st;
}
