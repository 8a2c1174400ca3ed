/* consumer.c - an outside program built against the installed libpascal: the
 * policy bound of the paper's worked example (N = 8, M = 2, C = 2, phases
 * (0, 4): K >= 10/7, "A policy-independent traffic lower bound") and the
 * library's version. */
#include <pascal/static.h>
#include <pascal/version.h>
#include <stdio.h>

int main(void)
{
  const uint64_t phases[2] = {0, 4};
  pascal_policy_bound b;
  if (pascal_policy_bound_compute(8, 2, phases, 2, &b, NULL) != PASCAL_OK)
    return 1;
  printf("%llu+%llu/%llu %s\n", (unsigned long long)b.whole, (unsigned long long)b.frac.num,
         (unsigned long long)b.frac.den, pascal_version());
  return 0;
}
