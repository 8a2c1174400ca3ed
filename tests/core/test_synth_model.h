/* test_synth_model.h - the default synthetic calibrations of pascal/synth.h
 * (scan: 63 keys x 3 sizes x 4 horizons; GEMM: 120 shapes) and their fitted
 * models, shared by the dynamic-predictor tests. */
#ifndef PASCAL_TEST_SYNTH_MODEL_H
#define PASCAL_TEST_SYNTH_MODEL_H

#include "check.h"
#include "pascal/predict.h"
#include "pascal/synth.h"

/* The default law and plan, each run measured `repeats` times (independent
 * log-normal noise per repeat). The caller frees *cal. */
static inline void test_synth_calibration(pascal_workload workload, uint32_t repeats,
                                          pascal_calibration *cal)
{
  pascal_synth_law law;
  pascal_synth_plan plan;
  pascal_synth_law_default(workload, &law);
  pascal_synth_plan_default(workload, &plan);
  plan.repeats = repeats;
  CHECK_INT(pascal_synth_calibration(&law, &plan, cal, NULL), PASCAL_OK);
}

/* The model of the default calibration (one repeat), or NULL after a failed
 * CHECK. The caller frees it with pascal_model_free(). */
static inline pascal_model *test_synth_model(pascal_workload workload)
{
  pascal_calibration cal;
  pascal_model *md = NULL;
  test_synth_calibration(workload, 1, &cal);
  CHECK_INT(pascal_model_fit(&cal, &md, NULL), PASCAL_OK);
  pascal_calibration_free(&cal);
  return md;
}

#endif
