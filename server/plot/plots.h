/*
 * plots.h - the charts of a calibration (docs/plots.md), drawn with svg.h:
 *
 *  curves      measured K of every run (each repeat) against the horizon W,
 *              log-log, for each key of one scan family (o, path, d) at one
 *              reference size N, with the fitted model's answer at that key
 *              (paper section 4.2, the cumulative traffic curve); GEMM: K
 *              against Kg for each grid (Mg, Ng) of one row Mg;
 *  transfer    K at one (N, W) against the compute work m for a family: the
 *              reference keys (geometric mean of the repeats, bars from the
 *              least to the largest), the value the transfer rules give for
 *              every integer m, one line per execution class (section 4.3,
 *              Eq. graph), and the held-out keys when the calibration has a
 *              panel; GEMM: K at one Kg against Ng along a row Mg;
 *  evaluation  the per-key error of PASCAL (leave-one-key-out folds) and of
 *              each baseline, keys sorted by PASCAL's error, each method's
 *              markers offset around the rank so equal errors stay visible,
 *              with the repeat-to-repeat noise floor (section 4.4);
 *  heldout     the same for the held-out panel's keys, on its own axis
 *              (PASCAL_ENOTFOUND naming "heldout" without a panel);
 *  capacity    the device's capacity probe (pascal/device_data.h, section
 *              5.1): fill over scanned bytes against the scanned size, with
 *              the chosen C and the probe's tolerance;
 *  static      the device's static cluster experiment (section 5.2):
 *              measured against predicted K of each row for the gap law,
 *              exact SDCM and Che, with the diagonal.
 *  A bundle whose device lacks the data answers PASCAL_ENOTFOUND naming
 *  "device.capacity_probe" or "device.static_experiment".
 */
#ifndef PASCAL_PLOT_PLOTS_H
#define PASCAL_PLOT_PLOTS_H

#include <stddef.h>
#include <stdint.h>

#include "pascal/calibration.h"
#include "pascal/error.h"
#include "pascal/predict.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pascal_plot_kind {
  PASCAL_PLOT_CURVES = 0,
  PASCAL_PLOT_TRANSFER,
  PASCAL_PLOT_EVALUATION,
  PASCAL_PLOT_CAPACITY,
  PASCAL_PLOT_STATIC,
  PASCAL_PLOT_HELDOUT, /* the evaluation of the held-out panel's keys */
  PASCAL_PLOT_KIND_COUNT
} pascal_plot_kind;

/* PASCAL_EINVAL naming "kind" (listing the kinds) for an unknown name. */
pascal_status pascal_plot_kind_parse(const char *name, pascal_plot_kind *out, pascal_error *err);

/* What to draw. has_family 0: scan, the family of the run with the largest
 * measured K (the first such run; where divergence shows); GEMM, the lowest
 * row Mg. N, W (scan) and Kg (GEMM transfer)
 * 0: the largest reference value of the family. */
typedef struct pascal_plot_request {
  pascal_plot_kind kind;
  int has_family;
  uint32_t o, d; /* scan family */
  pascal_path path;
  uint32_t Mg; /* GEMM row */
  uint32_t N;
  double W;
  uint32_t Kg;
} pascal_plot_request;

/* A request for `kind` with every choice left to its default. */
void pascal_plot_request_init(pascal_plot_request *req, pascal_plot_kind kind);

/* Parse the family: scan "o,path,d" ("2,tma,3"), GEMM "Mg". PASCAL_EINVAL
 * naming "family" for malformed text. */
pascal_status pascal_plot_family_parse(const char *text, pascal_workload workload,
                                       pascal_plot_request *req, pascal_error *err);

/* Draw `req` for a calibration and its fitted model; *svg is malloc'd.
 * Errors: PASCAL_ENOTFOUND naming "family", "N", "W" or "Kg" when the
 * calibration has no such runs, or "device.capacity_probe" /
 * "device.static_experiment" when its device lacks the data of the kind;
 * PASCAL_EINVAL for a parameter that does not apply to the workload. */
pascal_status pascal_plot_render(const pascal_calibration *cal, const pascal_model *model,
                                 const pascal_plot_request *req, char **svg, size_t *len,
                                 pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif
