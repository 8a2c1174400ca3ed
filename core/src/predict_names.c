/*
 * predict_names.c - the names of the enumerations of pascal/predict.h as
 * they appear in prediction documents (docs/cli.md, api-spec/openapi.yaml).
 */
#include "pascal/predict.h"

const char *pascal_rule_name(pascal_rule rule)
{
  switch (rule) {
  case PASCAL_RULE_EXACT: return "exact";
  case PASCAL_RULE_GRAPH: return "graph";
  case PASCAL_RULE_CLAMP: return "clamp";
  case PASCAL_RULE_DEPTH_FALLBACK: return "depth-fallback";
  case PASCAL_RULE_RESIDENT: return "resident";
  }
  return "unknown";
}

const char *pascal_coordinate_name(pascal_coordinate c)
{
  switch (c) {
  case PASCAL_COORD_N: return "N";
  case PASCAL_COORD_W: return "W";
  case PASCAL_COORD_M: return "m";
  case PASCAL_COORD_D: return "d";
  case PASCAL_COORD_N_R: return "n_r";
  case PASCAL_COORD_N_C: return "n_c";
  case PASCAL_COORD_N_K: return "n_k";
  }
  return "unknown";
}

const char *pascal_extrapolation_action_name(pascal_extrapolation_action a)
{
  switch (a) {
  case PASCAL_EXTRAP_HELD: return "held-at-end";
  case PASCAL_EXTRAP_LINEAR: return "linear";
  case PASCAL_EXTRAP_SAME_SLOT: return "same-blocks-per-slot";
  case PASCAL_EXTRAP_STATIC_RATIO: return "static-ratio";
  case PASCAL_EXTRAP_CLAMPED: break;
  }
  return "clamped";
}

const char *pascal_transfer_kind_name(pascal_transfer_kind kind)
{
  switch (kind) {
  case PASCAL_TRANSFER_EXTRAP: return "extrapolated";
  case PASCAL_TRANSFER_ONE_PASS: return "interpolated-from-one-pass";
  case PASCAL_TRANSFER_INTERP: break;
  }
  return "interpolated";
}

const char *pascal_error_source_name(pascal_error_source s)
{
  switch (s) {
  case PASCAL_ERRSRC_NONE: return "none";
  case PASCAL_ERRSRC_LOKO: return "loko";
  case PASCAL_ERRSRC_IN_SAMPLE: return "in-sample";
  case PASCAL_ERRSRC_HELD_OUT: return "held-out";
  case PASCAL_ERRSRC_INTERVAL: return "interval";
  case PASCAL_ERRSRC_RESIDENCY: return "residency";
  }
  return "unknown";
}
