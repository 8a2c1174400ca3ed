/*
 * test_time_model.c - the calibrated time (pascal/time_model.h) against
 * laws worked out here:
 *
 *  - scan: kernel times made exactly fixed(z) + W N cost(z) give back each
 *    reference's cost and fixed cost, and the time of any calibrated
 *    configuration; a cost log-linear in m is transferred exactly by the
 *    graph rule, a class present on one side only is clamped, and the time
 *    names the rule K's answer names; the DRAM roofline and the bound
 *    (dram, l2, latency) follow the peaks;
 *  - GEMM: times from T = fixed + n_k (full t(c_max) + t(c_tail)),
 *    t(c) = max(L, c s), give back c_max (2, and 3), fixed, L and s, and the
 *    worked time of shapes never timed, a 4-CTA grid being 4 SMs at one CTA;
 *  - nothing of the held-out panel enters the fit: doubling the panel's
 *    kernel_ns leaves every panel answer bit for bit (doubling the
 *    calibration's doubles them, so the comparison can fail);
 *  - without kernel times the answer is the pipeline on peaks, without
 *    peaks there is none.
 *
 * Checked to fail: with the scan roofline removed the DRAM check fails;
 * with a tail's CTAs per SM taken as c_max (no tails) ten GEMM checks fail,
 * the fitted parameters among them. The doubling check's control (the
 * calibration's own times doubled) shows it sees any time that moves.
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "pascal/predict_time.h"
#include "pascal/synth.h"
#include "pascal/time_model.h"

static const pascal_peaks PEAKS = {273e9, 1.92e12, 6.5536e12, 1e9, 2e-6};

/* The scan law: seconds per block and wave, and per kernel. */
static double law_cost(const pascal_scan_key *k)
{
  return 1e-6 * exp(0.03 * k->m) * (k->path == PASCAL_PATH_SYNC ? 1.5 : 1.0 + 0.1 * k->d) /
         (double)k->o;
}

static double law_fixed(const pascal_scan_key *k)
{
  return 20e-6 + 1e-7 * k->d;
}

static void time_scan_runs(pascal_scan_run *runs, size_t n, double scale)
{
  for (size_t i = 0; i < n; i++) {
    pascal_scan_run *r = &runs[i];
    r->has_kernel_ns = true;
    r->kernel_ns = scale * 1e9 * (law_fixed(&r->key) + (double)r->W * r->N * law_cost(&r->key));
  }
}

static void scan_cal(pascal_calibration *cal)
{
  pascal_synth_law law;
  pascal_synth_plan plan;
  pascal_synth_law_default(PASCAL_WORKLOAD_SCAN, &law);
  pascal_synth_plan_default(PASCAL_WORKLOAD_SCAN, &plan);
  CHECK_INT(pascal_synth_calibration(&law, &plan, cal, NULL), PASCAL_OK);
  cal->device.has_peaks = 1;
  cal->device.peaks = PEAKS;
  time_scan_runs(cal->scan_runs, cal->n_scan_runs, 1);
}

static void test_scan_fit(void)
{
  pascal_calibration cal;
  pascal_model *m = NULL;
  scan_cal(&cal);
  CHECK_INT(pascal_model_fit(&cal, &m, NULL), PASCAL_OK);
  CHECK(pascal_model_time_calibrated(m));
  for (size_t i = 0; i < pascal_model_curve_count(m); i++) {
    pascal_curve_view v;
    double cost, fixed;
    CHECK_INT(pascal_model_curve(m, i, &v, NULL), PASCAL_OK);
    CHECK_INT(pascal_model_time_scan_ref(m, i, &cost, &fixed, NULL), PASCAL_OK);
    CHECK_NEAR(cost / law_cost(&v.key), 1, 1e-9);
    CHECK_NEAR(fixed / law_fixed(&v.key), 1, 1e-6);
  }
  /* a calibrated configuration at a horizon between the measured ones */
  pascal_scan_key k = {1, PASCAL_PATH_TMA, 2, 8};
  pascal_time t;
  CHECK_INT(pascal_time_scan(m, &k, 3072, 8, 0, &t, NULL), PASCAL_OK);
  CHECK_INT(t.source, PASCAL_TIME_CALIBRATED);
  CHECK_INT(t.rule, PASCAL_RULE_EXACT);
  CHECK_NEAR(t.time_s / (law_fixed(&k) + 8 * 3072.0 * law_cost(&k)), 1, 1e-9);
  /* 1.53 us per round: L2 takes 48 x 16 KiB / 1.92 TB/s = 0.41 us, no peak
     is near: latency; Little's law gives d times the step */
  CHECK_INT(t.bound, PASCAL_BOUND_LATENCY);
  CHECK_NEAR(t.in_flight_bytes_per_sm, 2 * 16384.0, 0);
  CHECK_NEAR(t.latency_s, 2 * t.step_s, 1e-20);
  /* the fills as a roofline: 10 fills of 16 KiB per round take 0.60 us at
     273 GB/s, under the 1.53 us step; 40 take 2.4 us and decide */
  double rounds = 8 * 3072.0;
  CHECK_INT(pascal_time_scan(m, &k, 3072, 8, 10 * 16384.0 * rounds, &t, NULL), PASCAL_OK);
  CHECK_NEAR(t.time_s / (law_fixed(&k) + rounds * law_cost(&k)), 1, 1e-9);
  CHECK_INT(pascal_time_scan(m, &k, 3072, 8, 40 * 16384.0 * rounds, &t, NULL), PASCAL_OK);
  CHECK_NEAR(t.time_s / (law_fixed(&k) + rounds * 40 * 16384.0 / 273e9), 1, 1e-9);
  CHECK_INT(t.bound, PASCAL_BOUND_DRAM);
  pascal_error err;
  CHECK_INT(pascal_time_scan(m, &k, 3072, 2.5, 0, &t, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "W") == 0);
  CHECK_INT(pascal_time_scan(m, &k, 3072, 8, -1, &t, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "fill_bytes") == 0);
  pascal_model_free(m);
  pascal_calibration_free(&cal);
}

/* Keys the plan never timed get their time by K's rule, exactly for a cost
 * log-linear in m (graph) and from the nearest same-class reference
 * (clamp); a size between the references is linear in eta. */
static void test_scan_transfer(void)
{
  pascal_calibration cal;
  pascal_model *m = NULL;
  scan_cal(&cal);
  CHECK_INT(pascal_model_fit(&cal, &m, NULL), PASCAL_OK);
  static const uint32_t ms[] = {4, 6, 7, 10, 12, 20, 21};
  for (size_t i = 0; i < sizeof ms / sizeof *ms; i++) {
    pascal_scan_key k = {2, PASCAL_PATH_TMA, 4, ms[i]};
    pascal_scan_prediction p;
    pascal_time t;
    CHECK_INT(pascal_model_predict_scan(m, &k, 4096, 16, &p, NULL), PASCAL_OK);
    CHECK_INT(pascal_time_scan(m, &k, 4096, 16, p.fill_bytes, &t, NULL), PASCAL_OK);
    CHECK_INT(t.rule, p.why.rule);
    /* m in {0, 1, 2, 3, 5, 8, 9, 14, 16}: classes 0 {0, 8, 16}, 1 {1, 5, 9},
       2 {2, 3, 14}; m = 20 (class 0) and 21 (class 1) lie past their
       class's last reference: clamped to m = 16 and 9 */
    pascal_scan_key used = k;
    if (p.why.rule == PASCAL_RULE_CLAMP)
      used.m = ms[i] == 20 ? 16 : 9;
    else
      CHECK_INT(p.why.rule, PASCAL_RULE_GRAPH);
    double want = law_fixed(&k) + 16 * 4096.0 * law_cost(&used);
    CHECK_NEAR(t.time_s / want, 1, 1e-9);
  }
  pascal_model_free(m);
  pascal_calibration_free(&cal);
}

/* The GEMM law on 48 SMs. */
typedef struct gemm_law {
  uint32_t c_max;
  double fixed, L, s;
} gemm_law;

static double iter_time(const gemm_law *g, uint32_t c)
{
  return fmax(g->L, c * g->s);
}

static double gemm_law_time(const gemm_law *g, uint32_t Mg, uint32_t Ng, uint32_t Kg)
{
  uint64_t tiles = (uint64_t)(Mg / 128) * (Ng / 128), slots = 48 * g->c_max;
  uint64_t full = tiles / slots, tail = tiles % slots;
  uint32_t c_tail = (uint32_t)((tail + 47) / 48);
  return g->fixed + (Kg / 64) * (full * iter_time(g, g->c_max) + (tail ? iter_time(g, c_tail) : 0));
}

static pascal_model *gemm_model(const gemm_law *g)
{
  pascal_synth_law law;
  pascal_synth_plan plan;
  pascal_calibration cal;
  pascal_model *m = NULL;
  pascal_synth_law_default(PASCAL_WORKLOAD_GEMM, &law);
  pascal_synth_plan_default(PASCAL_WORKLOAD_GEMM, &plan);
  CHECK_INT(pascal_synth_calibration(&law, &plan, &cal, NULL), PASCAL_OK);
  cal.device.has_peaks = 1;
  cal.device.peaks = PEAKS;
  for (size_t i = 0; i < cal.n_gemm_runs; i++) {
    pascal_gemm_run *r = &cal.gemm_runs[i];
    r->has_kernel_ns = true;
    r->kernel_ns = 1e9 * gemm_law_time(g, r->shape.Mg, r->shape.Ng, r->shape.Kg);
  }
  CHECK_INT(pascal_model_fit(&cal, &m, NULL), PASCAL_OK);
  pascal_calibration_free(&cal);
  return m;
}

static void test_gemm(void)
{
  /* two CTAs per SM overlap almost fully (L < 2 s), as on the H100 */
  gemm_law g = {2, 30e-6, 20e-6, 11e-6};
  pascal_model *m = gemm_model(&g);
  pascal_gemm_time_fit f;
  CHECK_INT(pascal_model_time_gemm(m, &f, NULL), PASCAL_OK);
  CHECK_INT(f.ctas_per_sm, 2);
  CHECK_NEAR(f.fixed_s / g.fixed, 1, 1e-9);
  CHECK_NEAR(f.iteration_s / g.L, 1, 1e-9);
  CHECK_NEAR(f.sm_iteration_s / g.s, 1, 1e-9);
  /* 4 CTAs: 4 SMs with one CTA each, 16 k-iterations of L: 30 + 320 us;
     the tensor pipe would take 2 x 128^2 x 64 / (6.55 TFLOP/s / 48) =
     15.4 us of the 20: under 90 %, latency */
  pascal_gemm_shape small = {256, 256, 1024};
  pascal_time t;
  CHECK_INT(pascal_time_gemm(m, &small, 0, &t, NULL), PASCAL_OK);
  CHECK_NEAR(t.time_s, 350e-6, 1e-15);
  CHECK_INT(t.ctas_per_sm, 1);
  CHECK_INT(t.full_waves, 0);
  CHECK_INT(t.tail_ctas, 4);
  CHECK_INT(t.bound, PASCAL_BOUND_LATENCY);
  /* never timed: 5 x 7 = 35 CTAs, one tail wave at c = 1, 20 iterations;
     1280 x 1280 = 100 CTAs: one full wave of 96 at c = 2 (22 us per
     iteration) and a tail of 4 at c = 1 (20 us), 20 iterations each */
  pascal_gemm_shape a = {640, 896, 1280}, b = {1280, 1280, 1280};
  CHECK_INT(pascal_time_gemm(m, &a, 0, &t, NULL), PASCAL_OK);
  CHECK_NEAR(t.time_s, 30e-6 + 20 * 20e-6, 1e-15);
  CHECK_INT(pascal_time_gemm(m, &b, 0, &t, NULL), PASCAL_OK);
  CHECK_NEAR(t.time_s, 30e-6 + 20 * (22e-6 + 20e-6), 1e-15);
  CHECK_INT(t.full_waves, 1);
  CHECK_INT(t.tail_ctas, 4);
  pascal_model_free(m);

  /* three CTAs per SM are told apart from two by the waves */
  gemm_law g3 = {3, 25e-6, 25e-6, 10e-6};
  m = gemm_model(&g3);
  CHECK_INT(pascal_model_time_gemm(m, &f, NULL), PASCAL_OK);
  CHECK_INT(f.ctas_per_sm, 3);
  CHECK_NEAR(f.iteration_s / g3.L, 1, 1e-9);
  CHECK_NEAR(f.sm_iteration_s / g3.s, 1, 1e-9);
  pascal_model_free(m);
}

/* The held-out panel's kernel times never reach the time fit. */
static void test_panel_never_fitted(void)
{
  pascal_calibration cal, twice, slow;
  pascal_model *m1 = NULL, *m2 = NULL, *m3 = NULL;
  scan_cal(&cal);
  static const pascal_scan_key keys[] = {{1, PASCAL_PATH_TMA, 2, 4}, {2, PASCAL_PATH_SYNC, 0, 7}};
  for (size_t i = 0; i < 2; i++)
    for (uint32_t W = 1; W <= 64; W *= 8) {
      pascal_scan_run r = {.key = keys[i], .N = 4096, .W = W, .fill_bytes = 1e9};
      CHECK_INT(pascal_calibration_append_heldout_scan(&cal, &r, NULL), PASCAL_OK);
    }
  time_scan_runs(cal.heldout_scan_runs, cal.n_heldout_scan_runs, 1.3);
  CHECK_INT(pascal_calibration_copy(&twice, &cal, NULL), PASCAL_OK);
  CHECK_INT(pascal_calibration_copy(&slow, &cal, NULL), PASCAL_OK);
  for (size_t i = 0; i < twice.n_heldout_scan_runs; i++)
    twice.heldout_scan_runs[i].kernel_ns *= 2;
  for (size_t i = 0; i < slow.n_scan_runs; i++)
    slow.scan_runs[i].kernel_ns *= 2;
  CHECK_INT(pascal_model_fit(&cal, &m1, NULL), PASCAL_OK);
  CHECK_INT(pascal_model_fit(&twice, &m2, NULL), PASCAL_OK);
  CHECK_INT(pascal_model_fit(&slow, &m3, NULL), PASCAL_OK);
  for (size_t i = 0; i < cal.n_heldout_scan_runs; i++) {
    const pascal_scan_run *r = &cal.heldout_scan_runs[i];
    pascal_time a, b, c;
    CHECK_INT(pascal_time_scan(m1, &r->key, r->N, r->W, r->fill_bytes, &a, NULL), PASCAL_OK);
    CHECK_INT(pascal_time_scan(m2, &r->key, r->N, r->W, r->fill_bytes, &b, NULL), PASCAL_OK);
    CHECK_INT(pascal_time_scan(m3, &r->key, r->N, r->W, r->fill_bytes, &c, NULL), PASCAL_OK);
    CHECK(a.time_s == b.time_s && a.step_s == b.step_s && a.fixed_s == b.fixed_s &&
          a.bound == b.bound && a.rule == b.rule);
    CHECK_NEAR(c.time_s / a.time_s, 2, 1e-9);
  }
  pascal_model_free(m1);
  pascal_model_free(m2);
  pascal_model_free(m3);
  pascal_calibration_free(&cal);
  pascal_calibration_free(&twice);
  pascal_calibration_free(&slow);
}

/* No kernel times: the pipeline on peaks; no peaks: no time at all; one
 * reference without times: no calibrated time. */
static void test_sources(void)
{
  pascal_calibration cal;
  pascal_model *m = NULL;
  scan_cal(&cal);
  cal.scan_runs[5].has_kernel_ns = false; /* W = 4 of a reference: still timed */
  CHECK_INT(pascal_model_fit(&cal, &m, NULL), PASCAL_OK);
  CHECK(pascal_model_time_calibrated(m));
  pascal_model_free(m);
  for (size_t i = 4; i < 8; i++) /* every horizon of the second reference */
    cal.scan_runs[i].has_kernel_ns = false;
  CHECK_INT(pascal_model_fit(&cal, &m, NULL), PASCAL_OK);
  CHECK(!pascal_model_time_calibrated(m));
  pascal_scan_key k = {1, PASCAL_PATH_TMA, 2, 8};
  pascal_time t;
  pascal_latency lat;
  pascal_error err;
  CHECK_INT(pascal_time_scan(m, &k, 3072, 16, 5e8, &t, NULL), PASCAL_OK);
  CHECK_INT(pascal_predict_time_scan(m, &k, 3072, 16, 5e8, &lat, NULL, NULL), PASCAL_OK);
  CHECK_INT(t.source, PASCAL_TIME_PEAKS);
  CHECK(t.time_s == lat.time_s && t.bound == lat.bound);
  CHECK_INT(pascal_time_scan_from(m, PASCAL_TIME_CALIBRATED, &k, 3072, 16, 5e8, &t, &err),
            PASCAL_ENOTFOUND);
  CHECK(strcmp(err.field, "time") == 0);
  pascal_model_free(m);
  cal.device.has_peaks = 0;
  CHECK_INT(pascal_model_fit(&cal, &m, NULL), PASCAL_OK);
  CHECK_INT(pascal_time_scan(m, &k, 3072, 16, 5e8, &t, &err), PASCAL_ENOTFOUND);
  CHECK(strcmp(err.field, "peaks") == 0);
  pascal_model_free(m);
  pascal_calibration_free(&cal);
}

/* Degenerate timings: a reference timed at one horizon is explained by its
 * cost alone; kernel times flat in W (no cost per block) give no
 * calibrated time, never a vanishing cost. */
static void test_degenerate(void)
{
  pascal_calibration cal;
  pascal_model *m = NULL;
  scan_cal(&cal);
  for (size_t i = 0; i < cal.n_scan_runs; i++)
    cal.scan_runs[i].has_kernel_ns = cal.scan_runs[i].W == 16;
  CHECK_INT(pascal_model_fit(&cal, &m, NULL), PASCAL_OK);
  CHECK(pascal_model_time_calibrated(m));
  double cost, fixed;
  pascal_curve_view v;
  CHECK_INT(pascal_model_curve(m, 0, &v, NULL), PASCAL_OK);
  CHECK_INT(pascal_model_time_scan_ref(m, 0, &cost, &fixed, NULL), PASCAL_OK);
  CHECK_NEAR(cost / ((law_fixed(&v.key) + 16.0 * v.N * law_cost(&v.key)) / (16.0 * v.N)), 1, 1e-12);
  CHECK(fixed == 0);
  pascal_model_free(m);
  for (size_t i = 0; i < cal.n_scan_runs; i++) {
    cal.scan_runs[i].has_kernel_ns = true;
    cal.scan_runs[i].kernel_ns = 1000;
  }
  CHECK_INT(pascal_model_fit(&cal, &m, NULL), PASCAL_OK);
  CHECK(!pascal_model_time_calibrated(m));
  pascal_model_free(m);
  pascal_calibration_free(&cal);
}

int main(void)
{
  test_degenerate();
  test_scan_fit();
  test_scan_transfer();
  test_gemm();
  test_panel_never_fitted();
  test_sources();
  CHECK(strcmp(pascal_time_source_name(PASCAL_TIME_CALIBRATED), "calibrated") == 0);
  CHECK(strcmp(pascal_time_source_name(PASCAL_TIME_PEAKS), "peaks") == 0);
  return check_summary();
}
