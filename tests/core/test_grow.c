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
 *
 * The prefault hint (Linux, where the kernel has MADV_POPULATE_WRITE): on a
 * fresh mapping none of whose pages is resident, pascal_prefault of a range
 * that starts and ends inside pages makes exactly the whole pages inside it
 * resident (mincore), not the partial pages at its ends nor any outside;
 * under PASCAL_PREFAULT_MIN it maps nothing; the memory reads zero and
 * takes writes as before. Verified to fail with the range rounded outward.
 */
#define _DEFAULT_SOURCE /* mincore, madvise (glibc) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

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

#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
/* Pages [0, n) of base resident (1) or not (0), as mincore reports them. */
static void residency(char *base, size_t n, size_t page, unsigned char *vec)
{
  CHECK(mincore(base, n * page, vec) == 0);
  for (size_t i = 0; i < n; i++)
    vec[i] &= 1;
}

static void test_prefault(void)
{
  size_t page = (size_t)sysconf(_SC_PAGESIZE), n = 64;
  char *base = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(base != MAP_FAILED);
  if (base == MAP_FAILED)
    return;
  unsigned char vec[64];
  residency(base, n, page, vec);
  for (size_t i = 0; i < n; i++)
    CHECK(vec[i] == 0); /* fresh: nothing mapped yet */
  if (madvise(base + (n - 1) * page, page, MADV_POPULATE_WRITE) != 0) {
    munmap(base, n * page); /* the kernel does not have it: nothing to check */
    return;
  }
  pascal_prefault(base + 100, PASCAL_PREFAULT_MIN - 1); /* under the minimum: nothing */
  residency(base, n - 1, page, vec);
  for (size_t i = 0; i + 1 < n; i++)
    CHECK(vec[i] == 0);
  /* from inside page 2 to inside page 40: pages 3 .. 39 are whole */
  char *p = base + 2 * page + 100;
  size_t len = (size_t)(base + 40 * page + 7 - p);
  CHECK(len >= PASCAL_PREFAULT_MIN);
  pascal_prefault(p, len);
  residency(base, n - 1, page, vec);
  for (size_t i = 0; i + 1 < n; i++)
    CHECK(vec[i] == (i >= 3 && i <= 39));
  for (size_t i = 0; i < len; i += 997) /* zero, and writable */
    CHECK(p[i] == 0);
  memset(p, 0x5a, len);
  CHECK(p[0] == 0x5a && p[len - 1] == 0x5a && base[0] == 0);
  pascal_prefault(NULL, len); /* no buffer: nothing */
  munmap(base, n * page);
}
#endif

int main(void)
{
  test_capacity_rule();
  test_amortised_appends();
  test_refusals();
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  test_prefault();
#endif
  return check_summary();
}
