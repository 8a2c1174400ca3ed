/*
 * residency.h - the capacity probe's share of a scan refetched between C
 * and a calibration's smallest size (residency.c), for the prediction
 * (predict_scan.c) and its interval (interval.c).
 */
#ifndef PASCAL_RESIDENCY_H
#define PASCAL_RESIDENCY_H

#include <stdint.h>

#include "pascal/predict.h"

/* The probe's reading of a scan at N, horizon W, whose curves answer
 * K_refetching, on dev with smallest calibrated size N_min
 * (pascal_scan_residency): out->read false where it does not apply. */
void pc_scan_residency(const pascal_device *dev, uint32_t N_min, uint32_t N, double W,
                       double K_refetching, pascal_scan_residency *out);

/* K with a share `refetch` of each later pass refetched: the first pass's
 * 1/W plus that share of what the curves' K_refetching adds to it. */
double pc_residency_K(double refetch, double K_refetching, double W);

/* Bounds *lo <= 0 <= *hi of the curves' K (log-ratios to res->K_refetching)
 * carried through the bracket's two shares at horizon W, as log-ratios to
 * the answer's K. */
void pc_residency_bounds(const pascal_scan_residency *res, double W, double K, double *lo,
                         double *hi);

/* Where the bracket moves a scan's fills, its time interval [*t_low,
 * *t_high] (around its time t at the answer's fills) reaches the times of
 * the fills' bounds, each with the interval's own spread: the calibrated or
 * peaks time of the model at N, W (unchanged where that time is refused). */
void pc_residency_time_bounds(const pascal_model *model, const pascal_scan_key *key, uint32_t N,
                              double W, double t, double fill_low, double fill_high, double *t_low,
                              double *t_high);

#endif
