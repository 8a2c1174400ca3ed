/*
 * test_interval.c - prediction intervals (pascal/interval.h): group
 * quantiles and an answer's bounds from hand-made residuals (type-7
 * quantiles worked by hand, distances, the widest transfer per side,
 * borrowing, the floor, the repeats' spread, the pooled time residuals, the
 * aligned group of the answers that read no excess); the residuals a
 * calibration gives its folds (a calibration with K = 1 everywhere is
 * reproduced by every fold, every prediction aligned: the intervals are the
 * floor); a panel's coverage by groups;
 * the families whose folds favour aligned K = 1; and that a panel's
 * coverage counts exactly the runs inside the intervals the answers
 * themselves carry (pascal_answer_query, widening included).
 *
 * Verified to fail without the fixes: with the rates not divided by the
 * distance, or the bounds not scaled by it, the worked bounds are off by a
 * factor 2; without the floor a transfer on exact residuals reads 0 width
 * (the "1e-14 %"); without the sqrt 2 the repeat bound is 0.1458,
 * not 0.1031. In quadrature (the rule before the key-and-level folds) the
 * two-transfer bounds are sqrt(0.8^2 + 0.2^2) and sqrt(0.25 + 0.09), not
 * 0.8 and 0.5. With aligned residuals entering their coordinates' groups
 * 246 checks fail; with an aligned answer reading its transfers' groups,
 * 4 (test_aligned_group and the flat calibration).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pascal/answer.h"
#include "pascal/evaluate.h"
#include "pascal/interval.h"
#include "pascal/synth.h"
#include "pascal/validation.h"

static pascal_transfers one(pascal_coordinate c, pascal_transfer_kind k, double distance)
{
  pascal_transfers t = {.n = 1};
  t.item[0] = (pascal_transfer){c, k, distance, PASCAL_EXTRAP_CLAMPED};
  return t;
}

static void add(pascal_interval_calibration *c, pascal_transfers t, double k, double time)
{
  pascal_residual r = {.transfers = t, .log_ratio = {k, time}};
  CHECK_INT(pascal_interval_add(c, &r, NULL), PASCAL_OK);
}

static void test_bounds_by_hand(void)
{
  pascal_interval_calibration c = {0};
  /* W interpolated at distance 0.5: log-ratios 0.05 (i - 4), rates 0.1 (i - 4)
   * = -0.4 .. 0.5. An interpolated group is symmetric: -+ the 0.8 quantile
   * of |rate| (0, .1, .1, .2, .2, .3, .3, .4, .4, .5; type 7: h = 7.2 ->
   * 0.4 + 0.2 * 0 = 0.4). (Signed, as an extrapolated group, it would be
   * -0.31 and 0.41.) */
  for (int i = 0; i < 10; i++)
    add(&c, one(PASCAL_COORD_W, PASCAL_TRANSFER_INTERP, 0.5), 0.05 * (i - 4), 0.01 * i);
  /* m extrapolated, 8 rates of 0.2 at distance 1 (the least a group needs):
   * signed quantiles, both 0.2 */
  for (int i = 0; i < 8; i++)
    add(&c, one(PASCAL_COORD_M, PASCAL_TRANSFER_EXTRAP, 1), 0.2, NAN);
  /* d extrapolated: 8 exact residuals */
  for (int i = 0; i < 8; i++)
    add(&c, one(PASCAL_COORD_D, PASCAL_TRANSFER_EXTRAP, 1), 0, NAN);
  /* two transfers: evidence for no single group */
  pascal_transfers two = one(PASCAL_COORD_W, PASCAL_TRANSFER_INTERP, 1);
  two.item[two.n++] =
      (pascal_transfer){PASCAL_COORD_N, PASCAL_TRANSFER_EXTRAP, 1, PASCAL_EXTRAP_LINEAR};
  add(&c, two, 5, NAN);
  /* N interpolated: 7 rates, one short of a group */
  for (int i = 0; i < 7; i++)
    add(&c, one(PASCAL_COORD_N, PASCAL_TRANSFER_INTERP, 1), 3, NAN);
  pascal_residual bad = {.log_ratio = {NAN, 0}};
  CHECK_INT(pascal_interval_add(&c, &bad, NULL), PASCAL_EINVAL);
  CHECK_INT(pascal_interval_finish(&c, NULL), PASCAL_OK);

  const pascal_interval_group *w = pascal_interval_group_of(&c, PASCAL_COORD_W, 0);
  CHECK_INT(w->n[PASCAL_INTERVAL_K], 10);
  CHECK_NEAR(w->lo[PASCAL_INTERVAL_K], -0.4, 1e-12);
  CHECK_NEAR(w->hi[PASCAL_INTERVAL_K], 0.4, 1e-12);
  const pascal_interval_group *mx =
      pascal_interval_group_of(&c, PASCAL_COORD_M, PASCAL_TRANSFER_EXTRAP);
  CHECK_NEAR(mx->lo[PASCAL_INTERVAL_K], 0.2, 1e-12);
  CHECK_NEAR(mx->hi[PASCAL_INTERVAL_K], 0.2, 1e-12);
  CHECK_NEAR(w->mean_abs[PASCAL_INTERVAL_K], 0.25, 1e-12); /* (4+3+2+1+0+1+2+3+4+5)/100 */
  CHECK_INT(pascal_interval_group_of(&c, PASCAL_COORD_N, PASCAL_TRANSFER_EXTRAP)->n[0], 0);
  CHECK(pascal_interval_group_of(&c, (pascal_coordinate)PASCAL_COORDINATES, 0) == NULL);

  pascal_interval_bounds b;
  pascal_transfers t = one(PASCAL_COORD_W, PASCAL_TRANSFER_INTERP, 2);
  pascal_interval_bounds_of(&c, &t, &b);
  CHECK(b.known[PASCAL_INTERVAL_K]);
  CHECK_NEAR(b.lo[PASCAL_INTERVAL_K], -0.8, 1e-12); /* the rate quantiles times 2 */
  CHECK_NEAR(b.hi[PASCAL_INTERVAL_K], 0.8, 1e-12);
  CHECK_NEAR(b.mean_abs, 0.5, 1e-12);
  CHECK_INT(b.n_residuals, 10);
  CHECK_INT(b.borrowed, 0);
  CHECK_NEAR(b.level, 0.8, 0);

  /* W and m: per side the wider; the m group's quantiles are both 0.2, so
   * its lower side is 0 (an interval holds its answer) */
  t.item[t.n++] =
      (pascal_transfer){PASCAL_COORD_M, PASCAL_TRANSFER_EXTRAP, 1, PASCAL_EXTRAP_CLAMPED};
  pascal_interval_bounds_of(&c, &t, &b);
  CHECK_NEAR(b.lo[PASCAL_INTERVAL_K], -0.8, 1e-12);
  CHECK_NEAR(b.hi[PASCAL_INTERVAL_K], 0.8, 1e-12);
  CHECK_NEAR(b.mean_abs, 0.5, 1e-12); /* the wider of 0.25 * 2 and 0.2 */
  CHECK_INT(b.n_residuals, 18);
  /* m farther (distance 5): its side 1.0 is the wider above */
  t.item[1].distance = 5;
  pascal_interval_bounds_of(&c, &t, &b);
  CHECK_NEAR(b.lo[PASCAL_INTERVAL_K], -0.8, 1e-12);
  CHECK_NEAR(b.hi[PASCAL_INTERVAL_K], 1.0, 1e-12);

  /* W extrapolated has no group: it borrows W interpolated's */
  t = one(PASCAL_COORD_W, PASCAL_TRANSFER_EXTRAP, 1);
  pascal_interval_bounds_of(&c, &t, &b);
  CHECK_INT(b.borrowed, 1);
  CHECK_NEAR(b.hi[PASCAL_INTERVAL_K], 0.4, 1e-12);
  /* W from one pass has no group either: it borrows W interpolated's */
  t = one(PASCAL_COORD_W, PASCAL_TRANSFER_ONE_PASS, 1);
  pascal_interval_bounds_of(&c, &t, &b);
  CHECK_INT(b.borrowed, 1);
  CHECK_NEAR(b.lo[PASCAL_INTERVAL_K], -0.4, 1e-12);
  CHECK_NEAR(b.hi[PASCAL_INTERVAL_K], 0.4, 1e-12);
  /* N interpolated (7 rates) and N extrapolated (none): the widest group,
   * W interpolated (0.8 wide against m's 0 and d's 0) */
  t = one(PASCAL_COORD_N, PASCAL_TRANSFER_INTERP, 3);
  pascal_interval_bounds_of(&c, &t, &b);
  CHECK_INT(b.borrowed, 1);
  CHECK_NEAR(b.lo[PASCAL_INTERVAL_K], -1.2, 1e-12);
  CHECK_NEAR(b.hi[PASCAL_INTERVAL_K], 1.2, 1e-12);
  /* exact residuals: the floor, never zero off the references */
  t = one(PASCAL_COORD_D, PASCAL_TRANSFER_EXTRAP, 1);
  pascal_interval_bounds_of(&c, &t, &b);
  CHECK_NEAR(b.lo[PASCAL_INTERVAL_K], -PASCAL_INTERVAL_FLOOR, 0);
  CHECK_NEAR(b.hi[PASCAL_INTERVAL_K], PASCAL_INTERVAL_FLOOR, 0);
  /* at the references, no repeats: the measured point itself */
  t.n = 0;
  pascal_interval_bounds_of(&c, &t, &b);
  CHECK(b.known[PASCAL_INTERVAL_K]);
  CHECK_NEAR(b.lo[PASCAL_INTERVAL_K], 0, 0);
  CHECK_NEAR(b.hi[PASCAL_INTERVAL_K], 0, 0);
  /* time: the quantiles of every residual's time (0 .. 0.09, type 7 at
   * 0.1 and 0.9 of ten: 0.009 and 0.081), whatever the transfers; the lower
   * side at most 0 */
  CHECK(b.known[PASCAL_INTERVAL_TIME]);
  CHECK_NEAR(b.lo[PASCAL_INTERVAL_TIME], 0, 1e-12);
  CHECK_NEAR(b.hi[PASCAL_INTERVAL_TIME], 0.081, 1e-12);

  /* one repeat pair 20 % apart: one run's deviation +-log(1.2)/sqrt 2; the
   * 0.1 quantile of the two is -0.8 of it; it floors every answer */
  double pair[PASCAL_INTERVAL_QUANTITIES] = {log(1.2), NAN};
  CHECK_INT(pascal_interval_add_noise(&c, pair, NULL), PASCAL_OK);
  CHECK_INT(pascal_interval_finish(&c, NULL), PASCAL_OK);
  pascal_interval_bounds_of(&c, &t, &b);
  double a = log(1.2) / sqrt(2.0);
  CHECK_NEAR(b.lo[PASCAL_INTERVAL_K], -0.8 * a, 1e-12);
  CHECK_NEAR(b.hi[PASCAL_INTERVAL_K], 0.8 * a, 1e-12);

  /* widening to another answer: only an answer that transfers across keys
   * (what a leave-one-key-out fold scores), each coordinate and kind alone
   * (an at-reference answer, t.n = 0, never; with `across_keys` returning
   * true for every coordinate the W, N and n_k rows fail) */
  static const bool across[PASCAL_COORDINATES] = {[PASCAL_COORD_M] = true,
                                                  [PASCAL_COORD_D] = true,
                                                  [PASCAL_COORD_N_R] = true,
                                                  [PASCAL_COORD_N_C] = true};
  pascal_interval_bounds at = b;
  CHECK(!pascal_interval_widen_k(&at, &t, -1));
  for (int coord = 0; coord < PASCAL_COORDINATES; coord++)
    for (int kind = 0; kind < 2; kind++) {
      pascal_interval_bounds wid = b;
      pascal_transfers one_t = one((pascal_coordinate)coord, (pascal_transfer_kind)kind, 1);
      CHECK_INT(pascal_interval_widen_k(&wid, &one_t, -1), across[coord]);
      CHECK_NEAR(wid.lo[PASCAL_INTERVAL_K], across[coord] ? -1 : -0.8 * a, 1e-12);
      CHECK(!pascal_interval_widen_k(&wid, &one_t, 0.01)); /* inside already */
    }
  pascal_interval_free(&c);

  /* no residual at all: nothing is known */
  pascal_interval_calibration none = {0};
  CHECK_INT(pascal_interval_finish(&none, NULL), PASCAL_OK);
  pascal_interval_bounds_of(&none, &t, &b);
  CHECK(!b.known[PASCAL_INTERVAL_K]);
  CHECK(isnan(b.lo[PASCAL_INTERVAL_K]));
  pascal_interval_free(&none);
}

static pascal_transfers extrap(pascal_coordinate c, pascal_extrapolation_action a, double distance)
{
  pascal_transfers t = one(c, PASCAL_TRANSFER_EXTRAP, distance);
  t.item[0].action = a;
  return t;
}

/* A scan's N above the largest size read at the same blocks per slot, N
 * distance dn, with the W read it entails (the shifted horizon, distance
 * dw from its nearest knot). */
static pascal_transfers same_slot(double dn, double dw)
{
  pascal_transfers t = extrap(PASCAL_COORD_N, PASCAL_EXTRAP_SAME_SLOT, dn);
  t.item[t.n++] = (pascal_transfer){PASCAL_COORD_W, PASCAL_TRANSFER_INTERP, dw, 0};
  return t;
}

/* Extrapolated residuals are grouped per action too, and an answer reads
 * its action's group: N below the smallest size (linear) and one pass above
 * the largest (clamped, exact) do not share one width. A same-blocks-per-
 * slot residual is evidence about its N transfer (the W read is entailed),
 * and an answer reading that group does not add the W transfer again.
 * Without the action groups the linear answer reads the pooled quantiles
 * (-0.63 per unit instead of -0.81) and the same-slot answer gets no group
 * of its own (its residuals have two transfers): checked, the rows below
 * marked "split" fail then. */
static void test_groups_by_action(void)
{
  pascal_interval_calibration c = {0};
  /* linear: rates 0, -0.1 .. -0.9 (type 7 at 0.1 and 0.9: -0.81, -0.09);
   * clamped: ten exact; pooled: -0.9 .. -0.1 and eleven zeros (-0.71, 0) */
  for (int i = 0; i < 10; i++) {
    add(&c, extrap(PASCAL_COORD_N, PASCAL_EXTRAP_LINEAR, 1), -0.1 * i, NAN);
    add(&c, extrap(PASCAL_COORD_N, PASCAL_EXTRAP_CLAMPED, 1), 0, NAN);
  }
  /* same slot: eight log-ratios 0.1 at N distance 0.5, rate 0.2 */
  for (int i = 0; i < 8; i++)
    add(&c, same_slot(0.5, 0.25), 0.1, NAN);
  CHECK_INT(pascal_interval_finish(&c, NULL), PASCAL_OK);
  int q = PASCAL_INTERVAL_K;
  const pascal_interval_group *lin = &c.action[PASCAL_COORD_N][PASCAL_EXTRAP_LINEAR];
  CHECK_INT(lin->n[q], 10); /* split */
  CHECK_NEAR(lin->lo[q], -0.81, 1e-12);
  CHECK_NEAR(lin->hi[q], -0.09, 1e-12);
  const pascal_interval_group *pooled =
      pascal_interval_group_of(&c, PASCAL_COORD_N, PASCAL_TRANSFER_EXTRAP);
  CHECK_INT(pooled->n[q], 28); /* every action, the same-slot rates too */
  CHECK_INT(c.action[PASCAL_COORD_N][PASCAL_EXTRAP_SAME_SLOT].n[q], 8); /* split */
  CHECK_INT(c.action[PASCAL_COORD_N][PASCAL_EXTRAP_HELD].n[q], 0);

  pascal_interval_bounds b;
  pascal_transfers t = extrap(PASCAL_COORD_N, PASCAL_EXTRAP_LINEAR, 2);
  pascal_interval_bounds_of(&c, &t, &b);
  CHECK_NEAR(b.lo[q], -1.62, 1e-12); /* split: the linear rates times 2 */
  CHECK_NEAR(b.hi[q], PASCAL_INTERVAL_FLOOR, 0);
  CHECK_INT(b.n_residuals, 10);
  CHECK_INT(b.borrowed, 0);
  t = extrap(PASCAL_COORD_N, PASCAL_EXTRAP_CLAMPED, 2); /* exact: the floor */
  pascal_interval_bounds_of(&c, &t, &b);
  CHECK_NEAR(b.lo[q], -PASCAL_INTERVAL_FLOOR, 0); /* split */
  /* an action without residuals reads the pooled group: 28 values,
   * -0.9 .. -0.1, eleven zeros, eight 0.2 (type 7: -0.63, 0.2) */
  t = extrap(PASCAL_COORD_N, PASCAL_EXTRAP_HELD, 1);
  pascal_interval_bounds_of(&c, &t, &b);
  CHECK_NEAR(b.lo[q], -0.63, 1e-12);
  CHECK_NEAR(b.hi[q], 0.2, 1e-12);
  CHECK_INT(b.n_residuals, 28);
  /* same slot at N distance 1: its group's 0.2 alone (the entailed W,
   * whose group is empty, adds nothing; read on its own it would borrow
   * the widest group) */
  t = same_slot(1, 2);
  pascal_interval_bounds_of(&c, &t, &b);
  CHECK_NEAR(b.hi[q], 0.2, 1e-12); /* split */
  CHECK_NEAR(b.lo[q], -PASCAL_INTERVAL_FLOOR, 0);
  CHECK_INT(b.n_residuals, 8);
  CHECK_INT(b.borrowed, 0);
  pascal_interval_free(&c);

  /* seven same-slot residuals, one short: the answer reads the pooled N
   * group (eight linear rates -0.5 and the seven 0.2: -0.5, 0.2) and its W
   * transfer counts on its own (eight W rates 0.3: -+0.3), the wider per
   * side */
  for (int i = 0; i < 8; i++) {
    add(&c, extrap(PASCAL_COORD_N, PASCAL_EXTRAP_LINEAR, 1), -0.5, NAN);
    add(&c, one(PASCAL_COORD_W, PASCAL_TRANSFER_INTERP, 1), 0.3, NAN);
  }
  for (int i = 0; i < 7; i++)
    add(&c, same_slot(0.5, 0.25), 0.1, NAN);
  CHECK_INT(pascal_interval_finish(&c, NULL), PASCAL_OK);
  t = same_slot(1, 1);
  pascal_interval_bounds_of(&c, &t, &b);
  CHECK_NEAR(b.lo[q], -0.5, 1e-12);
  CHECK_NEAR(b.hi[q], 0.3, 1e-12);
  CHECK_INT(b.borrowed, 0); /* the pooled group is its (coordinate, kind)'s own */
  CHECK_INT(b.n_residuals, 15 + 8);
  pascal_interval_free(&c);

  /* GEMM n_c: eight static-ratio rates 0.1 .. 0.8 (type 7 at 0.1 and 0.9:
   * 0.17, 0.73) and eight clamped zeros; a static-ratio answer at
   * distance 2 reads its own group, doubled, its lower end the floor (the
   * interval holds the answer; without the split it read the pooled
   * sixteen: 0, 0.65 per unit). Checked to fail with PASCAL_EXTRAP_ACTIONS
   * left at 4. */
  for (int i = 1; i <= 8; i++) {
    add(&c, extrap(PASCAL_COORD_N_C, PASCAL_EXTRAP_STATIC_RATIO, 1), 0.1 * i, NAN);
    add(&c, extrap(PASCAL_COORD_N_C, PASCAL_EXTRAP_CLAMPED, 1), 0, NAN);
  }
  CHECK_INT(pascal_interval_finish(&c, NULL), PASCAL_OK);
  CHECK_INT(c.action[PASCAL_COORD_N_C][PASCAL_EXTRAP_STATIC_RATIO].n[q], 8);
  t = extrap(PASCAL_COORD_N_C, PASCAL_EXTRAP_STATIC_RATIO, 2);
  pascal_interval_bounds_of(&c, &t, &b);
  CHECK_NEAR(b.lo[q], -PASCAL_INTERVAL_FLOOR, 0);
  CHECK_NEAR(b.hi[q], 1.46, 1e-12);
  CHECK_INT(b.n_residuals, 8);
  pascal_interval_free(&c);
}

/* The answers that read no excess (aligned K exactly): their residuals
 * form the aligned group, as log-ratios (not rates per distance), and enter
 * no coordinate's group; an aligned answer reads that group whatever it
 * transferred, unless it holds fewer than PASCAL_INTERVAL_MIN_RESIDUALS. */
static void test_aligned_group(void)
{
  int q = PASCAL_INTERVAL_K;
  pascal_interval_calibration c = {0};
  /* W interpolated, not aligned: ten rates +-0.1 at distance 1 */
  for (int i = 0; i < 10; i++)
    add(&c, one(PASCAL_COORD_W, PASCAL_TRANSFER_INTERP, 1), i % 2 ? 0.1 : -0.1, NAN);
  /* aligned, W interpolated at distance 2: seven exact, three 0.3 above.
   * Signed type-7 quantiles of (0 x7, .3 x3): 10 % -> 0, 90 % -> h = 8.1
   * -> 0.3 */
  pascal_transfers al = one(PASCAL_COORD_W, PASCAL_TRANSFER_INTERP, 2);
  al.aligned = true;
  for (int i = 0; i < 10; i++)
    add(&c, al, i < 7 ? 0 : 0.3, NAN);
  CHECK_INT(pascal_interval_finish(&c, NULL), PASCAL_OK);
  CHECK_INT(c.aligned.n[q], 10);
  CHECK_NEAR(c.aligned.lo[q], 0, 1e-12);
  CHECK_NEAR(c.aligned.hi[q], 0.3, 1e-12);
  const pascal_interval_group *w = pascal_interval_group_of(&c, PASCAL_COORD_W, 0);
  CHECK_INT(w->n[q], 10); /* the aligned residuals are not W's */
  CHECK_NEAR(w->hi[q], 0.1, 1e-12);
  /* an aligned answer far away reads the aligned group, unscaled */
  pascal_transfers t = one(PASCAL_COORD_W, PASCAL_TRANSFER_INTERP, 3);
  t.aligned = true;
  pascal_interval_bounds b;
  pascal_interval_bounds_of(&c, &t, &b);
  CHECK_NEAR(b.lo[q], -PASCAL_INTERVAL_FLOOR, 0);
  CHECK_NEAR(b.hi[q], 0.3, 1e-12);
  CHECK_INT(b.n_residuals, 10);
  CHECK_NEAR(b.mean_abs, 0.09, 1e-12);
  /* the same answer not aligned: W's group times 3 */
  t.aligned = false;
  pascal_interval_bounds_of(&c, &t, &b);
  CHECK_NEAR(b.lo[q], -0.3, 1e-12);
  CHECK_NEAR(b.hi[q], 0.3, 1e-12);
  pascal_interval_free(&c);

  /* seven aligned residuals, one short: an aligned answer reads its
   * transfers' groups */
  c = (pascal_interval_calibration){0};
  for (int i = 0; i < 10; i++)
    add(&c, one(PASCAL_COORD_W, PASCAL_TRANSFER_INTERP, 1), i % 2 ? 0.1 : -0.1, NAN);
  for (int i = 0; i < 7; i++)
    add(&c, al, 0.3, NAN);
  CHECK_INT(pascal_interval_finish(&c, NULL), PASCAL_OK);
  pascal_interval_bounds_of(&c, &t, &b);
  t.aligned = true;
  pascal_interval_bounds b2;
  pascal_interval_bounds_of(&c, &t, &b2);
  CHECK_NEAR(b2.lo[q], b.lo[q], 0);
  CHECK_NEAR(b2.hi[q], 0.3, 1e-12);
  pascal_interval_free(&c);
}

/* A scan calibration of one family at K = 1 everywhere (no divergence):
 * every fold predicts every left-out run exactly. */
static void test_folds_of_a_flat_calibration(void)
{
  pascal_calibration cal;
  pascal_calibration_init(&cal, PASCAL_WORKLOAD_SCAN);
  cal.device = (pascal_device){.sm_count = 4, .capacity_blocks = 256, .block_bytes = 16384};
  snprintf(cal.device.name, sizeof cal.device.name, "flat");
  snprintf(cal.device.arch, sizeof cal.device.arch, "sim");
  static const uint32_t ms[] = {0, 1, 2, 4, 5, 6, 8, 9, 10}, Ns[] = {512, 768, 1024},
                        Ws[] = {1, 4, 16};
  size_t n_runs = 0;
  for (size_t i = 0; i < 9; i++)
    for (size_t j = 0; j < 3; j++)
      for (size_t k = 0; k < 3; k++) {
        pascal_scan_run r = {.key = {1, PASCAL_PATH_TMA, 2, ms[i]}, .N = Ns[j], .W = Ws[k]};
        r.fill_bytes = 16384.0 * r.W * r.N;
        CHECK_INT(pascal_calibration_append_scan(&cal, &r, NULL), PASCAL_OK);
        n_runs++;
      }
  pascal_interval_calibration ic;
  CHECK_INT(pascal_interval_build(&cal, &ic, NULL), PASCAL_OK);
  /* each run in its key fold, its W fold and its N fold (at most; a fold
   * that cannot be fitted gives none), every one exact */
  CHECK(ic.n > n_runs && ic.n <= 3 * n_runs);
  size_t exact = 0;
  for (size_t i = 0; i < ic.n; i++)
    exact += fabs(ic.items[i].log_ratio[PASCAL_INTERVAL_K]) < 1e-9;
  CHECK_INT(exact, ic.n);
  CHECK_INT(ic.n_noise, 0);
  /* every prediction read no excess: every residual is the aligned
   * group's, none a coordinate's */
  CHECK_INT(ic.aligned.n[PASCAL_INTERVAL_K], ic.n);
  CHECK_INT(pascal_interval_group_of(&ic, PASCAL_COORD_N, PASCAL_TRANSFER_EXTRAP)->n[0], 0);
  /* the N folds' extrapolations by action, as the predictions state them
   * (the evidence each would be, were it not aligned): N = 512 read from
   * 768 and 1024 (linear, every m and W), N = 1024 from 768 at one pass
   * (clamped) and at W = 4, 16 (same blocks per slot, the W read entailed,
   * so one transfer); without the actions marked on the transfers (or
   * without the entailment) these fail (checked) */
  size_t by_action[PASCAL_EXTRAP_ACTIONS] = {0};
  for (size_t i = 0; i < ic.n; i++) {
    pascal_residual r = ic.items[i];
    CHECK(r.transfers.aligned && !pascal_residual_evidence(&r));
    r.transfers.aligned = false;
    const pascal_transfer *e = pascal_residual_evidence(&r);
    if (e && e->coordinate == PASCAL_COORD_N && e->kind == PASCAL_TRANSFER_EXTRAP)
      by_action[e->action]++;
  }
  CHECK_INT(by_action[PASCAL_EXTRAP_LINEAR], 27);
  CHECK_INT(by_action[PASCAL_EXTRAP_CLAMPED], 9);
  CHECK_INT(by_action[PASCAL_EXTRAP_SAME_SLOT], 18);
  /* so an aligned answer that transferred has the floor */
  pascal_transfers t = one(PASCAL_COORD_W, PASCAL_TRANSFER_INTERP, 1.5);
  t.aligned = true;
  pascal_interval_bounds b;
  pascal_interval_bounds_of(&ic, &t, &b);
  CHECK_NEAR(b.lo[PASCAL_INTERVAL_K], -PASCAL_INTERVAL_FLOOR, 1e-9);
  CHECK_NEAR(b.hi[PASCAL_INTERVAL_K], PASCAL_INTERVAL_FLOOR, 1e-9);
  pascal_interval_free(&ic);

  /* a repeat 10 % above one run: one pair, whose spread bounds even an
   * answer at its references */
  pascal_scan_run again = cal.scan_runs[0];
  again.has_repeat = true;
  again.repeat = 1;
  again.fill_bytes *= 1.1;
  CHECK_INT(pascal_calibration_append_scan(&cal, &again, NULL), PASCAL_OK);
  CHECK_INT(pascal_interval_build(&cal, &ic, NULL), PASCAL_OK);
  CHECK_INT(ic.n_noise, 2);
  t.n = 0;
  pascal_interval_bounds_of(&ic, &t, &b);
  CHECK_NEAR(b.hi[PASCAL_INTERVAL_K], 0.8 * log(1.1) / sqrt(2.0), 1e-12);
  CHECK_NEAR(b.lo[PASCAL_INTERVAL_K], -0.8 * log(1.1) / sqrt(2.0), 1e-12);
  pascal_interval_free(&ic);
  pascal_calibration_free(&cal);
}

static pascal_covered_run covered(unsigned sig, double obs, double K, double lo, double hi)
{
  return (pascal_covered_run){.signature = sig,
                              .K_obs = obs,
                              .K = K,
                              .K_low = lo,
                              .K_high = hi,
                              .K_aligned = 1,
                              .t_obs = NAN,
                              .t_low = NAN,
                              .t_high = NAN};
}

static void test_coverage(void)
{
  pascal_covered_run runs[5] = {
      covered(4, 1.0, 1.1, 0.9, 1.2), /* in; |1.1 - 1| = 10 %, aligned 0 */
      covered(4, 2.0, 1.5, 1.0, 1.8), /* out (above); 25 %, aligned 50 % */
      covered(1, 1.0, 1.0, 1.0, 1.0), /* in: a closed interval holds its end */
      covered(4, 1.2, 1.2, 1.0, 1.5), /* in; 0 %, aligned 1/6 */
      covered(0, 1.0, 1.0, 1.0, 1.0),
  };
  runs[3].t_obs = 2;
  runs[3].t_low = 1;
  runs[3].t_high = 3;
  pascal_coverage c;
  CHECK_INT(pascal_coverage_of(runs, 5, &c, NULL), PASCAL_OK);
  CHECK_NEAR(c.level, PASCAL_INTERVAL_LEVEL, 0);
  CHECK_INT(c.all.n_runs, 5);
  CHECK_INT(c.all.n_covered, 4);
  CHECK_INT(c.n_groups, 3);
  CHECK_INT(c.group[0].signature, 0); /* ascending */
  CHECK_INT(c.group[2].signature, 4);
  const pascal_coverage_group *g = &c.group[2];
  CHECK_INT(g->n_runs, 3);
  CHECK_INT(g->n_covered, 2);
  CHECK_INT(g->n_timed, 1);
  CHECK_INT(g->n_time_covered, 1);
  CHECK_NEAR(g->mape_pascal, 100 * (0.1 + 0.25 + 0) / 3, 1e-9);
  CHECK_NEAR(g->mape_aligned, 100 * (0 + 0.5 + 0.2 / 1.2) / 3, 1e-9);
  CHECK_NEAR(g->median_ratio, 1.5, 1e-12);                  /* ratios 1.333, 1.8, 1.5 */
  CHECK_NEAR(c.all.median_ratio, 1.333333333333333, 1e-12); /* 1, 1, 1.33, 1.5, 1.8 */
  char name[128];
  pascal_signature_name(1u << 3, name, sizeof name); /* bit 3 W + 0 */
  CHECK(strcmp(name, "W interpolated") == 0);
  pascal_signature_name((1u << 7) | (1u << 3), name, sizeof name); /* m extrap., W interp. */
  CHECK(strcmp(name, "W interpolated, m extrapolated") == 0);
  pascal_signature_name(PASCAL_SIGNATURE_BIT(PASCAL_COORD_W, PASCAL_TRANSFER_ONE_PASS), name,
                        sizeof name);
  CHECK(strcmp(name, "W interpolated-from-one-pass") == 0);
  pascal_signature_name(0, name, sizeof name);
  CHECK(strcmp(name, "at references") == 0);
  pascal_signature_name(PASCAL_COVERAGE_OTHER, name, sizeof name);
  CHECK(strcmp(name, "other") == 0);

  /* more signatures than groups: the rest are "other", last */
  pascal_covered_run many[20];
  for (unsigned i = 0; i < 20; i++)
    many[i] = covered(i + 1, 1, 1, 1, 1);
  CHECK_INT(pascal_coverage_of(many, 20, &c, NULL), PASCAL_OK);
  CHECK_INT(c.n_groups, PASCAL_COVERAGE_GROUPS_MAX);
  CHECK_INT(c.group[PASCAL_COVERAGE_GROUPS_MAX - 1].signature, PASCAL_COVERAGE_OTHER);
  CHECK_INT(c.group[PASCAL_COVERAGE_GROUPS_MAX - 1].n_runs, 20 - (PASCAL_COVERAGE_GROUPS_MAX - 1));
  CHECK_INT(c.all.n_runs, 20);
}

static pascal_key_report key(uint32_t d, uint32_t m, double pascal, double aligned)
{
  pascal_key_report k = {.key = {1, PASCAL_PATH_TMA, d, m}, .n_runs = 2, .n_scored = 2};
  for (int i = 0; i < PASCAL_METHOD_COUNT; i++)
    k.mape[i] = NAN;
  k.mape[PASCAL_METHOD_PASCAL] = pascal;
  k.mape[PASCAL_METHOD_ALIGNED] = aligned;
  return k;
}

static void test_family_losses(void)
{
  /* d = 2 loses (mean 20 against 10), d = 3 ties (not a loss), d = 4 wins;
   * a key without scored runs is left out of its family's mean */
  pascal_key_report keys[] = {key(2, 0, 30, 10), key(2, 4, 10, 10), key(3, 0, 5, 5),
                              key(4, 0, 1, 9),   key(4, 4, 50, 1),  key(4, 8, 1, 9)};
  keys[4].n_scored = 0;
  pascal_loko_report rep = {.workload = PASCAL_WORKLOAD_SCAN, .n_keys = 6, .keys = keys};
  pascal_family_loss *loss;
  size_t n;
  CHECK_INT(pascal_family_losses(&rep, &loss, &n, NULL), PASCAL_OK);
  CHECK_INT(n, 1);
  if (n == 1) {
    CHECK_INT(loss[0].family.d, 2);
    CHECK_INT(loss[0].n_keys, 2);
    CHECK_NEAR(loss[0].pascal_pct, 20, 1e-12);
    CHECK_NEAR(loss[0].aligned_pct, 10, 1e-12);
    pascal_scan_key q = {1, PASCAL_PATH_TMA, 2, 7};
    CHECK(pascal_family_loss_find(loss, n, &q) == &loss[0]);
    q.d = 3;
    CHECK(pascal_family_loss_find(loss, n, &q) == NULL);
    char line[256];
    pascal_family_loss_describe(&loss[0], PASCAL_WORKLOAD_SCAN, line, sizeof line);
    CHECK(strcmp(line, "family o=1 tma d=2: PASCAL's leave-one-key-out error 20.00 % exceeds "
                       "aligned K = 1's 10.00 % over its 2 keys") == 0);
  }
  free(loss);
  /* GEMM: one family, every grid */
  rep.workload = PASCAL_WORKLOAD_GEMM;
  CHECK_INT(pascal_family_losses(&rep, &loss, &n, NULL), PASCAL_OK);
  CHECK_INT(n, 1); /* (30 + 10 + 5 + 1 + 1) / 5 = 9.4 against 8.6 */
  if (n == 1) {
    CHECK_INT(loss[0].n_keys, 5);
    CHECK_NEAR(loss[0].pascal_pct, 9.4, 1e-12);
    CHECK(pascal_family_loss_find(loss, n, NULL) == &loss[0]);
  }
  free(loss);
}

/* The synthetic scan law (noise on) fitted on the default plan, scored on an
 * off-grid panel of the same law: W between and beyond the horizons, N
 * below and beyond the sizes, m past the compute values. */
static void test_panel_coverage_is_the_answers(void)
{
  pascal_synth_law law;
  pascal_synth_plan plan;
  pascal_calibration cal, panel;
  pascal_synth_law_default(PASCAL_WORKLOAD_SCAN, &law);
  pascal_synth_plan_default(PASCAL_WORKLOAD_SCAN, &plan);
  CHECK_INT(pascal_synth_calibration(&law, &plan, &cal, NULL), PASCAL_OK);
  static const pascal_scan_key keys[] = {
      {1, PASCAL_PATH_TMA, 2, 3}, {2, PASCAL_PATH_TMA, 4, 20}, {1, PASCAL_PATH_SYNC, 0, 8}};
  static const uint32_t sizes[] = {1024, 4096, 12000}, horizons[] = {2, 8, 100};
  pascal_synth_plan off = {.keys = keys,
                           .n_keys = 3,
                           .sizes = sizes,
                           .n_sizes = 3,
                           .horizons = horizons,
                           .n_horizons = 3,
                           .repeats = 1};
  CHECK_INT(pascal_synth_calibration(&law, &off, &panel, NULL), PASCAL_OK);
  const pascal_calibration *parts[] = {&panel};
  CHECK_INT(pascal_calibration_set_panel(&cal, PASCAL_RUNS_OFFGRID, parts, 1, NULL), PASCAL_OK);

  pascal_loko_report rep;
  pascal_model *md = NULL;
  pascal_validation v;
  CHECK_INT(pascal_loko_run(&cal, &rep, NULL), PASCAL_OK);
  CHECK_INT(pascal_model_fit(&cal, &md, NULL), PASCAL_OK);
  CHECK_INT(pascal_validation_build(&cal, md, &rep, &v, NULL), PASCAL_OK);
  CHECK(rep.offgrid != NULL && rep.heldout == NULL);
  if (!rep.offgrid || !md)
    return;
  const pascal_coverage *c = &rep.offgrid->coverage;
  size_t covered = 0, scored = 0, in_groups = 0;
  for (size_t i = 0; i < panel.n_scan_runs; i++) {
    const pascal_scan_run *r = &panel.scan_runs[i];
    pascal_query q = pascal_query_scan(&r->key, r->N, r->W);
    pascal_answer a;
    if (pascal_answer_query(md, &v, &q, &a, NULL) != PASCAL_OK)
      continue;
    double K = r->fill_bytes / (16384.0 * r->W * r->N);
    CHECK(a.interval.known);
    covered += K >= a.interval.K_low && K <= a.interval.K_high;
    scored++;
  }
  for (size_t g = 0; g < c->n_groups; g++)
    in_groups += c->group[g].n_runs;
  CHECK_INT(c->all.n_runs, scored);
  CHECK_INT(in_groups, scored);
  CHECK_INT(c->all.n_covered, covered);
  CHECK(c->n_groups >= 3); /* W, N and m transfers at least */
  CHECK_NEAR(c->level, PASCAL_INTERVAL_LEVEL, 0);
  CHECK(rep.coverage.level == 0); /* the folds are not a panel */
  pascal_validation_free(&v);
  pascal_model_free(md);
  pascal_loko_report_free(&rep);
  pascal_calibration_free(&panel);
  pascal_calibration_free(&cal);
}

/* Clipping the K bounds to what a run can measure, by hand: an answer of
 * K = 2 with log bounds [-1, +1] (K from 0.736 to 5.44) inside [1, 4]
 * becomes [log 1/2, log 2]; bounds already inside stay and report no
 * change; a K outside the range, a NaN range (an attention answer) or
 * unknown bounds are left alone. */
static void test_clip_to_measurable(void)
{
  pascal_interval_bounds b = {.level = PASCAL_INTERVAL_LEVEL};
  b.known[PASCAL_INTERVAL_K] = true;
  b.lo[PASCAL_INTERVAL_K] = -1, b.hi[PASCAL_INTERVAL_K] = 1;
  pascal_interval_bounds c = b;
  CHECK(pascal_interval_clip_k(&c, 2, 1, 4));
  CHECK_NEAR(c.lo[PASCAL_INTERVAL_K], log(0.5), 1e-15);
  CHECK_NEAR(c.hi[PASCAL_INTERVAL_K], log(2.0), 1e-15);
  CHECK(!pascal_interval_clip_k(&c, 2, 1, 4)); /* once is enough */
  c = b;                                       /* only the upper side reaches past M */
  CHECK(pascal_interval_clip_k(&c, 2, 0.5, 4));
  CHECK_NEAR(c.lo[PASCAL_INTERVAL_K], -1, 1e-15);
  CHECK_NEAR(c.hi[PASCAL_INTERVAL_K], log(2.0), 1e-15);
  c = b; /* wide enough: unchanged */
  CHECK(!pascal_interval_clip_k(&c, 2, 0.1, 100));
  CHECK(c.lo[PASCAL_INTERVAL_K] == -1 && c.hi[PASCAL_INTERVAL_K] == 1);
  c = b; /* K at the edge of the range: that side closes on K */
  CHECK(pascal_interval_clip_k(&c, 4, 1, 4));
  CHECK(c.hi[PASCAL_INTERVAL_K] == 0 && c.lo[PASCAL_INTERVAL_K] == -1);
  const double nan = NAN;
  c = b;
  CHECK(!pascal_interval_clip_k(&c, 5, 1, 4)); /* K outside: nothing to hold to */
  CHECK(!pascal_interval_clip_k(&c, 2, nan, nan));
  CHECK(!pascal_interval_clip_k(&c, 0, 0, 4));
  CHECK(c.lo[PASCAL_INTERVAL_K] == -1 && c.hi[PASCAL_INTERVAL_K] == 1);
  c.known[PASCAL_INTERVAL_K] = false;
  CHECK(!pascal_interval_clip_k(&c, 2, 1, 1.5));
}

int main(void)
{
  test_clip_to_measurable();
  test_bounds_by_hand();
  test_groups_by_action();
  test_aligned_group();
  test_folds_of_a_flat_calibration();
  test_coverage();
  test_family_losses();
  test_panel_coverage_is_the_answers();
  return check_summary();
}
