/*
 * evaluate_internal.h - the evaluation (evaluate.c) as the answers'
 * validation (validation.c) needs it: the leave-one-key-out folds and the
 * held-out panel scored for PASCAL and aligned K = 1 only, which is what the
 * expected errors and the family losses read. The GEMM trace baselines,
 * Origami and the bootstrap of a whole report are left out (their fields
 * are NaN), so that loading a frozen calibration costs its folds' fits, not
 * a report.
 */
#ifndef PASCAL_EVALUATE_INTERNAL_H
#define PASCAL_EVALUATE_INTERNAL_H

#include "pascal/evaluate.h"

pascal_status pc_loko_run_validation(const pascal_calibration *cal, pascal_loko_report *out,
                                     pascal_error *err);

#endif
