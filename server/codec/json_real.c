/*
 * json_real.c - doubles as short JSON reals (pascal_json_real_format,
 * json_text.h), about four times faster than printf's "%.17g" and never
 * longer. Algorithm: Grisu2 of F. Loitsch, "Printing floating-point numbers
 * quickly and accurately with integers", PLDI 2010, section 5.
 *
 * v > 0 is a double f * 2^e. Its rounding interval is (m-, m+), the
 * midpoints to its neighbours; every number inside reads back as v. All
 * three are scaled by a cached power 10^-K held as a 64-bit "diy" float,
 * so that the scaled upper bound Wp has a small integral part (< 2^32) and
 * a 32..60-bit fraction. Each product is exact to within one unit of its
 * last place, so the interval is narrowed by one unit at each end:
 * [Wm, Wp] then lies strictly inside the true scaled interval. Digits of Wp
 * are produced until the rest (Wp minus the digits so far) is at most
 * delta = Wp - Wm: the digits then name a number inside [Wm, Wp], hence
 * one that reads back as v. The last digit is finally lowered while that
 * stays inside the interval and comes closer to W = v * 10^-K
 * ("round_weed"). The result is the shortest such string except when the
 * one-unit narrowing excludes it (about 1 in 1,000 random doubles; then up
 * to 17 digits, still exact); tests/codec/test_json_text.c
 * checks round trips on millions of doubles against strtod.
 */
#include <math.h>
#include <string.h>

#include "json_text.h"

typedef struct diy {
  uint64_t f;
  int e; /* value = f * 2^e */
} diy;

/* 10^k for k = -348, -340, ..., 340: f normalised (bit 63 set) and rounded
 * to nearest, generated with exact integers, e.g. in Python for k < 0:
 * s such that 2^63 <= 2^s // 10^-k < 2^64, f = round(2^s / 10^-k), e = -s. */
#define POW10_FIRST (-348)
#define POW10_STEP  8
static const struct {
  uint64_t f;
  int e;
} pow10_cache[] = {
    {0xfa8fd5a0081c0288u, -1220}, {0xbaaee17fa23ebf76u, -1193}, {0x8b16fb203055ac76u, -1166},
    {0xcf42894a5dce35eau, -1140}, {0x9a6bb0aa55653b2du, -1113}, {0xe61acf033d1a45dfu, -1087},
    {0xab70fe17c79ac6cau, -1060}, {0xff77b1fcbebcdc4fu, -1034}, {0xbe5691ef416bd60cu, -1007},
    {0x8dd01fad907ffc3cu, -980},  {0xd3515c2831559a83u, -954},  {0x9d71ac8fada6c9b5u, -927},
    {0xea9c227723ee8bcbu, -901},  {0xaecc49914078536du, -874},  {0x823c12795db6ce57u, -847},
    {0xc21094364dfb5637u, -821},  {0x9096ea6f3848984fu, -794},  {0xd77485cb25823ac7u, -768},
    {0xa086cfcd97bf97f4u, -741},  {0xef340a98172aace5u, -715},  {0xb23867fb2a35b28eu, -688},
    {0x84c8d4dfd2c63f3bu, -661},  {0xc5dd44271ad3cdbau, -635},  {0x936b9fcebb25c996u, -608},
    {0xdbac6c247d62a584u, -582},  {0xa3ab66580d5fdaf6u, -555},  {0xf3e2f893dec3f126u, -529},
    {0xb5b5ada8aaff80b8u, -502},  {0x87625f056c7c4a8bu, -475},  {0xc9bcff6034c13053u, -449},
    {0x964e858c91ba2655u, -422},  {0xdff9772470297ebdu, -396},  {0xa6dfbd9fb8e5b88fu, -369},
    {0xf8a95fcf88747d94u, -343},  {0xb94470938fa89bcfu, -316},  {0x8a08f0f8bf0f156bu, -289},
    {0xcdb02555653131b6u, -263},  {0x993fe2c6d07b7facu, -236},  {0xe45c10c42a2b3b06u, -210},
    {0xaa242499697392d3u, -183},  {0xfd87b5f28300ca0eu, -157},  {0xbce5086492111aebu, -130},
    {0x8cbccc096f5088ccu, -103},  {0xd1b71758e219652cu, -77},   {0x9c40000000000000u, -50},
    {0xe8d4a51000000000u, -24},   {0xad78ebc5ac620000u, 3},     {0x813f3978f8940984u, 30},
    {0xc097ce7bc90715b3u, 56},    {0x8f7e32ce7bea5c70u, 83},    {0xd5d238a4abe98068u, 109},
    {0x9f4f2726179a2245u, 136},   {0xed63a231d4c4fb27u, 162},   {0xb0de65388cc8ada8u, 189},
    {0x83c7088e1aab65dbu, 216},   {0xc45d1df942711d9au, 242},   {0x924d692ca61be758u, 269},
    {0xda01ee641a708deau, 295},   {0xa26da3999aef774au, 322},   {0xf209787bb47d6b85u, 348},
    {0xb454e4a179dd1877u, 375},   {0x865b86925b9bc5c2u, 402},   {0xc83553c5c8965d3du, 428},
    {0x952ab45cfa97a0b3u, 455},   {0xde469fbd99a05fe3u, 481},   {0xa59bc234db398c25u, 508},
    {0xf6c69a72a3989f5cu, 534},   {0xb7dcbf5354e9beceu, 561},   {0x88fcf317f22241e2u, 588},
    {0xcc20ce9bd35c78a5u, 614},   {0x98165af37b2153dfu, 641},   {0xe2a0b5dc971f303au, 667},
    {0xa8d9d1535ce3b396u, 694},   {0xfb9b7cd9a4a7443cu, 720},   {0xbb764c4ca7a44410u, 747},
    {0x8bab8eefb6409c1au, 774},   {0xd01fef10a657842cu, 800},   {0x9b10a4e5e9913129u, 827},
    {0xe7109bfba19c0c9du, 853},   {0xac2820d9623bf429u, 880},   {0x80444b5e7aa7cf85u, 907},
    {0xbf21e44003acdd2du, 933},   {0x8e679c2f5e44ff8fu, 960},   {0xd433179d9c8cb841u, 986},
    {0x9e19db92b4e31ba9u, 1013},  {0xeb96bf6ebadf77d9u, 1039},  {0xaf87023b9bf0ee6bu, 1066},
};
#define POW10_COUNT (sizeof pow10_cache / sizeof pow10_cache[0])

/* a * b rounded to 64 bits (the upper half of the 128-bit product, rounded
 * half up): one multiply where the compiler has 128-bit integers, else
 * with 32-bit halves in plain C11 (the same bits: the halves' sum is the
 * product's upper half plus the carry of its lower half + 2^63). */
static inline diy diy_mul(diy a, diy b)
{
#ifdef __SIZEOF_INT128__
  unsigned __int128 p = (unsigned __int128)a.f * b.f;
  diy r = {(uint64_t)(p >> 64) + ((uint64_t)p >> 63), a.e + b.e + 64};
#else
  uint64_t al = a.f & 0xffffffffu, ah = a.f >> 32, bl = b.f & 0xffffffffu, bh = b.f >> 32;
  uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
  uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu) + (1u << 31);
  diy r = {hh + (lh >> 32) + (hl >> 32) + (mid >> 32), a.e + b.e + 64};
#endif
  return r;
}

static diy diy_normalize(diy a)
{
  int s = __builtin_clzll(a.f); /* a.f != 0 */
  diy r = {a.f << s, a.e - s};
  return r;
}

/* The cached power c = 10^k, k = POW10_FIRST + i * POW10_STEP, for which
 * the product with a normalised number of exponent e has its exponent
 * e + c.e + 64 in [-60, -32]: integral part < 2^32, and the fraction
 * (< 2^60) can be multiplied by 10 in 64 bits. Consecutive entries differ
 * by about 26.6 in exponent, so exactly one or two fit; the estimate is
 * corrected by the loops. */
static diy cached_power(int e, int *k)
{
  /* want = ceil((-61 - e) * log10(2)), 10^want ~ 2^(-61-e), in integers:
   * 78913 / 2^18 is log10(2) close enough that this equals the rounded
   * double product's ceiling for every |e| <= 1200 (checked exhaustively) */
  int p = (-61 - e) * 78913;
  int want = p >= 0 ? (p + (1 << 18) - 1) >> 18 : -((-p) >> 18);
  int i = (want - POW10_FIRST + POW10_STEP - 1) / POW10_STEP;
  if (i < 0)
    i = 0;
  if (i >= (int)POW10_COUNT)
    i = (int)POW10_COUNT - 1;
  while (i + 1 < (int)POW10_COUNT && e + pow10_cache[i].e + 64 < -60)
    i++;
  while (i > 0 && e + pow10_cache[i].e + 64 > -32)
    i--;
  *k = POW10_FIRST + i * POW10_STEP;
  diy c = {pow10_cache[i].f, pow10_cache[i].e};
  return c;
}

/* Lower the last digit while the number stays inside the interval
 * (rest + unit <= delta) and comes closer to W (wp_w = Wp - W; rest = Wp -
 * number; all in the same scaled units). */
static void round_weed(char *digits, int n, uint64_t delta, uint64_t rest, uint64_t unit,
                       uint64_t wp_w)
{
  while (rest < wp_w && delta - rest >= unit &&
         (rest + unit < wp_w || wp_w - rest > rest + unit - wp_w)) {
    digits[n - 1]--;
    rest += unit;
  }
}

/* digit_gen writes p1's decimal digits all at once
 * (pascal_json_uint_digits, two at a time) when the interval is narrower than one
 * unit of the integral part (delta < one), as it is for every normal
 * double (delta is about 2^11 of the 2^32..2^60 units of `one`): the rest
 * after a digit, (p1 mod 10^kappa) * one + p2, can then be within delta
 * only once p1's remaining digits are all zero, so the digits stop either
 * at p1's trailing zeros (when the fraction p2 <= delta) or not before p1's
 * last digit. This gives the digits the digit-by-digit loop gives (checked
 * on 10^8 doubles against it when written). */

/* Digits of Wp until inside [Wp - delta, Wp]. *dexp receives the decimal
 * exponent of the last digit relative to the scaling. Returns the count. */
static int digit_gen(diy w, diy wp, uint64_t delta, char *digits, int *dexp)
{
  static const uint32_t pow10_u32[] = {1u,      10u,      100u,      1000u,      10000u,
                                       100000u, 1000000u, 10000000u, 100000000u, 1000000000u};
  int shift = -wp.e; /* 32..60 */
  uint64_t one = UINT64_C(1) << shift, wp_w = wp.f - w.f;
  uint32_t p1 = (uint32_t)(wp.f >> shift); /* integral part */
  uint64_t p2 = wp.f & (one - 1);          /* fraction */
  char p1_digits[10]; /* p1's decimal digits, lowest first: constant divisors only */
  int kappa = 0, n = 0;
  if (delta < one) { /* every normal double: see above */
    n = (int)pascal_json_uint_digits(p1, digits);
    if (p2 <= delta) {
      while (digits[n - 1 - kappa] == '0')
        kappa++;
      *dexp = kappa;
      round_weed(digits, n - kappa, delta, p2, (uint64_t)pow10_u32[kappa] << shift, wp_w);
      return n - kappa;
    }
    goto fraction;
  }
  for (uint32_t t = p1; t; t /= 10)
    p1_digits[kappa++] = (char)(t % 10);
  while (kappa > 0) {
    uint32_t d = (uint32_t)p1_digits[--kappa];
    p1 -= d * pow10_u32[kappa];    /* p1 is now the part below digit kappa */
    digits[n++] = (char)('0' + d); /* the first one is p1's leading digit, not 0 */
    uint64_t rest = ((uint64_t)p1 << shift) + p2;
    if (rest <= delta) {
      *dexp = kappa;
      round_weed(digits, n, delta, rest, (uint64_t)pow10_u32[kappa] << shift, wp_w);
      return n;
    }
  }
fraction:
  /* Two fractional digits per step while neither ends the digits. The
   * loop below stops at the first digit whose rest p2 is below delta
   * (both scaled by 10 per digit); once that holds it holds for every
   * later digit (the rest at most multiplies by 10, delta does), so when
   * the rest after two digits is not below delta, neither was the rest
   * after the first, and the two digits are those the loop would write
   * (floor(100 p2 / one) = 10 d1 + d2, and the rests agree). p2 * 100 fits
   * when p2 < one <= 2^57; delta and wp_w are below one here. The same
   * holds for four digits (floor(10^4 p2 / one), when one <= 2^50), taken
   * first once a digit is written (none of them is a leading zero), and
   * for eight (floor(10^8 p2 / one), in 128 bits) before them. */
#ifdef __SIZEOF_INT128__
  while (n) {
    unsigned __int128 p = (unsigned __int128)p2 * 100000000u;
    uint64_t rest = (uint64_t)p & (one - 1);
    if (rest < (unsigned __int128)delta * 100000000u)
      break; /* the digits end within these eight: four or fewer at a time below */
    uint32_t d8 = (uint32_t)(p >> shift), hi = d8 / 10000, lo = d8 % 10000;
    memcpy(digits + n, pascal_json_digit_pairs + 2 * (hi / 100), 2);
    memcpy(digits + n + 2, pascal_json_digit_pairs + 2 * (hi % 100), 2);
    memcpy(digits + n + 4, pascal_json_digit_pairs + 2 * (lo / 100), 2);
    memcpy(digits + n + 6, pascal_json_digit_pairs + 2 * (lo % 100), 2);
    n += 8;
    p2 = rest;
    delta *= 100000000u;
    wp_w *= 100000000u;
    kappa -= 8;
  }
#endif
  while (n && shift <= 50) {
    uint64_t p = p2 * 10000;
    if ((p & (one - 1)) < delta * 10000)
      break; /* the digits end within these four: two or one at a time below */
    unsigned d4 = (unsigned)(p >> shift);
    memcpy(digits + n, pascal_json_digit_pairs + 2 * (d4 / 100), 2);
    memcpy(digits + n + 2, pascal_json_digit_pairs + 2 * (d4 % 100), 2);
    n += 4;
    p2 = p & (one - 1);
    delta *= 10000;
    wp_w *= 10000;
    kappa -= 4;
  }
  while (shift <= 57) {
    uint64_t p = p2 * 100;
    if ((p & (one - 1)) < delta * 100)
      break; /* the digits end within these two: one at a time below */
    unsigned d2 = (unsigned)(p >> shift);
    if (n) {
      memcpy(digits + n, pascal_json_digit_pairs + 2 * d2, 2);
      n += 2;
    } else if (d2) { /* no digit yet: leading zeros are not written */
      if (d2 >= 10)
        digits[n++] = pascal_json_digit_pairs[2 * d2];
      digits[n++] = pascal_json_digit_pairs[2 * d2 + 1];
    }
    p2 = p & (one - 1);
    delta *= 100;
    wp_w *= 100;
    kappa -= 2;
  }
  for (;;) { /* fractional digits: scale fraction, delta and wp_w by 10 together */
    p2 *= 10;
    delta *= 10;
    wp_w *= 10;
    char d = (char)(p2 >> shift);
    if (d || n)
      digits[n++] = (char)('0' + d);
    p2 &= one - 1;
    kappa--;
    if (p2 < delta) {
      *dexp = kappa;
      round_weed(digits, n, delta, p2, one, wp_w);
      return n;
    }
  }
}

/* Digits and decimal exponent of v > 0: v reads back from digits * 10^*dexp. */
static int grisu2(double v, char *digits, int *dexp)
{
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  uint64_t frac = bits & ((UINT64_C(1) << 52) - 1);
  int bexp = (int)(bits >> 52) & 0x7ff;
  diy x = bexp ? (diy){frac | (UINT64_C(1) << 52), bexp - 1075} : (diy){frac, -1074};
  /* interval bounds at twice the resolution: m+ = x + half ulp; m- = x -
   * half ulp, or a quarter ulp below a power of two (the lower neighbour
   * is closer there) */
  diy mp = diy_normalize((diy){(x.f << 1) + 1, x.e - 1});
  diy mm =
      (frac == 0 && bexp > 1) ? (diy){(x.f << 2) - 1, x.e - 2} : (diy){(x.f << 1) - 1, x.e - 1};
  mm.f <<= mm.e - mp.e;
  mm.e = mp.e;
  int k;
  diy c = cached_power(mp.e, &k);
  diy w = diy_mul(diy_normalize(x), c);
  diy wp = diy_mul(mp, c), wm = diy_mul(mm, c);
  wp.f--;
  wm.f++;
  int kappa = 0, n = digit_gen(w, wp, wp.f - wm.f, digits, &kappa);
  *dexp = kappa - k;
  return n;
}

/* An integer below 10^15 is written by pascal_json_real_format directly:
 * its ulp is at most 1/8, so the rounding interval holds no other integer
 * and Grisu2's digits are the integer's own (digit_gen stops at the units
 * digit or above, where the rest is a fraction of an ulp, and round_weed
 * cannot lower a digit worth 1 or more inside an interval narrower than 1);
 * tests/codec/test_json_text.c checks integers up to 2^53, on both sides of
 * 10^15, against printf's digits. */

/* "e+XX" / "e-XXX": at least two exponent digits, as printf writes them. */
static size_t put_exponent(char *out, int x)
{
  size_t n = 0;
  out[n++] = 'e';
  out[n++] = x < 0 ? '-' : '+';
  if (x < 0)
    x = -x;
  if (x >= 100)
    out[n++] = (char)('0' + x / 100);
  out[n++] = (char)('0' + x / 10 % 10);
  out[n++] = (char)('0' + x % 10);
  return n;
}

size_t pascal_json_real_format(double v, char out[PASCAL_JSON_REAL_MAX])
{
  size_t n = 0;
  out[0] = '\0';
  if (!isfinite(v))
    return 0;
  if (signbit(v)) {
    out[n++] = '-';
    v = -v;
  }
  if (v == 0) {
    memcpy(out + n, "0.0", 4);
    return n + 3;
  }
  if (v < 1e15 && v == (double)(uint64_t)v) { /* an integer: its digits, ".0" */
    n += pascal_json_uint_digits((uint64_t)v, out + n);
    memcpy(out + n, ".0", 3);
    return n + 2;
  }
  char d[24];
  int dexp, len = grisu2(v, d, &dexp);
  int x = len + dexp - 1; /* v = d.ddd * 10^x */
  if (x < -4 || x >= 17) {
    out[n++] = d[0];
    if (len > 1) {
      out[n++] = '.';
      memcpy(out + n, d + 1, (size_t)len - 1);
      n += (size_t)len - 1;
    }
    n += put_exponent(out + n, x);
  } else if (dexp >= 0) { /* integral: digits, zeros, ".0" */
    memcpy(out + n, d, (size_t)len);
    n += (size_t)len;
    memset(out + n, '0', (size_t)dexp);
    n += (size_t)dexp;
    memcpy(out + n, ".0", 2);
    n += 2;
  } else if (x >= 0) { /* point inside the digits */
    memcpy(out + n, d, (size_t)x + 1);
    n += (size_t)x + 1;
    out[n++] = '.';
    memcpy(out + n, d + x + 1, (size_t)(len - x - 1));
    n += (size_t)(len - x - 1);
  } else { /* 0.000ddd */
    out[n++] = '0';
    out[n++] = '.';
    memset(out + n, '0', (size_t)(-x - 1));
    n += (size_t)(-x - 1);
    memcpy(out + n, d, (size_t)len);
    n += (size_t)len;
  }
  out[n] = '\0';
  return n;
}
