/*
 * cmd_dynamic.c - `pascal fit|predict|loko|synth`: the dynamic predictor of
 * paper section 4 over calibration bundles (docs/bundle-format.md). Bundles
 * are read and written only through the codec; the model is libpascal's.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "output.h"
#include "pascal/answer.h"
#include "pascal/synth.h"
#include "pascal/validation.h"
#include "pascal_codec.h"

pascal_status cli_read_bundle(const char *path, pascal_codec_bundle *bundle, pascal_error *err)
{
  json_t *doc = NULL;
  pascal_status st = pascal_codec_load_file(path, &doc, err);
  if (!st)
    st = pascal_codec_bundle_decode(doc, bundle, err);
  json_decref(doc);
  return st;
}

int cli_load_model(const char *cmd, const char *path, pascal_codec_bundle *bundle,
                   pascal_model **model)
{
  pascal_error err = {0};
  pascal_status st = cli_read_bundle(path, bundle, &err);
  if (!st)
    st = pascal_model_fit(&bundle->cal, model, &err);
  if (!st && (st = pascal_codec_bundle_check_model(bundle, *model, &err))) {
    pascal_model_free(*model);
    *model = NULL;
  }
  return st ? cli_input_error(cmd, path, &err) : CLI_EXIT_OK;
}

/* One warning line on stderr per family whose folds favour aligned K = 1
 * (the frozen report lists them as "losing_families"). */
static pascal_status warn_losses(const pascal_loko_report *report, pascal_error *err)
{
  pascal_family_loss *loss = NULL;
  size_t n = 0;
  pascal_status st = pascal_family_losses(report, &loss, &n, err);
  for (size_t i = 0; i < n; i++) {
    char line[256];
    pascal_family_loss_describe(&loss[i], report->workload, line, sizeof line);
    fprintf(stderr, "pascal fit: warning: %s\n", line);
  }
  free(loss);
  return st;
}

/* One note on stderr per reading for which the calibration's own folds chose
 * the alternative (pascal_reading_choice; model.between, model.between_static,
 * model.between_silent, model.beyond, model.graph). */
static void note_reading(const pascal_reading_choice *b, const char *where, const char *key)
{
  if (b->rule == b->candidate[0])
    return;
  fprintf(stderr,
          "pascal fit: note: %s the model reads %s, not %s: %.2f %% against %.2f %% on %zu "
          "held-out points (model.%s)\n",
          where, pascal_reading_name(b->rule), pascal_reading_name(b->candidate[0]), b->fold_pct[1],
          b->fold_pct[0], b->points, key);
}

static void note_readings(const pascal_model *model)
{
  pascal_reading_choice b;
  pascal_model_between(model, &b);
  note_reading(&b, "between calibrated knots", "between");
  pascal_model_graph(model, &b);
  note_reading(&b, "in m between references of one execution class", "graph");
  if (pascal_model_workload(model) != PASCAL_WORKLOAD_GEMM)
    return;
  pascal_model_between_static(model, &b);
  note_reading(&b, "between calibrated reduction lengths", "between_static");
  pascal_model_between_silent(model, &b);
  note_reading(&b, "where the static reference is silent between two reduction lengths",
               "between_silent");
  pascal_model_beyond(model, &b);
  note_reading(&b, "beyond the GEMM grid", "beyond");
}

int cli_cmd_fit(int argc, char **argv)
{
  const char *out = NULL, *path = NULL;
  cli_arg args[] = {{"out", 'o', CLI_ARG_STRING, 0, &out, 0, 0, "FROZEN",
                     "write the frozen bundle here (default stdout)", 0}};
  size_t n_pos;
  int rc = cli_parse("fit", argc, argv, args, N_ARGS(args), &path, 1, 1, &n_pos);
  if (rc)
    return rc;
  pascal_codec_bundle bundle;
  pascal_model *model = NULL;
  pascal_loko_report report;
  pascal_error err = {0};
  json_t *doc = NULL;
  int have_report = 0;
  pascal_codec_bundle_init(&bundle);
  memset(&report, 0, sizeof report);
  if ((rc = cli_load_model("fit", path, &bundle, &model)))
    goto done;
  /* LOKO needs two keys; a smaller calibration is frozen with report null. */
  pascal_status st = PASCAL_OK;
  if (pascal_calibration_run_count(&bundle.cal) > 0) {
    st = pascal_loko_run(&bundle.cal, &report, &err);
    have_report = st == PASCAL_OK;
    if (st == PASCAL_EINVAL)
      st = PASCAL_OK;
  }
  if (!st)
    st = pascal_codec_bundle_encode(&bundle.cal, bundle.provenance, model,
                                    have_report ? &report : NULL, &doc, &err);
  if (!st && have_report)
    st = warn_losses(&report, &err);
  if (!st)
    note_readings(model);
  rc = st ? cli_input_error("fit", path, &err) : cli_emit("fit", doc, out);
done:
  if (have_report)
    pascal_loko_report_free(&report);
  pascal_model_free(model);
  pascal_codec_bundle_free(&bundle);
  return rc;
}

/* `pascal predict`'s options: --bundle, --json, then every field of every
 * workload's query table (pascal/query.h), each once, typed by its field;
 * the values are kept per option, in `u`, `r` or `s`. */
#define PREDICT_OPTIONS_MAX (3 + 2 * PASCAL_QUERY_FIELDS_MAX)
typedef struct predict_options {
  cli_arg args[PREDICT_OPTIONS_MAX];
  size_t n;
  uint32_t u[PREDICT_OPTIONS_MAX];
  double r[PREDICT_OPTIONS_MAX];
  const char *s[PREDICT_OPTIONS_MAX];
} predict_options;

static const pascal_workload workloads[] = {PASCAL_WORKLOAD_SCAN, PASCAL_WORKLOAD_GEMM,
                                            PASCAL_WORKLOAD_ATTENTION};

static cli_arg *find_option(predict_options *o, const char *name)
{
  for (size_t k = 0; k < o->n; k++)
    if (strcmp(o->args[k].name, name) == 0)
      return &o->args[k];
  return NULL;
}

static void options_init(predict_options *o, const char **bundle, const char **queries, int *json)
{
  memset(o, 0, sizeof *o);
  o->args[o->n++] = (cli_arg){"bundle", 0,      CLI_ARG_STRING,
                              1,        bundle, 0,
                              0,        "FILE", "calibration bundle (plain or frozen) to ask",
                              0};
  o->args[o->n++] = (cli_arg){.name = "queries",
                              .kind = CLI_ARG_STRING,
                              .dest = queries,
                              .meta = "FILE",
                              .help = "a batch instead of the query options: {\"queries\": "
                                      "[...]} or the array, - for standard input"};
  for (size_t w = 0; w < sizeof workloads / sizeof *workloads; w++) {
    const pascal_query_field *f;
    size_t n = pascal_query_fields(workloads[w], &f);
    for (size_t i = 0; i < n; i++) {
      cli_arg *same = find_option(o, f[i].name);
      if (same) { /* a name two workloads share is one option over both
                     ranges; pascal_query_build checks the bundle's */
        same->lo = same->lo < (uint64_t)f[i].lo ? same->lo : (uint64_t)f[i].lo;
        same->hi = same->hi > (uint64_t)f[i].hi ? same->hi : (uint64_t)f[i].hi;
        continue;
      }
      size_t k = o->n++;
      cli_arg *a = &o->args[k];
      if (f[i].type == PASCAL_QUERY_UINT)
        *a = (cli_arg){.name = f[i].name,
                       .kind = CLI_ARG_U32,
                       .dest = &o->u[k],
                       .lo = (uint64_t)f[i].lo,
                       .hi = (uint64_t)f[i].hi};
      else if (f[i].type == PASCAL_QUERY_REAL) /* its range: pascal_query_build's */
        *a = (cli_arg){.name = f[i].name, .kind = CLI_ARG_DOUBLE, .dest = &o->r[k]};
      else
        *a = (cli_arg){.name = f[i].name, .kind = CLI_ARG_STRING, .dest = &o->s[k]};
      a->help = f[i].doc; /* the query table's line: the help cannot drift from it */
    }
  }
  o->args[o->n++] =
      (cli_arg){"json", 0, CLI_ARG_FLAG, 0, json, 0, 0, NULL, "print the JSON answer", 0};
}

static int option_given(const char *name, void *arg)
{
  const predict_options *o = arg;
  return cli_args_seen(o->args, o->n, name);
}

/* "--o --path --d --m --N --W": the options of a workload. */
static void options_of(pascal_workload w, char *buf, size_t size)
{
  const pascal_query_field *f;
  size_t n = pascal_query_fields(w, &f), len = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < n && len < size; i++)
    len += (size_t)snprintf(buf + len, size - len, "%s--%s", i ? " " : "", f[i].name);
}

/* The query the options give for a bundle of workload `wl`: a GEMM option
 * beside a scan option is the daemon's mixed query; an option of the other
 * workload names the ones the bundle needs. */
static pascal_status options_query(const predict_options *o, pascal_workload wl, pascal_query *q,
                                   pascal_error *err)
{
  pascal_workload asked; /* what the options alone say: only a mix is an error here */
  pascal_status st = pascal_query_workload(option_given, (void *)o, NULL, &asked, err);
  if (st)
    return st;
  for (size_t w = 0; w < sizeof workloads / sizeof *workloads; w++) {
    const pascal_query_field *f;
    size_t n = pascal_query_fields(workloads[w], &f);
    for (size_t i = 0; i < n && workloads[w] != wl; i++)
      if (option_given(f[i].name, (void *)o) &&
          pascal_query_field_index(wl, f[i].name, strlen(f[i].name)) < 0) {
        char need[128];
        options_of(wl, need, sizeof need);
        return pascal_error_set(err, PASCAL_EINVAL, f[i].name,
                                "the bundle is a %s calibration: give %s", pascal_workload_name(wl),
                                need);
      }
  }
  pascal_query_value v[PASCAL_QUERY_FIELDS_MAX];
  uint32_t given = 0;
  for (size_t k = 0; k < o->n; k++) {
    int i = pascal_query_field_index(wl, o->args[k].name, strlen(o->args[k].name));
    if (i < 0 || !o->args[k].seen)
      continue;
    v[i] = (pascal_query_value){o->u[k], o->r[k], o->s[k]};
    given |= UINT32_C(1) << i;
  }
  return pascal_query_build(wl, v, given, NULL, q, err);
}

/* Answer the query (pascal/answer.h); once it stands, build the
 * calibration's own validation into *v as pascald builds it (a
 * leave-one-key-out run) and answer it again with its expected error. */
static pascal_status predict_run(const pascal_calibration *cal, const pascal_model *model,
                                 pascal_validation *v, const pascal_query *q, json_t **doc,
                                 pascal_error *err)
{
  pascal_answer a;
  pascal_status st = pascal_answer_query(model, NULL, q, &a, err);
  if (!st)
    st = pascal_validation_build(cal, model, NULL, v, err);
  if (!st)
    st = pascal_answer_query(model, v, q, &a, err);
  return st ? st : pascal_codec_answer_encode(q, &a, NULL, doc, err);
}

/* --queries with a query option beside it: the option named (exit 2). */
static int queries_alone(const predict_options *o)
{
  for (size_t k = 0; k < o->n; k++)
    if (o->args[k].seen && strcmp(o->args[k].name, "bundle") != 0 &&
        strcmp(o->args[k].name, "queries") != 0 && strcmp(o->args[k].name, "json") != 0) {
      fprintf(stderr, "pascal predict: --%s: not with --queries (each query holds its fields)\n",
              o->args[k].name);
      return CLI_EXIT_USAGE;
    }
  return CLI_EXIT_OK;
}

int cli_cmd_predict(int argc, char **argv)
{
  const char *bundle_path = NULL, *queries = NULL;
  int json = 0;
  predict_options o;
  options_init(&o, &bundle_path, &queries, &json);
  int rc = cli_parse("predict", argc, argv, o.args, o.n, NULL, 0, 0, NULL);
  if (rc || (queries && (rc = queries_alone(&o))))
    return rc;
  pascal_codec_bundle bundle;
  pascal_model *model = NULL;
  pascal_validation valid = {0};
  pascal_codec_bundle_init(&bundle);
  if (!(rc = cli_load_model("predict", bundle_path, &bundle, &model)) && queries) {
    rc = cli_predict_queries(queries, &bundle, model, &valid, json);
  } else if (!rc) {
    pascal_error err = {0};
    json_t *doc = NULL;
    pascal_query q;
    pascal_status st = options_query(&o, pascal_model_workload(model), &q, &err);
    if (!st)
      st = predict_run(&bundle.cal, model, &valid, &q, &doc, &err);
    if (st == PASCAL_EREFUSED) {
      rc = cli_input_error("predict", "refused", &err);
    } else {
      if (st == PASCAL_EMISSING) /* an option the query needs: a usage error */
        err.status = PASCAL_EINVAL;
      rc = cli_finish("predict", o.args, o.n, st, doc, json, &err);
    }
  }
  pascal_validation_free(&valid);
  pascal_model_free(model);
  pascal_codec_bundle_free(&bundle);
  return rc;
}

/* Readable LOKO table from the report document, the methods in the columns
 * of the comparison table (PASCAL_METHODS). */
static void print_loko(const json_t *r)
{
  const char *methods[PASCAL_METHOD_COUNT];
  for (unsigned c = 0; c < PASCAL_METHOD_COUNT; c++)
    methods[c] = pascal_method_info_of(pascal_method_at_column(c))->key;
  const json_t *bm = json_object_get(r, "balanced_mape");
  printf("leave-one-key-out: %lld keys (%lld scored), %lld runs (%lld scored, %lld refused)\n",
         (long long)json_integer_value(json_object_get(r, "n_keys")),
         (long long)json_integer_value(json_object_get(r, "n_keys_scored")),
         (long long)json_integer_value(json_object_get(r, "n_runs")),
         (long long)json_integer_value(json_object_get(r, "n_scored")),
         (long long)json_integer_value(json_object_get(r, "n_refused")));
  printf("balanced MAPE (%%):");
  for (size_t i = 0; i < PASCAL_METHOD_COUNT; i++) {
    const json_t *v = json_object_get(bm, methods[i]);
    if (json_is_number(v))
      printf("  %s %.2f", methods[i], json_number_value(v));
    else
      printf("  %s -", methods[i]);
  }
  printf("\n\n%-22s %5s", "key", "runs");
  for (size_t i = 0; i < PASCAL_METHOD_COUNT; i++)
    printf(" %10s", methods[i]);
  printf("\n");
  size_t i;
  const json_t *k;
  json_array_foreach(json_object_get(r, "keys"), i, k)
  {
    char key[64];
    if (json_object_get(k, "Mg"))
      snprintf(key, sizeof key, "Mg=%lld Ng=%lld",
               (long long)json_integer_value(json_object_get(k, "Mg")),
               (long long)json_integer_value(json_object_get(k, "Ng")));
    else
      snprintf(key, sizeof key, "o=%lld %s d=%lld m=%lld",
               (long long)json_integer_value(json_object_get(k, "o")),
               json_string_value(json_object_get(k, "path")),
               (long long)json_integer_value(json_object_get(k, "d")),
               (long long)json_integer_value(json_object_get(k, "m")));
    printf("%-22s %5lld", key, (long long)json_integer_value(json_object_get(k, "n_runs")));
    const json_t *mape = json_object_get(k, "mape");
    for (size_t j = 0; j < PASCAL_METHOD_COUNT; j++) {
      const json_t *v = json_object_get(mape, methods[j]);
      if (json_is_number(v))
        printf(" %10.2f", json_number_value(v));
      else
        printf(" %10s", "-");
    }
    const json_t *refusal = json_object_get(k, "refusal");
    printf("%s%s\n", json_is_string(refusal) ? "  refused: " : "",
           json_is_string(refusal) ? json_string_value(refusal) : "");
  }
}

int cli_cmd_loko(int argc, char **argv)
{
  const char *path = NULL;
  int json = 0;
  cli_arg args[] = {{"json", 0, CLI_ARG_FLAG, 0, &json, 0, 0, NULL,
                     "print the JSON report instead of the table", 0}};
  size_t n_pos;
  int rc = cli_parse("loko", argc, argv, args, N_ARGS(args), &path, 1, 1, &n_pos);
  if (rc)
    return rc;
  pascal_codec_bundle bundle;
  pascal_loko_report report;
  pascal_error err = {0};
  json_t *doc = NULL;
  pascal_codec_bundle_init(&bundle);
  pascal_status st = cli_read_bundle(path, &bundle, &err);
  if (st) {
    rc = cli_input_error("loko", path, &err);
  } else if ((st = pascal_loko_run(&bundle.cal, &report, &err))) {
    rc = cli_input_error("loko", path, &err);
  } else {
    st = pascal_codec_loko_encode(&report, &doc, &err);
    pascal_loko_report_free(&report);
    if (st) {
      rc = cli_input_error("loko", path, &err);
    } else if (json) {
      rc = cli_print(doc, 1);
    } else {
      print_loko(doc);
      json_decref(doc);
    }
  }
  pascal_codec_bundle_free(&bundle);
  return rc;
}

/* "scan" or "gemm", then ",name=value" law parameters (pascal_synth_law_set). */
static pascal_status parse_law(const char *spec, pascal_synth_law *law, pascal_error *err)
{
  size_t len = strcspn(spec, ",");
  pascal_workload wl;
  char head[16];
  if (len >= sizeof head)
    return pascal_error_set(err, PASCAL_EINVAL, "law", "--law must start with scan or gemm");
  memcpy(head, spec, len);
  head[len] = '\0';
  if (pascal_workload_parse(head, "law", &wl, err))
    return pascal_error_set(err, PASCAL_EINVAL, "law", "--law must start with scan or gemm");
  pascal_synth_law_default(wl, law);
  for (const char *p = spec + len; *p == ',';) {
    const char *item = p + 1;
    size_t n = strcspn(item, ","), name_len = strcspn(item, "=");
    char name[32], value[64];
    if (name_len >= n || name_len >= sizeof name || n - name_len - 1 >= sizeof value)
      return pascal_error_set(err, PASCAL_EINVAL, "law",
                              "--law parameters are name=value, got '%.*s'", (int)n, item);
    memcpy(name, item, name_len);
    name[name_len] = '\0';
    memcpy(value, item + name_len + 1, n - name_len - 1);
    value[n - name_len - 1] = '\0';
    /* Reuse the CLI's strict number parser through a one-entry table. */
    double v = 0;
    char *argv1[] = {(char *)"--value", value};
    cli_arg vt[] = {{"value", 0, CLI_ARG_DOUBLE, 1, &v, 0, 0, NULL, NULL, 0}};
    size_t none;
    if (cli_args_parse(2, argv1, vt, 1, NULL, 0, 0, &none, err))
      return pascal_error_set(err, PASCAL_EINVAL, "law", "--law %s: '%s' is not a number", name,
                              value);
    if (pascal_synth_law_set(law, name, v, err))
      return pascal_error_set(err, PASCAL_EINVAL, "law", "--law %s: %s", name, err->message);
    p = item + n;
  }
  return PASCAL_OK;
}

/* The synthetic plan from a decoded pascal-plan/1 plan. The arrays are
 * allocated into `mem` (the caller frees them). */
typedef struct synth_plan_storage {
  pascal_scan_key *keys;
  uint32_t *sizes, *horizons;
  pascal_gemm_shape *shapes;
} synth_plan_storage;

static pascal_status plan_to_synth(const pascal_plan *plan, pascal_synth_plan *sp,
                                   synth_plan_storage *mem, pascal_error *err)
{
  memset(sp, 0, sizeof *sp);
  sp->repeats = plan->repeats;
  mem->keys = calloc(plan->n_keys + 1, sizeof *mem->keys);
  mem->sizes = calloc(plan->n_sizes + 1, sizeof *mem->sizes);
  mem->horizons = calloc(plan->n_horizons + 1, sizeof *mem->horizons);
  mem->shapes = calloc(plan->n_shapes + 1, sizeof *mem->shapes);
  if (!mem->keys || !mem->sizes || !mem->horizons || !mem->shapes)
    return pascal_error_set(err, PASCAL_ENOMEM, "plan", "out of memory");
  for (size_t i = 0; i < plan->n_keys; i++) {
    const pascal_plan_key *k = &plan->keys[i];
    mem->keys[i] = (pascal_scan_key){
        k->o, k->path == PASCAL_PLAN_TMA ? PASCAL_PATH_TMA : PASCAL_PATH_SYNC, k->d, k->m};
  }
  /* Plan extents are at most PASCAL_PLAN_MAX_EXTENT = 2^32 - 1 (validated). */
  for (size_t i = 0; i < plan->n_sizes; i++)
    mem->sizes[i] = (uint32_t)plan->sizes[i];
  for (size_t i = 0; i < plan->n_horizons; i++)
    mem->horizons[i] = (uint32_t)plan->horizons[i];
  for (size_t i = 0; i < plan->n_shapes; i++) {
    const pascal_plan_shape *s = &plan->shapes[i];
    mem->shapes[i] = (pascal_gemm_shape){(uint32_t)s->Mg, (uint32_t)s->Ng, (uint32_t)s->Kg};
  }
  sp->keys = mem->keys;
  sp->n_keys = plan->n_keys;
  sp->sizes = mem->sizes;
  sp->n_sizes = plan->n_sizes;
  sp->horizons = mem->horizons;
  sp->n_horizons = plan->n_horizons;
  sp->shapes = mem->shapes;
  sp->n_shapes = plan->n_shapes;
  return PASCAL_OK;
}

/* provenance {"source":"synthetic","generator":"pascal synth","law":{...}} */
static json_t *synth_provenance(const pascal_synth_law *law)
{
  const struct {
    const char *name;
    double v;
  } p[] = {{"amp", law->amp},
           {"class0", law->class_gain[0]},
           {"class1", law->class_gain[1]},
           {"class2", law->class_gain[2]},
           {"depth_gain", law->depth_gain},
           {"occ_exp", law->occ_exp},
           {"m_scale", law->m_scale},
           {"size_exp", law->size_exp},
           {"w_half", law->w_half},
           {"sync_gain", law->sync_gain},
           {"gemm_amp", law->gemm_amp},
           {"nk_half", law->nk_half},
           {"grid_half", law->grid_half},
           {"noise", law->noise}};
  json_t *prov = json_object(), *l = json_object();
  json_object_set_new(prov, "source", json_string("synthetic"));
  json_object_set_new(prov, "generator", json_string("pascal synth"));
  json_object_set_new(prov, "law", l);
  json_object_set_new(l, "workload", json_string(pascal_workload_name(law->workload)));
  for (size_t i = 0; i < sizeof p / sizeof *p; i++)
    json_object_set_new(l, p[i].name, json_real(p[i].v));
  json_object_set_new(l, "seed", json_integer((json_int_t)law->seed));
  return prov;
}

/* Synthesise the runs of the plan file at `path` (NULL: the law's default
 * plan) into *cal, which this initialises (free it also after a failure).
 * Errors are reported; returns the exit status. */
static int synth_from_plan(const pascal_synth_law *law, const char *path, pascal_calibration *cal)
{
  pascal_synth_plan sp;
  synth_plan_storage mem = {0};
  pascal_plan plan;
  pascal_error err = {0};
  json_t *doc = NULL;
  pascal_status st = PASCAL_OK;
  pascal_plan_init(&plan);
  pascal_calibration_init(cal, law->workload);
  pascal_synth_plan_default(law->workload, &sp);
  if (path) {
    st = pascal_codec_load_file(path, &doc, &err);
    if (!st)
      st = pascal_codec_plan_decode(doc, &plan, &err);
    json_decref(doc);
    if (!st && (plan.workload == PASCAL_PLAN_GEMM) != (law->workload == PASCAL_WORKLOAD_GEMM))
      st = pascal_error_set(&err, PASCAL_EINVAL, "workload",
                            "the plan's workload differs from the law's");
    if (!st)
      st = plan_to_synth(&plan, &sp, &mem, &err);
  }
  int rc = st ? cli_input_error("synth", path, &err) : CLI_EXIT_OK;
  if (!rc && (st = pascal_synth_calibration(law, &sp, cal, &err)))
    rc = cli_input_error("synth", "law", &err);
  free(mem.keys);
  free(mem.sizes);
  free(mem.horizons);
  free(mem.shapes);
  pascal_plan_free(&plan);
  return rc;
}

int cli_cmd_synth(int argc, char **argv)
{
  const char *law_spec = NULL, *plan_path = NULL, *panel_path = NULL, *out = NULL;
  cli_arg args[] = {
      {"law", 0, CLI_ARG_STRING, 1, &law_spec, 0, 0, "scan|gemm[,k=v...]",
       "response law and its parameters, e.g. scan,noise=0,seed=7", 0},
      {"plan", 0, CLI_ARG_STRING, 0, &plan_path, 0, 0, "PLAN",
       "pascal-plan/1 file of the runs (default: the paper's plan)", 0},
      {"heldout", 0, CLI_ARG_STRING, 0, &panel_path, 0, 0, "PANEL",
       "pascal-plan/1 file of a held-out panel of the same workload", 0},
      {"out", 'o', CLI_ARG_STRING, 0, &out, 0, 0, "BUNDLE",
       "write the bundle here (default stdout)", 0},
  };
  int rc = cli_parse("synth", argc, argv, args, N_ARGS(args), NULL, 0, 0, NULL);
  if (rc)
    return rc;
  pascal_synth_law law;
  pascal_calibration cal, panel;
  pascal_error err = {0};
  json_t *doc = NULL, *prov = NULL;
  pascal_calibration_init(&cal, PASCAL_WORKLOAD_SCAN);
  pascal_calibration_init(&panel, PASCAL_WORKLOAD_SCAN);
  if (parse_law(law_spec, &law, &err)) {
    rc = cli_arg_error("synth", args, N_ARGS(args), &err);
    goto done;
  }
  if ((rc = synth_from_plan(&law, plan_path, &cal)) ||
      (panel_path && (rc = synth_from_plan(&law, panel_path, &panel))))
    goto done;
  pascal_status st = PASCAL_OK;
  const pascal_calibration *parts[] = {&panel};
  if (panel_path && (st = pascal_calibration_set_heldout(&cal, parts, 1, &err))) {
    rc = cli_input_error("synth", panel_path, &err);
    goto done;
  }
  prov = synth_provenance(&law);
  st = pascal_codec_bundle_encode(&cal, prov, NULL, NULL, &doc, &err);
  rc = st ? cli_input_error("synth", "law", &err) : cli_emit("synth", doc, out);
done:
  json_decref(prov);
  pascal_calibration_free(&cal);
  pascal_calibration_free(&panel);
  return rc;
}
