/*
 * test_predict_time.c - the time of a prediction (pascal/predict_time.h):
 * none without device peaks (ENOTFOUND naming "peaks"); a fractional scan
 * horizon refused naming W; with peaks, a synthetic GEMM model's time is the
 * single-stage pipeline worked by hand for its 128 x 128 x 64 tile, and a
 * scan's is the latency module's scan kernel with max(d, 1) stages.
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "pascal/predict_time.h"
#include "pascal/synth.h"

static const pascal_peaks PEAKS = {273e9, 1.92e12, 6.5536e12, 1e9, 2e-6};

static pascal_model *fit(pascal_workload wl, int with_peaks)
{
  pascal_synth_law law;
  pascal_synth_plan plan;
  pascal_calibration cal;
  pascal_model *m = NULL;
  pascal_synth_law_default(wl, &law);
  pascal_synth_plan_default(wl, &plan);
  CHECK_INT(pascal_synth_calibration(&law, &plan, &cal, NULL), PASCAL_OK);
  cal.device.has_peaks = with_peaks;
  cal.device.peaks = PEAKS;
  CHECK_INT(pascal_model_fit(&cal, &m, NULL), PASCAL_OK);
  pascal_calibration_free(&cal);
  return m;
}

static void test_gemm(void)
{
  pascal_model *none = fit(PASCAL_WORKLOAD_GEMM, 0), *m = fit(PASCAL_WORKLOAD_GEMM, 1);
  pascal_gemm_shape s = {1024, 512, 2048};
  pascal_latency t;
  pascal_error err;
  CHECK_INT(pascal_predict_time_gemm(none, &s, 1e8, &t, NULL, &err), PASCAL_ENOTFOUND);
  CHECK(strcmp(err.field, "peaks") == 0);
  CHECK_INT(pascal_predict_time_gemm(m, &s, 1e8, &t, NULL, NULL), PASCAL_OK);
  /* 32 tiles on 48 SMs: one partial wave, 32 SMs share DRAM and L2; 32
     iterations of load (max(DRAM, L2)) then compute, one store. */
  double dram = 1e8 / (32.0 * 32) / 273e9 * 32, l2 = 64.0 * 256 * 2 / 1.92e12 * 32;
  double comp = 2.0 * 128 * 128 * 64 / 6.5536e12 * 48;
  double store = 128.0 * 128 * 2 / 273e9 * 32;
  CHECK_NEAR(t.time_s, 2e-6 + 32 * (fmax(dram, l2) + comp) + store, 1e-15);
  CHECK_INT(t.full_waves, 0);
  CHECK_INT(t.tail_tiles, 32);
  pascal_model_free(none);
  pascal_model_free(m);
}

static void test_scan(void)
{
  pascal_model *m = fit(PASCAL_WORKLOAD_SCAN, 1);
  pascal_scan_key key = {1, PASCAL_PATH_TMA, 3, 5};
  pascal_latency t, want;
  pascal_pipeline_kernel k;
  pascal_error err;
  CHECK_INT(pascal_predict_time_scan(m, &key, 4096, 16, 3e9, &t, NULL, NULL), PASCAL_OK);
  CHECK_INT(pascal_latency_scan(48, 1, 3, 5, 4096, 16, 16384, 8192, 3e9, &k, NULL), PASCAL_OK);
  CHECK_INT(k.stages, 3);
  CHECK_INT(pascal_latency_time(&PEAKS, &k, &want, NULL), PASCAL_OK);
  CHECK(t.time_s == want.time_s && t.bound == want.bound);
  CHECK_INT(pascal_predict_time_scan(m, &key, 4096, 2.5, 3e9, &t, NULL, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "W") == 0);
  pascal_model_free(m);
}

int main(void)
{
  test_gemm();
  test_scan();
  return check_summary();
}
