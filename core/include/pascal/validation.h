/*
 * pascal/validation.h - how far to trust an answer (paper section 4.4: the
 * leave-one-key-out evaluation, reused per key).
 *
 * A validation is a list of validated keys, each with the rule the scored
 * prediction used and its measured error (percent, mean |pred/obs - 1| over
 * the key's runs). pascal_validation_build() fills it from the calibration
 * itself: the leave-one-key-out fold of every key (source "loko": the key was
 * predicted by a model fitted without it, so by graph, clamp or
 * depth-fallback) and the fitted model's error on every key's own runs
 * (source "in-sample": what an exact answer reproduces). Another source,
 * such as a held-out panel of keys the calibration never saw, is added with
 * pascal_validation_add() and is then preferred over the folds.
 *
 * pascal_validation_expect_*() give a prediction its expected error: the
 * error of the same rule on the nearest validated keys of the same family
 * (scan: the nearest key on each side in m within (o, path, d), averaged;
 * widened to the nearest depth of (o, path), then to any rule, and said so;
 * GEMM: the two nearest grids in (log Mg, log Ng)). An exact answer takes
 * its own key's in-sample error; a resident answer (N <= C) has none. An
 * answer that transferred (pascal/predict.h, pascal_transfers) expects at
 * least the mean error its interval's residual groups give it (source
 * "interval"), so that no answer off its references reads near zero.
 *
 * A validation also holds the calibration's prediction intervals
 * (pascal/interval.h) and the families where the model loses to the
 * trivial baseline: PASCAL's leave-one-key-out error, balanced over the
 * family's keys, above aligned K = 1's (K_0 for GEMM) on the same runs. A
 * scan family is (o, path, d); a GEMM calibration is one family.
 */
#ifndef PASCAL_VALIDATION_H
#define PASCAL_VALIDATION_H

#include <stddef.h>
#include <stdint.h>

#include "pascal/calibration.h"
#include "pascal/error.h"
#include "pascal/evaluate.h"
#include "pascal/interval.h"
#include "pascal/predict.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pascal_validated_key {
  pascal_scan_key key;        /* scan                                        */
  uint32_t Mg, Ng;            /* GEMM grid                                    */
  pascal_error_source source; /* LOKO, IN_SAMPLE or HELD_OUT                  */
  pascal_rule rule;           /* least direct rule over the scored runs       */
  double error_pct;           /* finite, >= 0                                 */
} pascal_validated_key;

/* A family where the model loses to aligned K = 1 under its folds. */
typedef struct pascal_family_loss {
  pascal_scan_key family; /* scan: o, path, d (m 0); GEMM: zero      */
  size_t n_keys;          /* its scored keys                           */
  double pascal_pct;      /* balanced leave-one-key-out MAPE, percent  */
  double aligned_pct;     /* aligned K = 1's on the same runs          */
} pascal_family_loss;

typedef struct pascal_validation {
  pascal_workload workload;
  size_t n, cap;
  pascal_validated_key *keys; /* owned */
  /* owned: indices into keys, stably sorted by (source, o, path), so that
   * a lookup reads only its own group's keys, in the order they were added
   * (kept by pascal_validation_add) */
  uint32_t *order;
  size_t order_cap;
  pascal_interval_calibration interval; /* owned: the intervals' residuals */
  size_t n_losses;
  pascal_family_loss *losses; /* owned: families where PASCAL loses */
} pascal_validation;

/* The families of the leave-one-key-out report `loko` where PASCAL's
 * balanced MAPE exceeds aligned's (keys without a scored run or an aligned
 * error are left out), in the report's key order, into *out (owned by the
 * caller: free()) and *n. ENOMEM. */
pascal_status pascal_family_losses(const pascal_loko_report *loko, pascal_family_loss **out,
                                   size_t *n, pascal_error *err);

/* The warning `pascal fit` and pascald's freeze give for a loss, in one
 * line ("family o=1 tma d=4: PASCAL's leave-one-key-out error 27.99 %
 * exceeds aligned K = 1's 24.75 % over its 9 keys"), truncated to len - 1
 * bytes. */
void pascal_family_loss_describe(const pascal_family_loss *f, pascal_workload workload, char *buf,
                                 size_t len);

/* The loss of the family of `key` (NULL for GEMM) among the n `losses`, or
 * NULL where the model does not lose. */
const pascal_family_loss *pascal_family_loss_find(const pascal_family_loss *losses, size_t n,
                                                  const pascal_scan_key *key);

/* In-sample errors of `model` (fitted from `cal`) on every key's runs, and
 * the leave-one-key-out fold errors and family losses when `cal` has at
 * least two keys: from `loko` when the caller has run pascal_loko_run() on
 * `cal` already, else run here (NULL); the intervals from `cal`'s folds
 * (pascal_interval_build). Keys whose runs were all refused are left out.
 * Free with pascal_validation_free() (also after a failure). */
pascal_status pascal_validation_build(const pascal_calibration *cal, const pascal_model *model,
                                      const pascal_loko_report *loko, pascal_validation *out,
                                      pascal_error *err);

/* Append one validated key (its error must be finite and >= 0: field
 * "error_pct"; source LOKO, IN_SAMPLE or HELD_OUT: field "source"). */
pascal_status pascal_validation_add(pascal_validation *v, const pascal_validated_key *key,
                                    pascal_error *err);
void pascal_validation_free(pascal_validation *v);

/* Fill p->expected for the prediction p of `key` (or `shape`). */
void pascal_validation_expect_scan(const pascal_validation *v, const pascal_scan_key *key,
                                   pascal_scan_prediction *p);
void pascal_validation_expect_gemm(const pascal_validation *v, const pascal_gemm_shape *shape,
                                   pascal_gemm_prediction *p);

#ifdef __cplusplus
}
#endif
#endif
