/*
 * bench_expected_error.c - how well expected_error_pct (pascal/validation.h)
 * tracks the error it stands for, on a calibration bundle. For every key z
 * of the leave-one-key-out evaluation (paper section 4.4), the expected
 * error is looked up as an answer would get it, for z's fold rule at z, from
 * a validation without z's own entries; it is then set beside z's actual
 * fold error. When the bundle carries a held-out panel, each panel key is
 * done the same way from the folds alone (the estimate an answer had before
 * the panel was measured) and set beside its actual panel error. Prints the
 * pairs grouped by predicted error and by rule, the mean absolute gap and
 * the rank correlation (docs/expected-error.md).
 *
 * Usage: bench_expected_error BUNDLE.json [--keys]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pascal/validation.h"
#include "pascal_codec.h"

typedef struct pair {
  const pascal_validated_key *z;
  double predicted, actual;
} pair;

static bool same_key(const pascal_validated_key *a, const pascal_validated_key *b)
{
  return a->key.o == b->key.o && a->key.path == b->key.path && a->key.d == b->key.d &&
         a->key.m == b->key.m && a->Mg == b->Mg && a->Ng == b->Ng;
}

/* The expected error z's answer would get from the others' entries (and,
 * with `folds_only`, from no held-out entry either). */
static double expected_without(const pascal_validation *v, const pascal_validated_key *z,
                               bool folds_only)
{
  pascal_validation rest = {.workload = v->workload};
  for (size_t i = 0; i < v->n; i++) {
    if (same_key(&v->keys[i], z) || (folds_only && v->keys[i].source == PASCAL_ERRSRC_HELD_OUT))
      continue;
    if (pascal_validation_add(&rest, &v->keys[i], NULL) != PASCAL_OK)
      abort();
  }
  double pct;
  if (v->workload == PASCAL_WORKLOAD_SCAN) {
    pascal_scan_prediction p;
    memset(&p, 0, sizeof p);
    p.why.rule = z->rule;
    pascal_validation_expect_scan(&rest, &z->key, &p);
    pct = p.expected.pct;
  } else {
    pascal_gemm_prediction p;
    memset(&p, 0, sizeof p);
    p.why.rule = z->rule;
    pascal_gemm_shape s = {z->Mg, z->Ng, 1};
    pascal_validation_expect_gemm(&rest, &s, &p);
    pct = p.expected.pct;
  }
  pascal_validation_free(&rest);
  return pct;
}

/* Average ranks (ties share their mean rank). */
static void ranks(const double *x, size_t n, double *r)
{
  for (size_t i = 0; i < n; i++) {
    size_t below = 0, equal = 0;
    for (size_t j = 0; j < n; j++) {
      below += x[j] < x[i];
      equal += x[j] == x[i];
    }
    r[i] = (double)below + (double)(equal + 1) / 2;
  }
}

static double pearson(const double *x, const double *y, size_t n)
{
  double mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;
  bool x_spread = false, y_spread = false;
  for (size_t i = 1; i < n; i++) {
    x_spread |= x[i] != x[0];
    y_spread |= y[i] != y[0];
  }
  if (!x_spread || !y_spread)
    return NAN; /* undefined without spread */
  for (size_t i = 0; i < n; i++) {
    mx += x[i] / (double)n;
    my += y[i] / (double)n;
  }
  for (size_t i = 0; i < n; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  return sxy / sqrt(sxx * syy);
}

/* A correlation to three places, or why there is none. */
static const char *correlation_text(double r, char *buf, size_t size)
{
  if (isnan(r))
    return "undefined (one side has no spread)";
  snprintf(buf, size, "%.3f", r);
  return buf;
}

static void row(const char *label, const pair *ps, size_t n, bool (*in)(const pair *, const void *),
                const void *arg)
{
  size_t k = 0, within = 0;
  double sp = 0, sa = 0, gap = 0;
  for (size_t i = 0; i < n; i++)
    if (in(&ps[i], arg)) {
      k++;
      sp += ps[i].predicted;
      sa += ps[i].actual;
      gap += fabs(ps[i].predicted - ps[i].actual);
      within += fabs(ps[i].predicted - ps[i].actual) <= 5;
    }
  if (k)
    printf("| %-22s | %4zu | %9.2f | %9.2f | %12.2f | %11zu |\n", label, k, sp / k, sa / k, gap / k,
           within);
}

static bool in_band(const pair *p, const void *arg)
{
  const double *b = arg;
  return p->predicted >= b[0] && p->predicted < b[1];
}

static bool with_rule(const pair *p, const void *arg)
{
  return p->z->rule == *(const pascal_rule *)arg;
}

/* The keys of `source`, each predicted as expected_without() does, set
 * beside their actual error: the tables by predicted band and by rule, and
 * the correlations. */
static void report(const pascal_validation *v, pascal_error_source source, const char *what,
                   bool list_keys)
{
  pair *ps = calloc(v->n ? v->n : 1, sizeof *ps);
  double *x = calloc(v->n ? v->n : 1, sizeof *x), *y = calloc(v->n ? v->n : 1, sizeof *y);
  double *rx = calloc(v->n ? v->n : 1, sizeof *rx), *ry = calloc(v->n ? v->n : 1, sizeof *ry);
  if (!ps || !x || !y || !rx || !ry)
    abort();
  size_t n = 0, unknown = 0;
  for (size_t i = 0; i < v->n; i++) {
    if (v->keys[i].source != source)
      continue;
    double e = expected_without(v, &v->keys[i], source == PASCAL_ERRSRC_HELD_OUT);
    if (isnan(e)) {
      unknown++;
      continue;
    }
    ps[n] = (pair){&v->keys[i], e, v->keys[i].error_pct};
    x[n] = e;
    y[n] = v->keys[i].error_pct;
    n++;
  }
  printf("%s: %zu keys with an expected error, %zu without\n\n", what, n, unknown);
  static const char head[] =
      "| keys | mean pred | mean act. | mean abs gap | gap <= 5 pp |\n|---|---|---|---|---|---|\n";
  printf("| predicted (%%)          %s", head);
  static const double bands[][2] = {{0, 1}, {1, 5}, {5, 15}, {15, 30}, {30, INFINITY}};
  static const char *const names[] = {"[0, 1)", "[1, 5)", "[5, 15)", "[15, 30)", ">= 30"};
  for (size_t i = 0; i < 5; i++)
    row(names[i], ps, n, in_band, bands[i]);
  static const double all[2] = {-INFINITY, INFINITY};
  row("all", ps, n, in_band, all);
  printf("\n| rule                   %s", head);
  for (pascal_rule r = PASCAL_RULE_EXACT; r <= PASCAL_RULE_RESIDENT; r++)
    row(pascal_rule_name(r), ps, n, with_rule, &r);
  ranks(x, n, rx);
  ranks(y, n, ry);
  char pbuf[16], sbuf[16];
  printf("\nPearson r = %s, Spearman rho = %s (predicted vs actual, over %zu keys)\n\n",
         correlation_text(n > 1 ? pearson(x, y, n) : NAN, pbuf, sizeof pbuf),
         correlation_text(n > 1 ? pearson(rx, ry, n) : NAN, sbuf, sizeof sbuf), n);
  for (size_t i = 0; list_keys && i < n; i++)
    printf("key o=%u %s d=%u m=%u Mg=%u Ng=%u rule=%s predicted %.2f actual %.2f\n", ps[i].z->key.o,
           pascal_path_name(ps[i].z->key.path), ps[i].z->key.d, ps[i].z->key.m, ps[i].z->Mg,
           ps[i].z->Ng, pascal_rule_name(ps[i].z->rule), ps[i].predicted, ps[i].actual);
  free(ps);
  free(x);
  free(y);
  free(rx);
  free(ry);
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: %s BUNDLE.json [--keys]\n", argv[0]);
    return 2;
  }
  pascal_error err = {0};
  json_t *doc = NULL;
  pascal_codec_bundle b;
  pascal_model *md = NULL;
  pascal_validation v = {0};
  pascal_codec_bundle_init(&b);
  if (pascal_codec_load_file(argv[1], &doc, &err) || pascal_codec_bundle_decode(doc, &b, &err) ||
      pascal_model_fit(&b.cal, &md, &err) || pascal_validation_build(&b.cal, md, NULL, &v, &err)) {
    fprintf(stderr, "%s: %s: %s\n", argv[1], err.field, err.message);
    return 1;
  }
  bool list_keys = argc > 2 && strcmp(argv[2], "--keys") == 0;
  printf("%s\n\n", argv[1]);
  report(&v, PASCAL_ERRSRC_LOKO, "leave-one-key-out folds", list_keys);
  if (pascal_calibration_heldout_count(&b.cal))
    report(&v, PASCAL_ERRSRC_HELD_OUT, "held-out panel, estimated from the folds", list_keys);
  pascal_validation_free(&v);
  pascal_model_free(md);
  pascal_codec_bundle_free(&b);
  json_decref(doc);
  return 0;
}
