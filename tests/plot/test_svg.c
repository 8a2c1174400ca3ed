/*
 * test_svg.c - the SVG chart writer (server/plot/svg.c): tick placement on
 * log and linear axes against hand-worked values, XML escaping, and the
 * structure of a rendered chart (one group and one legend entry per
 * series, markers, error bars, the dropped-value note). With a path
 * argument it also writes a chart with hostile text there, which
 * test_svg_xml.py parses as XML.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "svg.h"

static size_t count(const char *hay, const char *needle)
{
  size_t n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
    n++;
  return n;
}

static void expect_ticks(pascal_axis_scale scale, double lo, double hi, const double *want,
                         size_t n_want)
{
  double t[PASCAL_AXIS_TICKS_MAX];
  size_t n = 0;
  CHECK_INT(pascal_axis_ticks(scale, lo, hi, t, &n, NULL), PASCAL_OK);
  CHECK_INT(n, n_want);
  for (size_t i = 0; i < n && i < n_want; i++)
    CHECK_NEAR(t[i], want[i], fabs(want[i]) * 1e-12);
}

static void test_ticks(void)
{
  /* [3, 4000] spans decades 10^0 .. 10^4: one tick per power of ten. */
  expect_ticks(PASCAL_AXIS_LOG, 3, 4000, (double[]){1, 10, 100, 1000, 10000}, 5);
  /* Exact powers stay on their decade: [10, 10000] is 10 .. 10000. */
  expect_ticks(PASCAL_AXIS_LOG, 10, 10000, (double[]){10, 100, 1000, 10000}, 4);
  /* At most two decades: 1, 2, 5 per decade. [2, 8] -> 1 .. 10. */
  expect_ticks(PASCAL_AXIS_LOG, 2, 8, (double[]){1, 2, 5, 10}, 4);
  /* [1, 64] (the horizons W): decades 1..100 at 1, 2, 5. */
  expect_ticks(PASCAL_AXIS_LOG, 1, 64, (double[]){1, 2, 5, 10, 20, 50, 100}, 7);
  /* A single value: the decade around it. */
  expect_ticks(PASCAL_AXIS_LOG, 0.3, 0.3, (double[]){0.1, 0.2, 0.5, 1}, 4);
  /* 30 decades [1e-10, 1e20]: every third power (12 intervals at most). */
  expect_ticks(PASCAL_AXIS_LOG, 1e-10, 1e20,
               (double[]){1e-12, 1e-9, 1e-6, 1e-3, 1, 1e3, 1e6, 1e9, 1e12, 1e15, 1e18, 1e21}, 12);
  /* Linear [0, 97]: step 20 (97/5 = 19.4 -> 2 x 10). */
  expect_ticks(PASCAL_AXIS_LINEAR, 0, 97, (double[]){0, 20, 40, 60, 80, 100}, 6);
  /* Linear [-0.3, 0.7]: step 0.2 from -0.4. */
  expect_ticks(PASCAL_AXIS_LINEAR, -0.3, 0.7, (double[]){-0.4, -0.2, 0, 0.2, 0.4, 0.6, 0.8}, 7);
  double t[PASCAL_AXIS_TICKS_MAX];
  size_t n;
  pascal_error err;
  CHECK_INT(pascal_axis_ticks(PASCAL_AXIS_LOG, 0, 10, t, &n, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "lo") == 0);
  CHECK_INT(pascal_axis_ticks(PASCAL_AXIS_LINEAR, 1, NAN, t, &n, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "hi") == 0);
  CHECK_INT(pascal_axis_ticks(PASCAL_AXIS_LINEAR, 2, 1, t, &n, &err), PASCAL_EINVAL);
}

static void test_escape(void)
{
  char out[128];
  size_t need = pascal_xml_escape("a<b>&\"c'\x01", out, sizeof out);
  CHECK(strcmp(out, "a&lt;b&gt;&amp;&quot;c&apos; ") == 0);
  CHECK_INT(need, strlen(out));
  /* Too small a buffer: truncated, terminated, and the full size reported. */
  char tiny[6];
  CHECK_INT(pascal_xml_escape("<<<", tiny, sizeof tiny), 12);
  CHECK(strlen(tiny) < sizeof tiny);
  CHECK_INT(pascal_xml_escape("plain", NULL, 0), 5);
}

/* A chart of two series on log axes; one value cannot be drawn. */
static char *sample(const char *hostile)
{
  pascal_chart c;
  pascal_chart_init(&c);
  snprintf(c.title, sizeof c.title, "K against W %s", hostile);
  snprintf(c.desc, sizeof c.desc, "two series; %s", hostile);
  snprintf(c.x.label, sizeof c.x.label, "W");
  snprintf(c.y.label, sizeof c.y.label, "K");
  c.x.scale = c.y.scale = PASCAL_AXIS_LOG;
  size_t a, b;
  CHECK_INT(pascal_chart_add_series(&c, hostile, &a, NULL), PASCAL_OK);
  CHECK_INT(pascal_chart_add_series(&c, "fitted", &b, NULL), PASCAL_OK);
  for (int i = 0; i < 40; i++) /* enough to grow the arrays twice */
    CHECK_INT(pascal_chart_add_point(&c, a, 1 + i, 2 + i, 1.5 + i, 3 + i, NULL), PASCAL_OK);
  CHECK_INT(pascal_chart_add_point(&c, a, 5, 0, NAN, NAN, NULL), PASCAL_OK); /* dropped */
  for (int i = 1; i <= 64; i *= 2)
    CHECK_INT(pascal_chart_add_vertex(&c, b, i, 1.0 + i / 10.0, NULL), PASCAL_OK);
  char *svg = NULL;
  size_t len = 0;
  CHECK_INT(pascal_chart_svg(&c, &svg, &len, NULL), PASCAL_OK);
  pascal_chart_free(&c);
  CHECK(svg && strlen(svg) == len);
  return svg;
}

static void test_render(void)
{
  char *svg = sample("<b>&'x'");
  if (!svg)
    return;
  CHECK_INT(count(svg, "<g class=\"series\""), 2);
  CHECK_INT(count(svg, "<g class=\"legend-entry\""), 2);
  CHECK_INT(count(svg, "class=\"errorbar\""), 40);
  CHECK_INT(count(svg, "class=\"marker\""), 40 + 1); /* + the legend's marker */
  CHECK_INT(count(svg, "<polyline"), 1);
  CHECK(strstr(svg, "<b>") == NULL);
  CHECK(strstr(svg, "data-series=\"&lt;b&gt;&amp;&apos;x&apos;\"") != NULL);
  CHECK(strstr(svg, "1 value(s) a logarithmic axis cannot show") != NULL);
  CHECK(strstr(svg, "<title id=\"chart-title\">") != NULL);
  CHECK(strstr(svg, "role=\"img\"") != NULL);
  free(svg);

  pascal_chart empty;
  pascal_chart_init(&empty);
  size_t s;
  pascal_error err;
  char *out = NULL;
  size_t len;
  CHECK_INT(pascal_chart_add_series(&empty, "nothing", &s, NULL), PASCAL_OK);
  CHECK_INT(pascal_chart_svg(&empty, &out, &len, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "series") == 0 && out == NULL);
  pascal_chart_free(&empty);
}

int main(int argc, char **argv)
{
  test_ticks();
  test_escape();
  test_render();
  if (argc > 1) {
    char *svg = sample("<script>alert(\"&amp;\")</script>\x02 ]]> <!-- x -->");
    FILE *f = svg ? fopen(argv[1], "w") : NULL;
    CHECK(f != NULL);
    if (f) {
      fputs(svg, f);
      fclose(f);
    }
    free(svg);
  }
  return check_summary();
}
