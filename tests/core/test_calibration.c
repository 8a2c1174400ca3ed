/*
 * test_calibration.c - the calibration data model: validated appends whose
 * errors name the run and field, duplicates, deep copy, the class rule
 * chi(m) = min(m mod 4, 2), device/tiling checks and the name parsers.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "pascal/calibration.h"
#include "pascal/predict.h"
#include "test_device.h"

static pascal_calibration scan_cal(void)
{
  pascal_calibration cal;
  test_device_calibration(&cal, PASCAL_WORKLOAD_SCAN, "gb10");
  return cal;
}

static void expect_field(pascal_status st, const pascal_error *err, const char *field)
{
  CHECK_INT(st, PASCAL_EINVAL);
  CHECK(strcmp(err->field, field) == 0);
  CHECK(err->message[0] != '\0');
}

static void scan_appends(void)
{
  pascal_calibration cal = scan_cal();
  pascal_error err;
  pascal_scan_run r = {.key = {1, PASCAL_PATH_TMA, 4, 8}, .N = 4096, .W = 16, .fill_bytes = 1e9};
  CHECK_INT(pascal_calibration_check(&cal, &err), PASCAL_OK);
  CHECK_INT(pascal_calibration_append_scan(&cal, &r, &err), PASCAL_OK);
  r.W = 64;
  CHECK_INT(pascal_calibration_append_scan(&cal, &r, &err), PASCAL_OK);
  CHECK_INT(pascal_calibration_run_count(&cal), 2);

  pascal_scan_run bad = r;
  bad.W = 1;
  bad.fill_bytes = 0;
  expect_field(pascal_calibration_append_scan(&cal, &bad, &err), &err,
               "measurements[2].fill_bytes");
  bad.fill_bytes = -1;
  expect_field(pascal_calibration_append_scan(&cal, &bad, &err), &err,
               "measurements[2].fill_bytes");
  bad.fill_bytes = INFINITY;
  expect_field(pascal_calibration_append_scan(&cal, &bad, &err), &err,
               "measurements[2].fill_bytes");
  bad.fill_bytes = NAN;
  expect_field(pascal_calibration_append_scan(&cal, &bad, &err), &err,
               "measurements[2].fill_bytes");
  bad = r;
  bad.W = 1;
  bad.has_kernel_ns = true;
  bad.kernel_ns = -3;
  expect_field(pascal_calibration_append_scan(&cal, &bad, &err), &err, "measurements[2].kernel_ns");
  bad = r;
  bad.key.path = PASCAL_PATH_SYNC; /* d = 4 with sync */
  expect_field(pascal_calibration_append_scan(&cal, &bad, &err), &err, "measurements[2].d");
  bad = r;
  bad.key.o = 0;
  expect_field(pascal_calibration_append_scan(&cal, &bad, &err), &err, "measurements[2].o");
  bad = r;
  bad.key.path = (pascal_path)7;
  expect_field(pascal_calibration_append_scan(&cal, &bad, &err), &err, "measurements[2].path");
  bad = r;
  bad.N = 0;
  expect_field(pascal_calibration_append_scan(&cal, &bad, &err), &err, "measurements[2].N");
  bad = r;
  bad.W = 0;
  expect_field(pascal_calibration_append_scan(&cal, &bad, &err), &err, "measurements[2].W");
  /* Duplicate: same configuration and (absent = 0) repeat. */
  bad = r;
  bad.has_repeat = true;
  bad.repeat = 0;
  expect_field(pascal_calibration_append_scan(&cal, &bad, &err), &err, "measurements[2]");
  CHECK(strstr(err.message, "measurements[1]") != NULL);
  /* A second repeat is not a duplicate. */
  bad.repeat = 1;
  CHECK_INT(pascal_calibration_append_scan(&cal, &bad, &err), PASCAL_OK);
  CHECK_INT(cal.n_scan_runs, 3);

  /* Wrong workload. */
  pascal_gemm_run g = {.shape = {128, 128, 64}, .fill_bytes = 1};
  expect_field(pascal_calibration_append_gemm(&cal, &g, &err), &err, "workload");

  /* Deep copy is independent. */
  pascal_calibration copy;
  CHECK_INT(pascal_calibration_copy(&copy, &cal, &err), PASCAL_OK);
  CHECK_INT(copy.n_scan_runs, 3);
  CHECK(copy.scan_runs != cal.scan_runs);
  CHECK(copy.scan_runs[2].repeat == 1);
  pascal_calibration_free(&copy);

  /* Runs edited in place are caught by check_runs and by the fit. */
  cal.scan_runs[1].fill_bytes = -5;
  expect_field(pascal_calibration_check_runs(&cal, &err), &err, "measurements[1].fill_bytes");
  pascal_model *model = NULL;
  expect_field(pascal_model_fit(&cal, &model, &err), &err, "measurements[1].fill_bytes");
  CHECK(model == NULL);
  cal.scan_runs[1].fill_bytes = 5;
  cal.scan_runs[2].W = 0;
  expect_field(pascal_model_fit(&cal, &model, &err), &err, "measurements[2].W");
  cal.scan_runs[2].W = 3;
  CHECK_INT(pascal_model_fit(&cal, &model, &err), PASCAL_OK);
  pascal_model_free(model);
  pascal_calibration_free(&cal);
  CHECK_INT(cal.n_scan_runs, 0);
  expect_field(pascal_model_fit(&cal, &model, &err), &err, "measurements"); /* empty */
  pascal_calibration_free(&cal);                                            /* twice is safe */
}

static void gemm_appends(void)
{
  pascal_calibration cal = scan_cal();
  pascal_error err;
  test_device_calibration(&cal, PASCAL_WORKLOAD_GEMM, "gb10");
  expect_field(pascal_calibration_check(&cal, &err), &err, "gemm.resident_ctas");
  cal.gemm.resident_ctas = 48;
  CHECK_INT(pascal_calibration_check(&cal, &err), PASCAL_OK);
  pascal_gemm_run g = {.shape = {1280, 1280, 2560}, .fill_bytes = 2e8};
  CHECK_INT(pascal_calibration_append_gemm(&cal, &g, &err), PASCAL_OK);
  pascal_gemm_run bad = g;
  bad.shape.Kg = 1000;
  expect_field(pascal_calibration_append_gemm(&cal, &bad, &err), &err, "measurements[1].Kg");
  CHECK(strstr(err.message, "not a multiple of tile_k (64)") != NULL);
  bad = g;
  bad.shape.Mg = 0;
  expect_field(pascal_calibration_append_gemm(&cal, &bad, &err), &err, "measurements[1].Mg");
  bad = g;
  bad.shape.Ng = 130;
  expect_field(pascal_calibration_append_gemm(&cal, &bad, &err), &err, "measurements[1].Ng");
  bad = g;
  bad.fill_bytes = 0;
  expect_field(pascal_calibration_append_gemm(&cal, &bad, &err), &err,
               "measurements[1].fill_bytes");
  expect_field(pascal_calibration_append_gemm(&cal, &g, &err), &err, "measurements[1]");
  pascal_calibration_free(&cal);
}

static void device_checks(void)
{
  pascal_calibration cal = scan_cal();
  pascal_error err;
  cal.device.capacity_blocks = 0;
  expect_field(pascal_calibration_check(&cal, &err), &err, "device.capacity_blocks");
  cal = scan_cal();
  cal.device.name[0] = '\0';
  expect_field(pascal_calibration_check(&cal, &err), &err, "device.name");
  cal = scan_cal();
  cal.device.block_bytes = 0;
  expect_field(pascal_calibration_check(&cal, &err), &err, "device.block_bytes");
  cal = scan_cal();
  cal.device.sm_count = 0;
  expect_field(pascal_calibration_check(&cal, &err), &err, "device.sm_count");
}

static void class_rule_and_names(void)
{
  pascal_calibration cal = scan_cal();
  const unsigned want[] = {0, 1, 2, 2, 0, 1, 2, 2, 0};
  for (uint32_t m = 0; m < 9; m++)
    CHECK_INT(pascal_calibration_class(&cal, m), want[m]);
  CHECK_INT(pascal_calibration_class(&cal, 4000000001u), 1);
  pascal_error err;
  pascal_path p;
  pascal_workload w;
  pascal_class_rule r;
  CHECK_INT(pascal_path_parse("tma", "path", &p, &err), PASCAL_OK);
  CHECK_INT(p, PASCAL_PATH_TMA);
  CHECK_INT(pascal_path_parse("TMA", "measurements[3].path", &p, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "measurements[3].path") == 0);
  CHECK_INT(pascal_workload_parse("gemm", "workload", &w, &err), PASCAL_OK);
  CHECK_INT(w, PASCAL_WORKLOAD_GEMM);
  CHECK_INT(pascal_workload_parse("conv", "workload", &w, &err), PASCAL_EINVAL);
  CHECK_INT(pascal_class_rule_parse("mod4-min2", "class_rule", &r, &err), PASCAL_OK);
  CHECK_INT(pascal_class_rule_parse("mod8", "class_rule", &r, &err), PASCAL_EINVAL);
  CHECK(strcmp(pascal_path_name(PASCAL_PATH_SYNC), "sync") == 0);
  CHECK(strcmp(pascal_workload_name(PASCAL_WORKLOAD_SCAN), "scan") == 0);
  CHECK(strcmp(pascal_class_rule_name(PASCAL_CLASS_MOD4_MIN2), "mod4-min2") == 0);
}

int main(void)
{
  scan_appends();
  gemm_appends();
  device_checks();
  class_rule_and_names();
  return check_summary();
}
