/*
 * prediction_codec.c - the JSON form of an answer (pascal/answer.h): the
 * scan, GEMM or attention prediction with its explanation (paper Algorithm
 * predict, Eq. graph, App. C "GEMM instantiation"; attention as the scan of
 * its shared K/V, pascal/attention.h), the query it answers (every field
 * of its workload's table, pascal/query.h), who answered and its time; keys
 * are documented in docs/cli.md. This is the one writer of answers: pascald
 * streams it as text (single answers, batches), the CLI gets the same text
 * parsed into a tree (pascal_codec_answer_encode). The core's NaN ("not used
 * by this rule") is written as null.
 */
#include <stdlib.h>
#include <string.h>

#include "json_util.h"
#include "pascal_codec.h"

/* The names of libpascal's enumerations (pascal_rule_name and its kin)
 * written as texts fixed when compiled, quotes and all, instead of being
 * measured and checked for escapes at every answer (a dozen per explained
 * answer); a value without a case here takes libpascal's name. The
 * texts are libpascal's names: test_json_text writes each through these
 * and compares it with libpascal's. */
static void put_rule(pascal_jtext *w, pascal_rule rule)
{
  PASCAL_JTEXT_KEY(w, "rule");
  switch (rule) {
  case PASCAL_RULE_EXACT: PASCAL_JTEXT_LITERAL(w, "exact"); return;
  case PASCAL_RULE_GRAPH: PASCAL_JTEXT_LITERAL(w, "graph"); return;
  case PASCAL_RULE_CLAMP: PASCAL_JTEXT_LITERAL(w, "clamp"); return;
  case PASCAL_RULE_DEPTH_FALLBACK: PASCAL_JTEXT_LITERAL(w, "depth-fallback"); return;
  case PASCAL_RULE_RESIDENT: PASCAL_JTEXT_LITERAL(w, "resident"); return;
  }
  pascal_jtext_string(w, NULL, pascal_rule_name(rule));
}

static void put_path(pascal_jtext *w, pascal_path path)
{
  PASCAL_JTEXT_KEY(w, "path");
  switch (path) {
  case PASCAL_PATH_TMA: PASCAL_JTEXT_LITERAL(w, "tma"); return;
  case PASCAL_PATH_SYNC: PASCAL_JTEXT_LITERAL(w, "sync"); return;
  }
  pascal_jtext_string(w, NULL, pascal_path_name(path));
}

/* The same after a key from the query's field table. */
static void put_path_as(pascal_jtext *w, const char *key, pascal_path path)
{
  switch (path) {
  case PASCAL_PATH_TMA: pascal_jtext_raw(w, key, "\"tma\"", 5); return;
  case PASCAL_PATH_SYNC: pascal_jtext_raw(w, key, "\"sync\"", 6); return;
  }
  pascal_jtext_string(w, key, pascal_path_name(path));
}

static void put_error_source(pascal_jtext *w, pascal_error_source source)
{
  PASCAL_JTEXT_KEY(w, "source");
  switch (source) {
  case PASCAL_ERRSRC_NONE: PASCAL_JTEXT_LITERAL(w, "none"); return;
  case PASCAL_ERRSRC_LOKO: PASCAL_JTEXT_LITERAL(w, "loko"); return;
  case PASCAL_ERRSRC_IN_SAMPLE: PASCAL_JTEXT_LITERAL(w, "in-sample"); return;
  case PASCAL_ERRSRC_HELD_OUT: PASCAL_JTEXT_LITERAL(w, "held-out"); return;
  case PASCAL_ERRSRC_INTERVAL: PASCAL_JTEXT_LITERAL(w, "interval"); return;
  case PASCAL_ERRSRC_RESIDENCY: PASCAL_JTEXT_LITERAL(w, "residency"); return;
  }
  pascal_jtext_string(w, NULL, pascal_error_source_name(source));
}

static void put_bound(pascal_jtext *w, pascal_bound bound)
{
  PASCAL_JTEXT_KEY(w, "bound");
  switch (bound) {
  case PASCAL_BOUND_DRAM: PASCAL_JTEXT_LITERAL(w, "dram"); return;
  case PASCAL_BOUND_L2: PASCAL_JTEXT_LITERAL(w, "l2"); return;
  case PASCAL_BOUND_COMPUTE: PASCAL_JTEXT_LITERAL(w, "compute"); return;
  case PASCAL_BOUND_LATENCY: PASCAL_JTEXT_LITERAL(w, "latency"); return;
  }
  pascal_jtext_string(w, NULL, pascal_bound_name(bound));
}

static void put_time_source(pascal_jtext *w, pascal_time_source source)
{
  PASCAL_JTEXT_KEY(w, "time_source");
  switch (source) {
  case PASCAL_TIME_CALIBRATED: PASCAL_JTEXT_LITERAL(w, "calibrated"); return;
  case PASCAL_TIME_PEAKS: PASCAL_JTEXT_LITERAL(w, "peaks"); return;
  }
  pascal_jtext_string(w, NULL, pascal_time_source_name(source));
}

static void put_family_step(pascal_jtext *w, const pascal_family_step *f, double weight)
{
  pascal_jtext_object_begin(w, NULL);
  PASCAL_JTEXT_UINT(w, "d", f->d);
  PASCAL_JTEXT_REAL(w, "weight", weight);
  put_rule(w, f->rule);
  PASCAL_JTEXT_REAL(w, "a", f->a);
  PASCAL_JTEXT_REAL_OR_NULL(w, "p", f->p);
  PASCAL_JTEXT_REAL_OR_NULL(w, "a_lin", f->a_lin);
  PASCAL_JTEXT_REAL_OR_NULL(w, "omega", f->omega);
  PASCAL_JTEXT_REAL_OR_NULL(w, "c0", f->c0);
  PASCAL_JTEXT_UINT(w, "m_left", f->m_left);
  PASCAL_JTEXT_UINT(w, "m_right", f->m_right);
  PASCAL_JTEXT_REAL_OR_NULL(w, "a_left", f->a_left);
  PASCAL_JTEXT_REAL_OR_NULL(w, "a_right", f->a_right);
  PASCAL_JTEXT_UINT(w, "m_minus", f->m_minus);
  PASCAL_JTEXT_UINT(w, "m_plus", f->m_plus);
  pascal_jtext_object_end(w);
}

static void put_size_step(pascal_jtext *w, const pascal_size_step *s)
{
  pascal_jtext_object_begin(w, NULL);
  PASCAL_JTEXT_UINT(w, "N", s->N);
  PASCAL_JTEXT_REAL(w, "eta", s->eta);
  PASCAL_JTEXT_REAL(w, "weight", s->weight);
  put_rule(w, s->rule);
  PASCAL_JTEXT_REAL(w, "a", s->a);
  PASCAL_JTEXT_ARRAY(w, "depths");
  for (size_t i = 0; i < s->n_depths && i < 2; i++)
    put_family_step(w, &s->depth[i], s->depth_weight[i]);
  pascal_jtext_array_end(w);
  pascal_jtext_object_end(w);
}

/* Only where the capacity probe was read: the share each later pass
 * refetches, its bracket and the points that set it, the curves' K and K
 * at the bracket's ends. */
static void put_residency(pascal_jtext *w, const pascal_scan_residency *r)
{
  PASCAL_JTEXT_OBJECT(w, "residency");
  PASCAL_JTEXT_REAL(w, "refetch", r->refetch);
  PASCAL_JTEXT_REAL(w, "refetch_low", r->refetch_low);
  PASCAL_JTEXT_REAL(w, "refetch_high", r->refetch_high);
  PASCAL_JTEXT_UINT(w, "N_low", r->N_low);
  PASCAL_JTEXT_UINT(w, "N_high", r->N_high);
  PASCAL_JTEXT_REAL(w, "K_refetching", r->K_refetching);
  PASCAL_JTEXT_REAL(w, "K_low", r->K_low);
  PASCAL_JTEXT_REAL(w, "K_high", r->K_high);
  pascal_jtext_object_end(w);
}

static void put_scan_explanation(pascal_jtext *w, const pascal_scan_explanation *x)
{
  PASCAL_JTEXT_OBJECT(w, "explanation");
  put_rule(w, x->rule);
  PASCAL_JTEXT_OBJECT(w, "family");
  PASCAL_JTEXT_UINT(w, "o", x->o);
  put_path(w, x->path);
  PASCAL_JTEXT_UINT(w, "d", x->d);
  pascal_jtext_object_end(w);
  PASCAL_JTEXT_UINT(w, "class", x->class_id);
  PASCAL_JTEXT_REAL(w, "eta", x->eta);
  PASCAL_JTEXT_REAL_OR_NULL(w, "a", x->a); /* null: rule resident reads no curve */
  PASCAL_JTEXT_ARRAY(w, "sizes");
  for (size_t i = 0; i < x->n_sizes && i < 2; i++)
    put_size_step(w, &x->size[i]);
  pascal_jtext_array_end(w);
  if (x->residency.read)
    put_residency(w, &x->residency);
}

/* The compact "extrapolated" list: each coordinate outside the calibrated
 * range, the range, and what the model did. */
static void put_extrapolations(pascal_jtext *w, const pascal_extrapolations *ex)
{
  PASCAL_JTEXT_ARRAY(w, "extrapolated");
  for (size_t i = 0; i < ex->n && i < PASCAL_EXTRAPOLATION_MAX; i++) {
    const pascal_extrapolation *e = &ex->item[i];
    pascal_jtext_object_begin(w, NULL);
    PASCAL_JTEXT_STRING(w, "coordinate", pascal_coordinate_name(e->coordinate));
    PASCAL_JTEXT_REAL(w, "value", e->value);
    PASCAL_JTEXT_REAL(w, "min", e->min);
    PASCAL_JTEXT_REAL(w, "max", e->max);
    PASCAL_JTEXT_STRING(w, "action", pascal_extrapolation_action_name(e->action));
    pascal_jtext_object_end(w);
  }
  pascal_jtext_array_end(w);
}

/* s appended to t[0..at): the new length (the caller sized t). */
static size_t append(char *t, size_t at, const char *s)
{
  size_t n = strlen(s);
  memcpy(t + at, s, n);
  return at + n;
}

/* The expected error's "method" in words, as JSON text: its sentences
 * are constants (or constants around a rule name, a scope and a count,
 * none of which needs an escape), so the text is put together already
 * quoted and written as it is. */
static size_t error_method(char out[256], const pascal_expected_error *x, int gemm,
                           pascal_rule answer_rule)
{
#define QUOTED(s) "\"" s "\""
  static const char *const scope[2][3] = {
      {"the same family (o, path, d)", "the same (o, path) at other depths",
       "the same (o, path), any rule (none validated with this rule)"},
      {"the calibrated grids", "the calibrated grids", "the calibrated grids, any rule"}};
  switch (x->source) {
  case PASCAL_ERRSRC_NONE:
    return append(out, 0,
                  answer_rule == PASCAL_RULE_RESIDENT
                      ? QUOTED("closed form for N <= C: not validated by the calibration")
                      : QUOTED("no validated key of the calibration fits this answer: unknown"));
  case PASCAL_ERRSRC_IN_SAMPLE:
    return append(out, 0,
                  QUOTED("exact answer: mean error of the fitted model on this reference's own "
                         "runs (in-sample; leave-one-key-out never validates the exact rule)"));
  case PASCAL_ERRSRC_LOKO:
  case PASCAL_ERRSRC_HELD_OUT: {
    char count[24];
    size_t c = sizeof count;
    size_t k = x->n_keys;
    count[--c] = '\0';
    do {
      count[--c] = (char)('0' + k % 10);
      k /= 10;
    } while (k);
    size_t n = append(
        out, 0, x->source == PASCAL_ERRSRC_LOKO ? "\"leave-one-key-out folds" : "\"held-out panel");
    n = append(out, n, ": mean error of the ");
    n = append(out, n, pascal_rule_name(x->rule));
    n = append(out, n, " rule on the ");
    n = append(out, n, count + c);
    n = append(out, n, " nearest validated key(s) of ");
    n = append(out, n, scope[gemm][x->widened < 3 ? x->widened : 2]);
    return append(out, n, "\"");
  }
  case PASCAL_ERRSRC_INTERVAL:
    return append(out, 0,
                  QUOTED("mean error of the out-of-fold residuals of this answer's transfers, "
                         "scaled by how far it is from its references (larger than the nearest "
                         "keys' error)"));
  case PASCAL_ERRSRC_RESIDENCY:
    return append(out, 0,
                  QUOTED("mean error at the two ends of the capacity probe's bracket of the "
                         "share each later pass refetches (larger than the residuals' error)"));
  }
#undef QUOTED
  return append(out, 0, "\"\"");
}

/* How expected_error_pct was obtained, in words and in keys. */
static void put_expected_error(pascal_jtext *w, const pascal_expected_error *x, int gemm,
                               pascal_rule answer_rule)
{
  char method[256];
  size_t method_len = error_method(method, x, gemm, answer_rule);
  PASCAL_JTEXT_OBJECT(w, "expected_error");
  PASCAL_JTEXT_REAL_OR_NULL(w, "pct", x->pct);
  put_error_source(w, x->source);
  PASCAL_JTEXT_KEY(w, "method");
  pascal_jtext_raw(w, NULL, method, method_len);
  PASCAL_JTEXT_ARRAY(w, "keys");
  for (size_t i = 0; i < x->n_keys && i < PASCAL_EXPECTED_KEYS_MAX; i++) {
    pascal_jtext_object_begin(w, NULL);
    if (gemm) {
      PASCAL_JTEXT_UINT(w, "Mg", x->Mg[i]);
      PASCAL_JTEXT_UINT(w, "Ng", x->Ng[i]);
    } else {
      PASCAL_JTEXT_UINT(w, "o", x->key[i].o);
      put_path(w, x->key[i].path);
      PASCAL_JTEXT_UINT(w, "d", x->key[i].d);
      PASCAL_JTEXT_UINT(w, "m", x->key[i].m);
    }
    PASCAL_JTEXT_REAL(w, "error_pct", x->key_pct[i]);
    pascal_jtext_object_end(w);
  }
  pascal_jtext_array_end(w);
  pascal_jtext_object_end(w);
}

/* Theorem coherence's advice, or null when no divergence is predicted. */
static void put_advice(pascal_jtext *w, const pascal_scan_advice *a)
{
  if (!a->given) {
    PASCAL_JTEXT_NULL(w, "advice");
    return;
  }
  PASCAL_JTEXT_OBJECT(w, "advice");
  PASCAL_JTEXT_UINT(w, "sigma_max", a->sigma_max);
  PASCAL_JTEXT_UINT(w, "min_capacity", a->min_capacity);
  PASCAL_JTEXT_UINT(w, "checkpoint_blocks", a->checkpoint_blocks);
  PASCAL_JTEXT_REAL(w, "K_coherent", a->K_coherent);
  PASCAL_JTEXT_REAL(w, "fill_bytes_coherent", a->fill_bytes_coherent);
  PASCAL_JTEXT_REAL(w, "fill_bytes_at_k1", a->fill_bytes_at_k1);
  PASCAL_JTEXT_REAL(w, "fill_bytes_at_stake", a->fill_bytes_at_stake);
  pascal_jtext_object_end(w);
}

/* "interval": K, fills and (when timed) time at the stated level, null when
 * the calibration gave no residual, and for a GEMM whether its
 * configuration was transferred (pascal_answer_interval); "validation"
 * where the family's folds favour aligned K = 1. */
static void put_interval(pascal_jtext *w, const pascal_answer *a)
{
  const pascal_answer_interval *iv = &a->interval;
  if (!iv->known) {
    PASCAL_JTEXT_NULL(w, "interval");
  } else {
    PASCAL_JTEXT_OBJECT(w, "interval");
    PASCAL_JTEXT_REAL(w, "level", iv->level);
    PASCAL_JTEXT_REAL(w, "K_low", iv->K_low);
    PASCAL_JTEXT_REAL(w, "K_high", iv->K_high);
    PASCAL_JTEXT_REAL(w, "fill_bytes_low", iv->fill_bytes_low);
    PASCAL_JTEXT_REAL(w, "fill_bytes_high", iv->fill_bytes_high);
    if (a->timed) {
      PASCAL_JTEXT_REAL_OR_NULL(w, "time_s_low", iv->time_s_low);
      PASCAL_JTEXT_REAL_OR_NULL(w, "time_s_high", iv->time_s_high);
    }
    /* a GEMM's bounds hold at `level` for the configuration measured */
    if (a->workload == PASCAL_WORKLOAD_GEMM)
      PASCAL_JTEXT_BOOL(w, "transferred", iv->transferred);
    pascal_jtext_object_end(w);
  }
  if (a->loses) {
    PASCAL_JTEXT_OBJECT(w, "validation");
    PASCAL_JTEXT_REAL(w, "pascal_pct", a->loss.pascal_pct);
    PASCAL_JTEXT_REAL(w, "aligned_pct", a->loss.aligned_pct);
    pascal_jtext_object_end(w);
  }
}

/* In the explanation: what the interval rests on (its transfers, an
 * extrapolated one with its action, which picks its residual group;
 * whether it read no excess, which picks the aligned group instead; the
 * residuals behind them, borrowed groups, the widening to aligned K = 1). */
static void put_interval_basis(pascal_jtext *w, const pascal_transfers *t,
                               const pascal_answer_interval *iv)
{
  PASCAL_JTEXT_OBJECT(w, "interval");
  PASCAL_JTEXT_ARRAY(w, "transfers");
  for (size_t i = 0; i < t->n; i++) {
    pascal_jtext_object_begin(w, NULL);
    PASCAL_JTEXT_STRING(w, "coordinate", pascal_coordinate_name(t->item[i].coordinate));
    PASCAL_JTEXT_STRING(w, "kind", pascal_transfer_kind_name(t->item[i].kind));
    PASCAL_JTEXT_REAL(w, "distance", t->item[i].distance);
    if (t->item[i].kind == PASCAL_TRANSFER_EXTRAP)
      PASCAL_JTEXT_STRING(w, "action", pascal_extrapolation_action_name(t->item[i].action));
    pascal_jtext_object_end(w);
  }
  pascal_jtext_array_end(w);
  PASCAL_JTEXT_BOOL(w, "aligned", t->aligned);
  PASCAL_JTEXT_UINT(w, "residuals", iv->n_residuals);
  PASCAL_JTEXT_UINT(w, "borrowed", iv->borrowed);
  PASCAL_JTEXT_BOOL(w, "widened_to_aligned", iv->widened_to_aligned);
  pascal_jtext_object_end(w);
}

/* workload, K, rho, fill_bytes, M, rule, expected_error_pct, extrapolated,
 * interval (and validation): the keys every prediction has, first, so that
 * the compact form is a prefix of the explained one. */
/* A workload's name with its quotes and their length, for put_common. */
#define WORKLOAD_TEXT(name) "\"" name "\"", sizeof(name) + 1

static void put_common(pascal_jtext *w, const char *workload, size_t workload_len, double K,
                       double rho, double fill_bytes, uint32_t M, pascal_rule rule,
                       const pascal_expected_error *expected, const pascal_extrapolations *ex,
                       const pascal_answer *a)
{
  PASCAL_JTEXT_KEY(w, "workload");
  pascal_jtext_literal(w, workload, workload_len);
  PASCAL_JTEXT_REAL(w, "K", K);
  PASCAL_JTEXT_REAL(w, "rho", rho);
  PASCAL_JTEXT_REAL(w, "fill_bytes", fill_bytes);
  PASCAL_JTEXT_UINT(w, "M", M);
  put_rule(w, rule);
  PASCAL_JTEXT_REAL_OR_NULL(w, "expected_error_pct", expected->pct);
  put_extrapolations(w, ex);
  put_interval(w, a);
}

/* "query": every field of the workload's table, in its order, each value
 * read at its offset as pascal_query_get reads it. */
static void put_query(pascal_jtext *w, const pascal_query *q)
{
  const pascal_query_field *f;
  size_t n = pascal_query_fields(q->workload, &f);
  PASCAL_JTEXT_OBJECT(w, "query");
  for (size_t i = 0; i < n; i++) {
    /* a GEMM's configuration field is echoed only when given, never as
     * the 0 of its absence (the calibration's value: the "config" object) */
    if (q->workload == PASCAL_WORKLOAD_GEMM && !((q->given >> i) & 1) && !f[i].required)
      continue;
    const char *at = (const char *)q + f[i].offset;
    switch (f[i].type) {
    case PASCAL_QUERY_UINT:
      pascal_jtext_uint(w, f[i].name, *(const uint32_t *)(const void *)at);
      break;
    case PASCAL_QUERY_REAL:
      pascal_jtext_real(w, f[i].name, *(const double *)(const void *)at);
      break;
    case PASCAL_QUERY_PATH:
      put_path_as(w, f[i].name, *(const pascal_path *)(const void *)at);
      break;
    }
  }
  pascal_jtext_object_end(w);
}

static void put_scan(pascal_jtext *w, const pascal_query *q, const pascal_answer *a,
                     pascal_codec_detail detail)
{
  const pascal_scan_prediction *pred = &a->scan;
  put_common(w, WORKLOAD_TEXT("scan"), pred->K, pred->rho, pred->fill_bytes, pred->M,
             pred->why.rule, &pred->expected, &pred->extrapolated, a);
  if (detail == PASCAL_CODEC_COMPACT)
    return;
  put_query(w, q);
  put_scan_explanation(w, &pred->why);
  put_expected_error(w, &pred->expected, 0, pred->why.rule);
  put_interval_basis(w, &pred->transfers, &a->interval);
  put_advice(w, &pred->advice);
  pascal_jtext_object_end(w); /* the explanation holds the expected error and the advice */
}

/* An attention answer: K is the K/V scan's, fill_bytes the launch's (query
 * tiles added); the explained form gives the scan coordinates the launch
 * maps to and the traffic's parts, then the K/V scan's explanation. */
static void put_attention(pascal_jtext *w, const pascal_query *q, const pascal_answer *a,
                          pascal_codec_detail detail)
{
  const pascal_attention_prediction *p = &a->attention;
  const pascal_scan_prediction *kv = &p->kv;
  put_common(w, WORKLOAD_TEXT("attention"), p->K, kv->rho, p->fill_bytes, kv->M, kv->why.rule,
             &kv->expected, &kv->extrapolated, a);
  if (detail == PASCAL_CODEC_COMPACT)
    return;
  put_query(w, q);
  PASCAL_JTEXT_OBJECT(w, "scan");
  PASCAL_JTEXT_UINT(w, "o", p->key.o);
  put_path(w, p->key.path);
  PASCAL_JTEXT_UINT(w, "d", p->key.d);
  PASCAL_JTEXT_UINT(w, "m", p->key.m);
  PASCAL_JTEXT_UINT(w, "N", p->N);
  PASCAL_JTEXT_REAL(w, "W", p->W);
  PASCAL_JTEXT_UINT(w, "ctas", p->ctas);
  pascal_jtext_object_end(w);
  PASCAL_JTEXT_REAL(w, "q_bytes", p->q_bytes);
  PASCAL_JTEXT_REAL(w, "kv_bytes", p->kv_bytes);
  PASCAL_JTEXT_REAL(w, "kv_fill_bytes", kv->fill_bytes);
  PASCAL_JTEXT_REAL(w, "o_bytes", p->o_bytes);
  PASCAL_JTEXT_REAL(w, "B0", p->b0_bytes);
  put_scan_explanation(w, &kv->why);
  put_expected_error(w, &kv->expected, 0, kv->why.rule);
  put_interval_basis(w, &kv->transfers, &a->interval);
  put_advice(w, &kv->advice);
  pascal_jtext_object_end(w); /* the explanation, as for a scan */
}

static void put_gemm_step(pascal_jtext *w, const char *key, const pascal_gemm_step *s)
{
  pascal_jtext_object_begin(w, key);
  put_rule(w, s->rule);
  PASCAL_JTEXT_UINT(w, "left", s->left);
  PASCAL_JTEXT_UINT(w, "right", s->right);
  PASCAL_JTEXT_REAL_OR_NULL(w, "a_left", s->a_left);
  PASCAL_JTEXT_REAL_OR_NULL(w, "a_right", s->a_right);
  PASCAL_JTEXT_REAL_OR_NULL(w, "p", s->p);
  PASCAL_JTEXT_REAL_OR_NULL(w, "a_lin", s->a_lin);
  PASCAL_JTEXT_REAL(w, "a", s->a);
  pascal_jtext_object_end(w);
}

/* "carry": the excess between two reduction lengths carried by V_s, or
 * the lower level's kappa held where V_s is silent (pascal_gemm_carry),
 * null where the answer is not the carry. */
static void put_gemm_carry(pascal_jtext *w, const pascal_gemm_carry *c)
{
  if (!c->carried) {
    PASCAL_JTEXT_NULL(w, "carry");
    return;
  }
  PASCAL_JTEXT_OBJECT(w, "carry");
  PASCAL_JTEXT_STRING(w, "reading", pascal_reading_name(c->reading));
  PASCAL_JTEXT_ARRAY(w, "n_k");
  for (int k = 0; k < 2; k++)
    pascal_jtext_uint(w, NULL, c->n_k[k]);
  pascal_jtext_array_end(w);
  PASCAL_JTEXT_ARRAY(w, "share");
  for (int k = 0; k < 2; k++)
    pascal_jtext_real_or_null_value(w, c->share[k]);
  pascal_jtext_array_end(w);
  PASCAL_JTEXT_REAL_OR_NULL(w, "kappa_s", c->kappa_s);
  pascal_jtext_object_end(w);
}

static void put_gemm_explanation(pascal_jtext *w, const pascal_gemm_explanation *x)
{
  size_t n = x->n_rows < 2 ? x->n_rows : 2;
  PASCAL_JTEXT_OBJECT(w, "explanation");
  put_rule(w, x->rule);
  PASCAL_JTEXT_REAL(w, "a", x->a);
  PASCAL_JTEXT_ARRAY(w, "rows");
  for (size_t i = 0; i < n; i++)
    pascal_jtext_uint(w, NULL, x->row_n_r[i]);
  pascal_jtext_array_end(w);
  PASCAL_JTEXT_ARRAY(w, "columns");
  for (size_t i = 0; i < n; i++)
    put_gemm_step(w, NULL, &x->col[i]);
  pascal_jtext_array_end(w);
  put_gemm_step(w, "row", &x->row);
  put_gemm_carry(w, &x->carry);
}

static void put_config_members(pascal_jtext *w, const pascal_gemm_config *c)
{
  PASCAL_JTEXT_UINT(w, "tile_m", c->tile_m);
  PASCAL_JTEXT_UINT(w, "tile_n", c->tile_n);
  PASCAL_JTEXT_UINT(w, "tile_k", c->tile_k);
  PASCAL_JTEXT_UINT(w, "elem_bytes", c->elem_bytes);
  PASCAL_JTEXT_UINT(w, "stages", c->stages);
  PASCAL_JTEXT_UINT(w, "group_m", c->group_m);
}

/* "config": the configuration answered, what was transferred to it from
 * the calibration's (pascal/gemm_config.h), its occupancy and anchor; in
 * both forms (a tuner ranks from the compact one, which stays a prefix of
 * the explained one). */
static void put_gemm_config(pascal_jtext *w, const pascal_gemm_config_answer *ca)
{
  PASCAL_JTEXT_OBJECT(w, "config");
  put_config_members(w, &ca->config);
  PASCAL_JTEXT_UINT(w, "ctas_per_sm", ca->ctas_per_sm);
  PASCAL_JTEXT_STRING(w, "occupancy", pascal_gemm_occupancy_source_name(ca->occupancy));
  PASCAL_JTEXT_ARRAY(w, "transferred");
  for (unsigned b = 0; b < PASCAL_GEMM_TRANSFER_COUNT; b++)
    if (ca->transferred >> b & 1)
      pascal_jtext_string(w, NULL, pascal_gemm_transfer_name(b));
  pascal_jtext_array_end(w);
  PASCAL_JTEXT_OBJECT(w, "calibrated");
  put_config_members(w, &ca->calibrated);
  pascal_jtext_object_end(w);
  if (ca->smem_per_sm)
    PASCAL_JTEXT_UINT(w, "smem_per_sm", ca->smem_per_sm);
  else
    PASCAL_JTEXT_NULL(w, "smem_per_sm");
  PASCAL_JTEXT_OBJECT(w, "anchor");
  PASCAL_JTEXT_UINT(w, "Mg", ca->anchor.Mg);
  PASCAL_JTEXT_UINT(w, "Ng", ca->anchor.Ng);
  PASCAL_JTEXT_UINT(w, "Kg", ca->anchor.Kg);
  PASCAL_JTEXT_REAL(w, "fill_bytes", ca->anchor_fills);
  pascal_jtext_object_end(w);
  PASCAL_JTEXT_REAL_OR_NULL(w, "static_fills", ca->static_fills);
  PASCAL_JTEXT_REAL_OR_NULL(w, "anchor_static_fills", ca->anchor_static_fills);
  pascal_jtext_object_end(w);
}

static void put_gemm(pascal_jtext *w, const pascal_query *q, const pascal_answer *a,
                     pascal_codec_detail detail)
{
  const pascal_gemm_prediction *p = &a->gemm;
  put_common(w, WORKLOAD_TEXT("gemm"), p->K, p->rho, p->fill_bytes, p->M, p->why.rule, &p->expected,
             &p->extrapolated, a);
  put_gemm_config(w, &a->gemm_config);
  if (detail == PASCAL_CODEC_COMPACT)
    return;
  put_query(w, q);
  PASCAL_JTEXT_UINT(w, "n_r", p->n_r);
  PASCAL_JTEXT_UINT(w, "n_c", p->n_c);
  PASCAL_JTEXT_UINT(w, "n_k", p->n_k);
  PASCAL_JTEXT_REAL(w, "B0", p->B0);
  PASCAL_JTEXT_REAL(w, "Q", p->Q);
  PASCAL_JTEXT_REAL(w, "K0", p->K0);
  PASCAL_JTEXT_REAL(w, "kappa", p->kappa);
  put_gemm_explanation(w, &p->why);
  put_expected_error(w, &p->expected, 1, p->why.rule);
  put_interval_basis(w, &p->transfers, &a->interval);
  PASCAL_JTEXT_NULL(w, "advice"); /* Theorem coherence is about cyclic scans */
  pascal_jtext_object_end(w);     /* the explanation, as for a scan */
}

void pascal_codec_answer_write(pascal_jtext *w, const pascal_query *q, const pascal_answer *a,
                               const pascal_codec_origin *origin, pascal_codec_detail detail)
{
  pascal_jtext_object_begin(w, NULL);
  switch (a->workload) {
  case PASCAL_WORKLOAD_SCAN: put_scan(w, q, a, detail); break;
  case PASCAL_WORKLOAD_GEMM: put_gemm(w, q, a, detail); break;
  case PASCAL_WORKLOAD_ATTENTION: put_attention(w, q, a, detail); break;
  }
  if (origin) {
    PASCAL_JTEXT_STRING(w, "device", origin->device);
    PASCAL_JTEXT_INT(w, "calibration", origin->calibration);
  }
  if (a->timed) {
    PASCAL_JTEXT_REAL(w, "time_s", a->time.time_s);
    put_bound(w, a->time.bound);
    put_time_source(w, a->time.source);
  }
  pascal_jtext_object_end(w);
}

pascal_status pascal_codec_answer_encode(const pascal_query *q, const pascal_answer *a,
                                         const pascal_codec_origin *origin, json_t **out,
                                         pascal_error *err)
{
  pascal_jtext w;
  pascal_jtext_init(&w, 2048);
  pascal_codec_answer_write(&w, q, a, origin, PASCAL_CODEC_EXPLAINED);
  pascal_status st = codec_text_to_tree(&w, out, err);
  pascal_jtext_free(&w);
  return st;
}
