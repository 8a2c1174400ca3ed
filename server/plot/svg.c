/*
 * svg.c - the chart model of svg.h and its SVG writer: tick placement on
 * linear and logarithmic axes, XML escaping, markers, error bars, lines and
 * the legend.
 */
#include "svg.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pascal/grow.h"

/* Plot area inside the viewBox: room for the title above, tick labels and
 * the axis label left and below, the legend on the right. */
#define AREA_LEFT   78.0
#define AREA_TOP    48.0
#define AREA_RIGHT  (PASCAL_CHART_WIDTH - 200.0)
#define AREA_BOTTOM (PASCAL_CHART_HEIGHT - 58.0)

/* The Okabe-Ito colours; from the ninth series on they repeat, while the
 * marker shape (7) and the dash pattern (4) still tell series apart. */
static const char *const palette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                      "#E69F00", "#56B4E9", "#000000", "#F0E442"};
#define N_COLOURS (sizeof palette / sizeof *palette)
/* Dash patterns of lines: grey-scale prints tell series apart by these and
 * by the marker shapes below. */
static const char *const dashes[] = {"", "6 3", "2 3", "8 3 2 3"};
#define N_DASHES            (sizeof dashes / sizeof *dashes)
#define N_MARKERS           7u
/* Markers are filled see-through with a solid outline in the series colour,
 * so that a marker drawn over another of the same place (two methods with
 * the same error) leaves the outline of the one below visible. */
#define MARKER_FILL_OPACITY "0.55"

/* ---- the chart model ---------------------------------------------------- */

void pascal_chart_init(pascal_chart *chart)
{
  memset(chart, 0, sizeof *chart);
}

void pascal_chart_free(pascal_chart *chart)
{
  for (size_t i = 0; i < chart->n_series; i++) {
    pascal_chart_series *s = &chart->series[i];
    free(s->px);
    free(s->py);
    free(s->plo);
    free(s->phi);
    free(s->lx);
    free(s->ly);
  }
  free(chart->series);
  pascal_chart_init(chart);
}

static pascal_status oom(pascal_error *err)
{
  return pascal_error_set(err, PASCAL_ENOMEM, "", "out of memory building a chart");
}

pascal_status pascal_chart_add_series(pascal_chart *chart, const char *name, size_t *index,
                                      pascal_error *err)
{
  if (pascal_grow((void **)&chart->series, &chart->cap_series, chart->n_series + 1,
                  sizeof *chart->series))
    return oom(err);
  pascal_chart_series *s = &chart->series[chart->n_series];
  memset(s, 0, sizeof *s);
  snprintf(s->name, sizeof s->name, "%s", name);
  *index = chart->n_series++;
  return PASCAL_OK;
}

/* Grow the `n_arrays` parallel arrays of one list (capacity *cap) to hold
 * n + 1 entries. Each array is grown with its own copy of the capacity;
 * *cap changes only once all of them have grown, so after a failure the
 * arrays already grown are merely larger than *cap says. */
static int grow(double **arrays[], size_t n_arrays, size_t n, size_t *cap)
{
  size_t want = *cap;
  for (size_t i = 0; i < n_arrays; i++) {
    want = *cap;
    if (pascal_grow((void **)arrays[i], &want, n + 1, sizeof **arrays[i]))
      return -1;
  }
  *cap = want;
  return 0;
}

pascal_status pascal_chart_add_point(pascal_chart *chart, size_t s, double x, double y, double lo,
                                     double hi, pascal_error *err)
{
  pascal_chart_series *c = &chart->series[s];
  double **arrays[] = {&c->px, &c->py, &c->plo, &c->phi};
  if (grow(arrays, 4, c->n_points, &c->cap_points))
    return oom(err);
  c->px[c->n_points] = x;
  c->py[c->n_points] = y;
  c->plo[c->n_points] = lo;
  c->phi[c->n_points] = hi;
  c->n_points++;
  return PASCAL_OK;
}

pascal_status pascal_chart_add_vertex(pascal_chart *chart, size_t s, double x, double y,
                                      pascal_error *err)
{
  pascal_chart_series *c = &chart->series[s];
  double **arrays[] = {&c->lx, &c->ly};
  if (grow(arrays, 2, c->n_line, &c->cap_line))
    return oom(err);
  c->lx[c->n_line] = x;
  c->ly[c->n_line] = y;
  c->n_line++;
  return PASCAL_OK;
}

/* ---- ticks ---------------------------------------------------------------- */

/* Linear: the step 1, 2 or 5 x 10^k that gives about five intervals. */
static double nice_step(double span)
{
  double raw = span / 5.0;
  double mag = pow(10.0, floor(log10(raw)));
  double f = raw / mag;
  return (f < 1.5 ? 1.0 : f < 3.5 ? 2.0 : f < 7.5 ? 5.0 : 10.0) * mag;
}

pascal_status pascal_axis_ticks(pascal_axis_scale scale, double lo, double hi, double *ticks,
                                size_t *n_ticks, pascal_error *err)
{
  if (!isfinite(lo) || (scale == PASCAL_AXIS_LOG && lo <= 0))
    return pascal_error_set(err, PASCAL_EINVAL, "lo", "axis range starts at %g", lo);
  if (!isfinite(hi) || hi < lo)
    return pascal_error_set(err, PASCAL_EINVAL, "hi", "axis range ends at %g (starts at %g)", hi,
                            lo);
  size_t n = 0;
  if (scale == PASCAL_AXIS_LOG) {
    /* A small relative slack keeps exact powers of ten (1000 is
     * 10^2.9999999999999996 in floating point) on their own decade. */
    int k0 = (int)floor(log10(lo) + 1e-9), k1 = (int)ceil(log10(hi) - 1e-9);
    if (k1 == k0)
      k1++;
    int decades = k1 - k0;
    if (decades <= 2) {
      static const double mult[] = {1, 2, 5};
      for (int k = k0; k < k1; k++)
        for (size_t j = 0; j < 3; j++)
          ticks[n++] = mult[j] * pow(10.0, k);
      ticks[n++] = pow(10.0, k1);
    } else {
      int every = (decades + 11) / 12;      /* at most 12 intervals */
      k0 -= ((k0 % every) + every) % every; /* start on a multiple of `every` */
      for (int k = k0; k < k1 + every && n < PASCAL_AXIS_TICKS_MAX; k += every) {
        ticks[n++] = pow(10.0, k);
        if (k >= k1)
          break;
      }
    }
  } else {
    double span = hi - lo;
    if (span == 0)
      span = lo != 0 ? fabs(lo) : 1.0;
    double step = nice_step(span);
    double first = floor(lo / step + 1e-9) * step, last = ceil(hi / step - 1e-9) * step;
    if (last <= first)
      last = first + step;
    for (double t = first; t <= last + step / 2 && n < PASCAL_AXIS_TICKS_MAX; t += step)
      ticks[n++] = fabs(t) < step * 1e-9 ? 0.0 : t;
  }
  *n_ticks = n;
  return PASCAL_OK;
}

/* ---- escaping -------------------------------------------------------------- */

size_t pascal_xml_escape(const char *text, char *out, size_t cap)
{
  size_t need = 0;
  for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
    const char *rep = NULL;
    char one[2] = {(char)*p, '\0'};
    switch (*p) {
    case '&': rep = "&amp;"; break;
    case '<': rep = "&lt;"; break;
    case '>': rep = "&gt;"; break;
    case '"': rep = "&quot;"; break;
    case '\'': rep = "&apos;"; break;
    default:
      if (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r')
        one[0] = ' ';
      rep = one;
    }
    size_t l = strlen(rep);
    if (cap && need + l < cap)
      memcpy(out + need, rep, l);
    need += l;
  }
  if (cap)
    out[need < cap ? need : cap - 1] = '\0';
  return need;
}

/* ---- the writer ------------------------------------------------------------- */

typedef struct svgbuf {
  char *p;
  size_t len, cap;
  int failed;
} svgbuf;

static void put(svgbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(svgbuf *b, const char *fmt, ...)
{
  if (b->failed)
    return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
    va_end(ap);
    if (w < 0) {
      b->failed = 1;
      return;
    }
    if (b->p && (size_t)w < b->cap - b->len) {
      b->len += (size_t)w;
      return;
    }
    if (pascal_grow((void **)&b->p, &b->cap, b->len + (size_t)w + 1, 1)) {
      b->failed = 1;
      return;
    }
  }
}

/* Append escaped text. */
static void put_text(svgbuf *b, const char *text)
{
  size_t need = pascal_xml_escape(text, NULL, 0);
  char small[512];
  char *tmp = need < sizeof small ? small : malloc(need + 1);
  if (!tmp) {
    b->failed = 1;
    return;
  }
  pascal_xml_escape(text, tmp, need + 1);
  put(b, "%s", tmp);
  if (tmp != small)
    free(tmp);
}

/* Maps data values to plot-area pixels along one axis. */
typedef struct axis_map {
  pascal_axis_scale scale;
  double lo, hi; /* axis range (first and last tick), transformed */
  double p0, p1; /* pixel positions of lo and hi                  */
  double ticks[PASCAL_AXIS_TICKS_MAX];
  size_t n_ticks;
} axis_map;

static int drawable(pascal_axis_scale scale, double v)
{
  return isfinite(v) && (scale == PASCAL_AXIS_LINEAR || v > 0);
}

static double tf(pascal_axis_scale scale, double v)
{
  return scale == PASCAL_AXIS_LOG ? log10(v) : v;
}

static double to_px(const axis_map *a, double v)
{
  return a->p0 + (tf(a->scale, v) - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

/* Range of the drawable values of one coordinate over all series, error bar
 * ends included for y. Counts the values left out in *dropped. */
static int data_range(const pascal_chart *c, int y, double *lo, double *hi, size_t *dropped)
{
  pascal_axis_scale scale = y ? c->y.scale : c->x.scale;
  int any = 0;
  *lo = INFINITY;
  *hi = -INFINITY;
  for (size_t i = 0; i < c->n_series; i++) {
    const pascal_chart_series *s = &c->series[i];
    for (size_t j = 0; j < s->n_points + s->n_line; j++) {
      int pt = j < s->n_points;
      size_t k = pt ? j : j - s->n_points;
      double v[3] = {pt ? (y ? s->py[k] : s->px[k]) : (y ? s->ly[k] : s->lx[k]),
                     pt && y ? s->plo[k] : NAN, pt && y ? s->phi[k] : NAN};
      for (size_t t = 0; t < 3; t++) {
        if (t > 0 && isnan(v[t]))
          continue;
        if (!drawable(scale, v[t])) {
          if (t == 0)
            (*dropped)++;
          continue;
        }
        any = 1;
        *lo = fmin(*lo, v[t]);
        *hi = fmax(*hi, v[t]);
      }
    }
  }
  return any;
}

static pascal_status axis_setup(const pascal_chart *c, int y, axis_map *a, size_t *dropped,
                                pascal_error *err)
{
  double lo, hi;
  a->scale = y ? c->y.scale : c->x.scale;
  if (!data_range(c, y, &lo, &hi, dropped))
    return pascal_error_set(err, PASCAL_EINVAL, "series", "the chart has no value to draw");
  pascal_status st = pascal_axis_ticks(a->scale, lo, hi, a->ticks, &a->n_ticks, err);
  if (st)
    return st;
  a->lo = tf(a->scale, a->ticks[0]);
  a->hi = tf(a->scale, a->ticks[a->n_ticks - 1]);
  if (a->hi <= a->lo)
    a->hi = a->lo + 1;
  a->p0 = y ? AREA_BOTTOM : AREA_LEFT;
  a->p1 = y ? AREA_TOP : AREA_RIGHT;
  return PASCAL_OK;
}

/* A marker of shape `shape` centred at (x, y). */
static void put_marker(svgbuf *b, unsigned shape, double x, double y)
{
  const double r = 4.5;
  switch (shape % N_MARKERS) {
  case 0: put(b, "<circle class=\"marker\" cx=\"%.2f\" cy=\"%.2f\" r=\"%.1f\"/>", x, y, r); break;
  case 1:
    put(b, "<rect class=\"marker\" x=\"%.2f\" y=\"%.2f\" width=\"%.1f\" height=\"%.1f\"/>", x - r,
        y - r, 2 * r, 2 * r);
    break;
  case 2:
    put(b, "<path class=\"marker\" d=\"M%.2f %.2fL%.2f %.2fL%.2f %.2fZ\"/>", x, y - r - 1,
        x + r + 0.5, y + r, x - r - 0.5, y + r);
    break;
  case 3:
    put(b, "<path class=\"marker\" d=\"M%.2f %.2fL%.2f %.2fL%.2f %.2fL%.2f %.2fZ\"/>", x, y - r - 1,
        x + r + 1, y, x, y + r + 1, x - r - 1, y);
    break;
  case 4:
    put(b, "<path class=\"marker\" d=\"M%.2f %.2fL%.2f %.2fL%.2f %.2fZ\"/>", x, y + r + 1,
        x + r + 0.5, y - r, x - r - 0.5, y - r);
    break;
  case 5: /* x: stroked, not filled */
    put(b,
        "<path class=\"marker\" fill=\"none\" stroke-width=\"2\" "
        "d=\"M%.2f %.2fL%.2f %.2fM%.2f %.2fL%.2f %.2f\"/>",
        x - r, y - r, x + r, y + r, x - r, y + r, x + r, y - r);
    break;
  default: /* open circle */
    put(b,
        "<circle class=\"marker\" fill=\"white\" stroke-width=\"2\" cx=\"%.2f\" cy=\"%.2f\" "
        "r=\"%.1f\"/>",
        x, y, r);
  }
}

static void put_axes(svgbuf *b, const pascal_chart *c, const axis_map *ax, const axis_map *ay)
{
  put(b, "<g class=\"axes\" font-size=\"12\" fill=\"#222\">\n");
  put(b,
      "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
      "stroke=\"#444\"/>\n",
      AREA_LEFT, AREA_TOP, AREA_RIGHT - AREA_LEFT, AREA_BOTTOM - AREA_TOP);
  for (int y = 0; y < 2; y++) {
    const axis_map *a = y ? ay : ax;
    for (size_t i = 0; i < a->n_ticks; i++) {
      double p = to_px(a, a->ticks[i]);
      char label[32];
      snprintf(label, sizeof label, "%g", a->ticks[i]);
      if (y)
        put(b,
            "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.2f\" y2=\"%.2f\" "
            "stroke=\"#ddd\"/><text class=\"tick\" x=\"%.1f\" y=\"%.2f\" "
            "text-anchor=\"end\" dominant-baseline=\"middle\">%s</text>\n",
            AREA_LEFT, AREA_RIGHT, p, p, AREA_LEFT - 6, p, label);
      else
        put(b,
            "<line class=\"grid\" x1=\"%.2f\" x2=\"%.2f\" y1=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"#ddd\"/><text class=\"tick\" x=\"%.2f\" y=\"%.1f\" "
            "text-anchor=\"middle\">%s</text>\n",
            p, p, AREA_TOP, AREA_BOTTOM, p, AREA_BOTTOM + 18, label);
    }
  }
  put(b,
      "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
      "font-size=\"14\">",
      (AREA_LEFT + AREA_RIGHT) / 2, AREA_BOTTOM + 42);
  put_text(b, c->x.label);
  put(b,
      "</text>\n<text class=\"label\" transform=\"translate(20 %.1f) rotate(-90)\" "
      "text-anchor=\"middle\" font-size=\"14\">",
      (AREA_TOP + AREA_BOTTOM) / 2);
  put_text(b, c->y.label);
  put(b, "</text>\n</g>\n");
}

static void put_series(svgbuf *b, const pascal_chart *c, size_t i, const axis_map *ax,
                       const axis_map *ay)
{
  const pascal_chart_series *s = &c->series[i];
  const char *colour = palette[i % N_COLOURS];
  put(b, "<g class=\"series\" data-series=\"");
  put_text(b, s->name);
  put(b, "\" fill=\"%s\" fill-opacity=\"%s\" stroke=\"%s\">\n<title>", colour, MARKER_FILL_OPACITY,
      colour);
  put_text(b, s->name);
  put(b, "</title>\n");
  if (s->n_line) {
    put(b, "<polyline class=\"line\" fill=\"none\" stroke-width=\"1.8\"%s%s%s points=\"",
        dashes[i % N_DASHES][0] ? " stroke-dasharray=\"" : "", dashes[i % N_DASHES],
        dashes[i % N_DASHES][0] ? "\"" : "");
    for (size_t j = 0; j < s->n_line; j++)
      if (drawable(ax->scale, s->lx[j]) && drawable(ay->scale, s->ly[j]))
        put(b, "%.2f,%.2f ", to_px(ax, s->lx[j]), to_px(ay, s->ly[j]));
    put(b, "\"/>\n");
  }
  for (size_t j = 0; j < s->n_points; j++) {
    if (!drawable(ax->scale, s->px[j]) || !drawable(ay->scale, s->py[j]))
      continue;
    double x = to_px(ax, s->px[j]), y = to_px(ay, s->py[j]);
    if (drawable(ay->scale, s->plo[j]) && drawable(ay->scale, s->phi[j]))
      put(b,
          "<path class=\"errorbar\" fill=\"none\" d=\"M%.2f %.2fV%.2fM%.2f %.2fH%.2fM%.2f "
          "%.2fH%.2f\"/>",
          x, to_px(ay, s->plo[j]), to_px(ay, s->phi[j]), x - 3, to_px(ay, s->plo[j]), x + 3, x - 3,
          to_px(ay, s->phi[j]), x + 3);
    put_marker(b, (unsigned)i, x, y);
    put(b, "\n");
  }
  put(b, "</g>\n");
}

static void put_legend(svgbuf *b, const pascal_chart *c)
{
  put(b, "<g class=\"legend\" font-size=\"12\">\n");
  for (size_t i = 0; i < c->n_series; i++) {
    const pascal_chart_series *s = &c->series[i];
    const char *colour = palette[i % N_COLOURS];
    double y = AREA_TOP + 8 + 20.0 * (double)i, x = AREA_RIGHT + 16;
    put(b, "<g class=\"legend-entry\" fill=\"%s\" fill-opacity=\"%s\" stroke=\"%s\">", colour,
        MARKER_FILL_OPACITY, colour);
    if (s->n_line)
      put(b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke-width=\"1.8\"%s%s%s/>",
          x, x + 28, y, y, dashes[i % N_DASHES][0] ? " stroke-dasharray=\"" : "",
          dashes[i % N_DASHES], dashes[i % N_DASHES][0] ? "\"" : "");
    if (s->n_points)
      put_marker(b, (unsigned)i, x + 14, y);
    put(b,
        "<text x=\"%.1f\" y=\"%.1f\" dominant-baseline=\"middle\" stroke=\"none\" "
        "fill=\"#222\" fill-opacity=\"1\">",
        x + 36, y);
    put_text(b, s->name);
    put(b, "</text></g>\n");
  }
  put(b, "</g>\n");
}

pascal_status pascal_chart_svg(const pascal_chart *chart, char **svg, size_t *len,
                               pascal_error *err)
{
  axis_map ax, ay;
  size_t dropped_x = 0, dropped_y = 0;
  pascal_status st = axis_setup(chart, 0, &ax, &dropped_x, err);
  if (!st)
    st = axis_setup(chart, 1, &ay, &dropped_y, err);
  if (st)
    return st;
  svgbuf b = {0};
  put(&b,
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
      "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-labelledby=\"chart-title "
      "chart-desc\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
      "<title id=\"chart-title\">",
      PASCAL_CHART_WIDTH, PASCAL_CHART_HEIGHT, PASCAL_CHART_WIDTH, PASCAL_CHART_HEIGHT);
  put_text(&b, chart->title);
  put(&b, "</title>\n<desc id=\"chart-desc\">");
  put_text(&b, chart->desc);
  if (dropped_x + dropped_y)
    put(&b, " %zu value(s) a logarithmic axis cannot show (zero or negative) are not drawn.",
        dropped_x > dropped_y ? dropped_x : dropped_y);
  put(&b,
      "</desc>\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
      "<text class=\"chart-title\" x=\"%.1f\" y=\"28\" font-size=\"16\" "
      "font-weight=\"bold\" fill=\"#222\">",
      AREA_LEFT);
  put_text(&b, chart->title);
  put(&b, "</text>\n");
  put_axes(&b, chart, &ax, &ay);
  for (size_t i = 0; i < chart->n_series; i++)
    put_series(&b, chart, i, &ax, &ay);
  put_legend(&b, chart);
  put(&b, "</svg>\n");
  if (b.failed) {
    free(b.p);
    return oom(err);
  }
  *svg = b.p;
  *len = b.len;
  return PASCAL_OK;
}
