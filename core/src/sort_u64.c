/*
 * sort_u64.c - insertion sorts for small inputs (binary search + memmove for
 * bare keys, stable element moves for pairs), 11-bit LSD radix sort for
 * large ones (see sort_u64.h). The radix passes only cover the significant
 * bits of the largest key; a pass whose digit is constant is skipped.
 */
#include "sort_u64.h"

#include <assert.h>
#include <string.h>

#define RADIX_BITS 11
#define RADIX_SIZE (1u << RADIX_BITS)

/* Stable insertion sort of (key, value) pairs. */
static void insertion_sort_pairs(uint64_t *keys, size_t *vals, size_t n)
{
  for (size_t i = 1; i < n; i++) {
    uint64_t k = keys[i];
    size_t v = vals[i];
    size_t j = i;
    /* invariant: keys[0..j) sorted, keys[j..i] are all > k once shifted */
    while (j > 0 && keys[j - 1] > k) {
      keys[j] = keys[j - 1];
      vals[j] = vals[j - 1];
      j--;
    }
    keys[j] = k;
    vals[j] = v;
  }
}

static unsigned significant_bits(const uint64_t *keys, size_t n)
{
  uint64_t all = 0;
  for (size_t i = 0; i < n; i++)
    all |= keys[i];
  unsigned bits = 0;
  while (bits < 64 && (all >> bits) != 0)
    bits++;
  return bits;
}

/* One stable counting pass on digit `shift` from (src, sval) into (dst, dval);
 * returns 0 (and moves nothing) when every key has the same digit. */
static int radix_pass(const uint64_t *src, const size_t *sval, uint64_t *dst, size_t *dval,
                      size_t n, unsigned shift)
{
  size_t count[RADIX_SIZE];
  memset(count, 0, sizeof count);
  for (size_t i = 0; i < n; i++)
    count[(src[i] >> shift) & (RADIX_SIZE - 1)]++;
  if (count[(src[0] >> shift) & (RADIX_SIZE - 1)] == n)
    return 0;
  size_t sum = 0;
  for (size_t b = 0; b < RADIX_SIZE; b++) {
    size_t c = count[b];
    count[b] = sum;
    sum += c;
  }
  for (size_t i = 0; i < n; i++) {
    size_t pos = count[(src[i] >> shift) & (RADIX_SIZE - 1)]++;
    dst[pos] = src[i];
    if (sval)
      dval[pos] = sval[i];
  }
  return 1;
}

static void radix_sort(uint64_t *keys, size_t *vals, size_t n, uint64_t *scratch,
                       size_t *val_scratch)
{
  unsigned bits = significant_bits(keys, n);
  uint64_t *src = keys, *dst = scratch;
  size_t *sval = vals, *dval = val_scratch;
  for (unsigned shift = 0; shift < bits; shift += RADIX_BITS) {
    if (!radix_pass(src, sval, dst, dval, n, shift))
      continue;
    uint64_t *t = src;
    src = dst;
    dst = t;
    size_t *tv = sval;
    sval = dval;
    dval = tv;
  }
  if (src != keys) {
    memcpy(keys, src, n * sizeof *keys);
    if (vals)
      memcpy(vals, sval, n * sizeof *vals);
  }
}

/* Keys only: binary search for the slot, one memmove per key. */
static void binary_insertion_sort(uint64_t *keys, size_t n)
{
  for (size_t i = 1; i < n; i++) {
    uint64_t k = keys[i];
    size_t lo = 0, hi = i; /* first position whose key is > k */
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (keys[mid] <= k)
        lo = mid + 1;
      else
        hi = mid;
    }
    memmove(keys + lo + 1, keys + lo, (i - lo) * sizeof *keys);
    keys[lo] = k;
  }
}

#ifndef NDEBUG
static int is_sorted(const uint64_t *keys, size_t n)
{
  for (size_t i = 1; i < n; i++)
    if (keys[i - 1] > keys[i])
      return 0;
  return 1;
}
#endif

void pc_sort_u64(uint64_t *keys, size_t n, uint64_t *scratch)
{
  if (n <= PASCAL_SORT_SMALL)
    binary_insertion_sort(keys, n);
  else
    radix_sort(keys, NULL, n, scratch, NULL);
  assert(is_sorted(keys, n));
}

void pc_sort_u64_pairs(uint64_t *keys, size_t *vals, size_t n, uint64_t *scratch,
                       size_t *val_scratch)
{
  if (n <= PASCAL_SORT_SMALL)
    insertion_sort_pairs(keys, vals, n);
  else
    radix_sort(keys, vals, n, scratch, val_scratch);
  assert(is_sorted(keys, n));
}
