/*
 * test_grow.c - the one growable array (pascal/grow.h): the capacity rule
 * max(need, 2 cap) checked exhaustively over small capacities and needs, the
 * amortised cost of appending one element at a time (at most 2n element
 * copies for n appends, counted from the capacities the growths report), the
 * contents kept across growths, and the refusals (a size that overflows
 * size_t, elem 0) that leave the array and its capacity as they were.
 * Verified to fail: with the capacity set to `need` instead of
 * max(need, 2 cap) the exhaustive and the amortised checks fail; without the
 * overflow check the SIZE_MAX cases report success.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pascal/grow.h"

static void test_capacity_rule(void)
{
  for (size_t cap0 = 0; cap0 <= 40; cap0++)
    for (size_t need = 0; need <= 100; need++) {
      size_t cap = cap0;
      unsigned char *a = cap0 ? malloc(cap0) : NULL;
      CHECK(pascal_grow((void **)&a, &cap, need, 1) == PASCAL_OK);
      size_t want = need <= cap0 ? cap0 : (need > 2 * cap0 ? need : 2 * cap0);
      CHECK_INT(cap, want);
      CHECK(need == 0 || a != NULL);
      if (need)
        memset(a, 0xab, need); /* ASan: the room is really there */
      free(a);
    }
}

static void test_amortised_appends(void)
{
  uint64_t *a = NULL;
  size_t cap = 0, copies = 0, growths = 0;
  for (size_t n = 0; n < 100000; n++) {
    size_t before = cap;
    CHECK(pascal_grow((void **)&a, &cap, n + 1, sizeof *a) == PASCAL_OK);
    if (cap != before) {
      copies += n; /* realloc moves the n elements already there */
      growths++;
    }
    a[n] = (uint64_t)n * 2654435761u;
  }
  CHECK(copies <= 2 * 100000);
  CHECK(growths <= 18); /* 1, 2, 4, ..., 2^17 >= 100000 */
  int same = 1;
  for (size_t n = 0; n < 100000; n++)
    same &= a[n] == (uint64_t)n * 2654435761u;
  CHECK(same);
  free(a);
}

static void test_refusals(void)
{
  double *a = malloc(4 * sizeof *a);
  size_t cap = 4;
  a[0] = 1.5;
  double *keep = a;
  CHECK(pascal_grow((void **)&a, &cap, SIZE_MAX, sizeof *a) == PASCAL_ENOMEM);
  CHECK(a == keep && cap == 4 && a[0] == 1.5);
  CHECK(pascal_grow((void **)&a, &cap, SIZE_MAX / 4, sizeof *a) == PASCAL_ENOMEM);
  CHECK(a == keep && cap == 4);
  CHECK(pascal_grow((void **)&a, &cap, 5, 0) == PASCAL_ENOMEM);
  CHECK(a == keep && cap == 4);
  CHECK(pascal_grow((void **)&a, &cap, 3, sizeof *a) == PASCAL_OK); /* fits: untouched */
  CHECK(a == keep && cap == 4);
  free(a);
}

int main(void)
{
  test_capacity_rule();
  test_amortised_appends();
  test_refusals();
  return check_summary();
}
