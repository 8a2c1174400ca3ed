/*
 * svg.h - a small chart model and its SVG writer: two axes (linear or
 * logarithmic) with ticks and labels, any number of named series, each with
 * points (optionally with error bars) and a line, a legend, and an accessible
 * <title>/<desc>. No plotting dependency; the output is standalone SVG 1.1.
 *
 * Every series gets a colour of the Okabe-Ito palette (told apart with colour
 * blindness) and, so that a grey-scale print still separates them, its own
 * marker shape and line dash pattern. In the output each series is one
 * <g class="series" data-series="NAME"> element and has one legend entry, so
 * a reader (or a test) can count the series.
 *
 * Values a logarithmic axis cannot show (<= 0, not finite) are not drawn; the
 * <desc> says how many were left out, so nothing disappears silently.
 */
#ifndef PASCAL_PLOT_SVG_H
#define PASCAL_PLOT_SVG_H

#include <stddef.h>

#include "pascal/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pascal_axis_scale { PASCAL_AXIS_LINEAR = 0, PASCAL_AXIS_LOG = 1 } pascal_axis_scale;

typedef struct pascal_chart_axis {
  char label[96];
  pascal_axis_scale scale;
} pascal_chart_axis;

/* One named series. Points are (px, py) with optional error bar ends
 * (plo, phi; NaN: no bar); the line joins (lx, ly) in order. */
typedef struct pascal_chart_series {
  char name[64];
  size_t n_points, cap_points;
  double *px, *py, *plo, *phi;
  size_t n_line, cap_line;
  double *lx, *ly;
} pascal_chart_series;

typedef struct pascal_chart {
  char title[256];
  char desc[1024];
  pascal_chart_axis x, y;
  pascal_chart_series *series;
  size_t n_series, cap_series;
} pascal_chart;

/* Chart sizes in px (the viewBox; the SVG scales to any width). */
#define PASCAL_CHART_WIDTH    800
#define PASCAL_CHART_HEIGHT   500
/* At most this many ticks on an axis. */
#define PASCAL_AXIS_TICKS_MAX 24

/* An empty chart; owns nothing until series are added. */
void pascal_chart_init(pascal_chart *chart);
void pascal_chart_free(pascal_chart *chart);

/* Add a series named `name` (truncated to 63 bytes); *index receives its
 * position. PASCAL_ENOMEM on allocation failure. */
pascal_status pascal_chart_add_series(pascal_chart *chart, const char *name, size_t *index,
                                      pascal_error *err);
/* Append a point (lo, hi: error bar ends, NaN for none) or a line vertex to
 * series `s`. */
pascal_status pascal_chart_add_point(pascal_chart *chart, size_t s, double x, double y, double lo,
                                     double hi, pascal_error *err);
pascal_status pascal_chart_add_vertex(pascal_chart *chart, size_t s, double x, double y,
                                      pascal_error *err);

/* The ticks of an axis over the data range [lo, hi] (lo <= hi, finite, and
 * > 0 on a log axis). The axis range is widened to the first and last tick:
 * log axes tick every power of ten (every 1, 2, 5 x 10^k when the range
 * spans at most two decades, every 10^(2k) and so on past 12 decades);
 * linear axes tick every 1, 2 or 5 x 10^k, about five ticks. A single value
 * gets the ticks around it. PASCAL_EINVAL naming "lo"/"hi" otherwise. */
pascal_status pascal_axis_ticks(pascal_axis_scale scale, double lo, double hi, double *ticks,
                                size_t *n_ticks, pascal_error *err);

/* Render the chart as an SVG document (NUL-terminated, malloc'd: free()).
 * PASCAL_EINVAL (field "series") when no series has a drawable value. */
pascal_status pascal_chart_svg(const pascal_chart *chart, char **svg, size_t *len,
                               pascal_error *err);

/* Append `text` to `buf` escaped for XML character data and attribute
 * values (& < > " ' as entities; control characters XML forbids become
 * spaces). Exposed for the tests. Returns the bytes `out` needs (without
 * the NUL); writes at most `cap` bytes including the NUL when cap > 0. */
size_t pascal_xml_escape(const char *text, char *out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
