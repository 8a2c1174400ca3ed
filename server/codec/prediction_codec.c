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
#include <stdio.h>
#include <stdlib.h>

#include "json_util.h"
#include "pascal_codec.h"

static void put_rule(pascal_jtext *w, pascal_rule rule)
{
  pascal_jtext_string(w, "rule", pascal_rule_name(rule));
}

static void put_family_step(pascal_jtext *w, const pascal_family_step *f, double weight)
{
  pascal_jtext_object_begin(w, NULL);
  pascal_jtext_uint(w, "d", f->d);
  pascal_jtext_real(w, "weight", weight);
  put_rule(w, f->rule);
  pascal_jtext_real(w, "a", f->a);
  pascal_jtext_real_or_null(w, "p", f->p);
  pascal_jtext_real_or_null(w, "a_lin", f->a_lin);
  pascal_jtext_real_or_null(w, "omega", f->omega);
  pascal_jtext_real_or_null(w, "c0", f->c0);
  pascal_jtext_uint(w, "m_left", f->m_left);
  pascal_jtext_uint(w, "m_right", f->m_right);
  pascal_jtext_real_or_null(w, "a_left", f->a_left);
  pascal_jtext_real_or_null(w, "a_right", f->a_right);
  pascal_jtext_uint(w, "m_minus", f->m_minus);
  pascal_jtext_uint(w, "m_plus", f->m_plus);
  pascal_jtext_object_end(w);
}

static void put_size_step(pascal_jtext *w, const pascal_size_step *s)
{
  pascal_jtext_object_begin(w, NULL);
  pascal_jtext_uint(w, "N", s->N);
  pascal_jtext_real(w, "eta", s->eta);
  pascal_jtext_real(w, "weight", s->weight);
  put_rule(w, s->rule);
  pascal_jtext_real(w, "a", s->a);
  pascal_jtext_array_begin(w, "depths");
  for (size_t i = 0; i < s->n_depths && i < 2; i++)
    put_family_step(w, &s->depth[i], s->depth_weight[i]);
  pascal_jtext_array_end(w);
  pascal_jtext_object_end(w);
}

static void put_scan_explanation(pascal_jtext *w, const pascal_scan_explanation *x)
{
  pascal_jtext_object_begin(w, "explanation");
  put_rule(w, x->rule);
  pascal_jtext_object_begin(w, "family");
  pascal_jtext_uint(w, "o", x->o);
  pascal_jtext_string(w, "path", pascal_path_name(x->path));
  pascal_jtext_uint(w, "d", x->d);
  pascal_jtext_object_end(w);
  pascal_jtext_uint(w, "class", x->class_id);
  pascal_jtext_real(w, "eta", x->eta);
  pascal_jtext_real_or_null(w, "a", x->a); /* null: rule resident reads no curve */
  pascal_jtext_array_begin(w, "sizes");
  for (size_t i = 0; i < x->n_sizes && i < 2; i++)
    put_size_step(w, &x->size[i]);
  pascal_jtext_array_end(w);
}

/* The compact "extrapolated" list: each coordinate outside the calibrated
 * range, the range, and what the model did. */
static void put_extrapolations(pascal_jtext *w, const pascal_extrapolations *ex)
{
  pascal_jtext_array_begin(w, "extrapolated");
  for (size_t i = 0; i < ex->n && i < PASCAL_EXTRAPOLATION_MAX; i++) {
    const pascal_extrapolation *e = &ex->item[i];
    pascal_jtext_object_begin(w, NULL);
    pascal_jtext_string(w, "coordinate", pascal_coordinate_name(e->coordinate));
    pascal_jtext_real(w, "value", e->value);
    pascal_jtext_real(w, "min", e->min);
    pascal_jtext_real(w, "max", e->max);
    pascal_jtext_string(w, "action", pascal_extrapolation_action_name(e->action));
    pascal_jtext_object_end(w);
  }
  pascal_jtext_array_end(w);
}

/* How expected_error_pct was obtained, in words and in keys. */
static void put_expected_error(pascal_jtext *w, const pascal_expected_error *x, int gemm,
                               pascal_rule answer_rule)
{
  static const char *const scope[2][3] = {
      {"the same family (o, path, d)", "the same (o, path) at other depths",
       "the same (o, path), any rule (none validated with this rule)"},
      {"the calibrated grids", "the calibrated grids", "the calibrated grids, any rule"}};
  char method[256];
  const char *rule = pascal_rule_name(x->rule);
  switch (x->source) {
  case PASCAL_ERRSRC_NONE:
    snprintf(method, sizeof method, "%s",
             answer_rule == PASCAL_RULE_RESIDENT
                 ? "closed form for N <= C: not validated by the calibration"
                 : "no validated key of the calibration fits this answer: unknown");
    break;
  case PASCAL_ERRSRC_IN_SAMPLE:
    snprintf(method, sizeof method,
             "exact answer: mean error of the fitted model on this reference's own runs "
             "(in-sample; leave-one-key-out never validates the exact rule)");
    break;
  case PASCAL_ERRSRC_LOKO:
  case PASCAL_ERRSRC_HELD_OUT:
    snprintf(method, sizeof method,
             "%s: mean error of the %s rule on the %zu nearest validated "
             "key(s) of %s",
             x->source == PASCAL_ERRSRC_LOKO ? "leave-one-key-out folds" : "held-out panel", rule,
             x->n_keys, scope[gemm][x->widened < 3 ? x->widened : 2]);
    break;
  case PASCAL_ERRSRC_INTERVAL:
    snprintf(method, sizeof method,
             "mean error of the out-of-fold residuals of this answer's transfers, scaled by "
             "how far it is from its references (larger than the nearest keys' error)");
    break;
  }
  pascal_jtext_object_begin(w, "expected_error");
  pascal_jtext_real_or_null(w, "pct", x->pct);
  pascal_jtext_string(w, "source", pascal_error_source_name(x->source));
  pascal_jtext_string(w, "method", method);
  pascal_jtext_array_begin(w, "keys");
  for (size_t i = 0; i < x->n_keys && i < PASCAL_EXPECTED_KEYS_MAX; i++) {
    pascal_jtext_object_begin(w, NULL);
    if (gemm) {
      pascal_jtext_uint(w, "Mg", x->Mg[i]);
      pascal_jtext_uint(w, "Ng", x->Ng[i]);
    } else {
      pascal_jtext_uint(w, "o", x->key[i].o);
      pascal_jtext_string(w, "path", pascal_path_name(x->key[i].path));
      pascal_jtext_uint(w, "d", x->key[i].d);
      pascal_jtext_uint(w, "m", x->key[i].m);
    }
    pascal_jtext_real(w, "error_pct", x->key_pct[i]);
    pascal_jtext_object_end(w);
  }
  pascal_jtext_array_end(w);
  pascal_jtext_object_end(w);
}

/* Theorem coherence's advice, or null when no divergence is predicted. */
static void put_advice(pascal_jtext *w, const pascal_scan_advice *a)
{
  if (!a->given) {
    pascal_jtext_null(w, "advice");
    return;
  }
  pascal_jtext_object_begin(w, "advice");
  pascal_jtext_uint(w, "sigma_max", a->sigma_max);
  pascal_jtext_uint(w, "min_capacity", a->min_capacity);
  pascal_jtext_uint(w, "checkpoint_blocks", a->checkpoint_blocks);
  pascal_jtext_real(w, "K_coherent", a->K_coherent);
  pascal_jtext_real(w, "fill_bytes_coherent", a->fill_bytes_coherent);
  pascal_jtext_real(w, "fill_bytes_at_k1", a->fill_bytes_at_k1);
  pascal_jtext_real(w, "fill_bytes_at_stake", a->fill_bytes_at_stake);
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
    pascal_jtext_null(w, "interval");
  } else {
    pascal_jtext_object_begin(w, "interval");
    pascal_jtext_real(w, "level", iv->level);
    pascal_jtext_real(w, "K_low", iv->K_low);
    pascal_jtext_real(w, "K_high", iv->K_high);
    pascal_jtext_real(w, "fill_bytes_low", iv->fill_bytes_low);
    pascal_jtext_real(w, "fill_bytes_high", iv->fill_bytes_high);
    if (a->timed) {
      pascal_jtext_real_or_null(w, "time_s_low", iv->time_s_low);
      pascal_jtext_real_or_null(w, "time_s_high", iv->time_s_high);
    }
    /* a GEMM's bounds hold at `level` for the configuration measured */
    if (a->workload == PASCAL_WORKLOAD_GEMM)
      pascal_jtext_bool(w, "transferred", iv->transferred);
    pascal_jtext_object_end(w);
  }
  if (a->loses) {
    pascal_jtext_object_begin(w, "validation");
    pascal_jtext_real(w, "pascal_pct", a->loss.pascal_pct);
    pascal_jtext_real(w, "aligned_pct", a->loss.aligned_pct);
    pascal_jtext_object_end(w);
  }
}

/* In the explanation: what the interval rests on (its transfers, the
 * residuals behind them, borrowed groups, the widening to aligned K = 1). */
static void put_interval_basis(pascal_jtext *w, const pascal_transfers *t,
                               const pascal_answer_interval *iv)
{
  pascal_jtext_object_begin(w, "interval");
  pascal_jtext_array_begin(w, "transfers");
  for (size_t i = 0; i < t->n; i++) {
    pascal_jtext_object_begin(w, NULL);
    pascal_jtext_string(w, "coordinate", pascal_coordinate_name(t->item[i].coordinate));
    pascal_jtext_string(w, "kind", pascal_transfer_kind_name(t->item[i].kind));
    pascal_jtext_real(w, "distance", t->item[i].distance);
    pascal_jtext_object_end(w);
  }
  pascal_jtext_array_end(w);
  pascal_jtext_uint(w, "residuals", iv->n_residuals);
  pascal_jtext_uint(w, "borrowed", iv->borrowed);
  pascal_jtext_bool(w, "widened_to_aligned", iv->widened_to_aligned);
  pascal_jtext_object_end(w);
}

/* workload, K, rho, fill_bytes, M, rule, expected_error_pct, extrapolated,
 * interval (and validation): the keys every prediction has, first, so that
 * the compact form is a prefix of the explained one. */
static void put_common(pascal_jtext *w, const char *workload, double K, double rho,
                       double fill_bytes, uint32_t M, pascal_rule rule,
                       const pascal_expected_error *expected, const pascal_extrapolations *ex,
                       const pascal_answer *a)
{
  pascal_jtext_string(w, "workload", workload);
  pascal_jtext_real(w, "K", K);
  pascal_jtext_real(w, "rho", rho);
  pascal_jtext_real(w, "fill_bytes", fill_bytes);
  pascal_jtext_uint(w, "M", M);
  put_rule(w, rule);
  pascal_jtext_real_or_null(w, "expected_error_pct", expected->pct);
  put_extrapolations(w, ex);
  put_interval(w, a);
}

/* "query": every field of the workload's table, in its order. */
static void put_query(pascal_jtext *w, const pascal_query *q)
{
  const pascal_query_field *f;
  size_t n = pascal_query_fields(q->workload, &f);
  pascal_jtext_object_begin(w, "query");
  for (size_t i = 0; i < n; i++) {
    /* a GEMM's configuration field is echoed only when given, never as
     * the 0 of its absence (the calibration's value: the "config" object) */
    if (q->workload == PASCAL_WORKLOAD_GEMM && !((q->given >> i) & 1) && !f[i].required)
      continue;
    pascal_query_value v;
    pascal_query_get(q, i, &v);
    switch (f[i].type) {
    case PASCAL_QUERY_UINT: pascal_jtext_uint(w, f[i].name, v.u); break;
    case PASCAL_QUERY_REAL: pascal_jtext_real(w, f[i].name, v.r); break;
    case PASCAL_QUERY_PATH: pascal_jtext_string(w, f[i].name, v.text); break;
    }
  }
  pascal_jtext_object_end(w);
}

static void put_scan(pascal_jtext *w, const pascal_query *q, const pascal_answer *a,
                     pascal_codec_detail detail)
{
  const pascal_scan_prediction *pred = &a->scan;
  put_common(w, "scan", pred->K, pred->rho, pred->fill_bytes, pred->M, pred->why.rule,
             &pred->expected, &pred->extrapolated, a);
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
  put_common(w, "attention", p->K, kv->rho, p->fill_bytes, kv->M, kv->why.rule, &kv->expected,
             &kv->extrapolated, a);
  if (detail == PASCAL_CODEC_COMPACT)
    return;
  put_query(w, q);
  pascal_jtext_object_begin(w, "scan");
  pascal_jtext_uint(w, "o", p->key.o);
  pascal_jtext_string(w, "path", pascal_path_name(p->key.path));
  pascal_jtext_uint(w, "d", p->key.d);
  pascal_jtext_uint(w, "m", p->key.m);
  pascal_jtext_uint(w, "N", p->N);
  pascal_jtext_real(w, "W", p->W);
  pascal_jtext_uint(w, "ctas", p->ctas);
  pascal_jtext_object_end(w);
  pascal_jtext_real(w, "q_bytes", p->q_bytes);
  pascal_jtext_real(w, "kv_bytes", p->kv_bytes);
  pascal_jtext_real(w, "kv_fill_bytes", kv->fill_bytes);
  pascal_jtext_real(w, "o_bytes", p->o_bytes);
  pascal_jtext_real(w, "B0", p->b0_bytes);
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
  pascal_jtext_uint(w, "left", s->left);
  pascal_jtext_uint(w, "right", s->right);
  pascal_jtext_real_or_null(w, "a_left", s->a_left);
  pascal_jtext_real_or_null(w, "a_right", s->a_right);
  pascal_jtext_real_or_null(w, "p", s->p);
  pascal_jtext_real_or_null(w, "a_lin", s->a_lin);
  pascal_jtext_real(w, "a", s->a);
  pascal_jtext_object_end(w);
}

static void put_gemm_explanation(pascal_jtext *w, const pascal_gemm_explanation *x)
{
  size_t n = x->n_rows < 2 ? x->n_rows : 2;
  pascal_jtext_object_begin(w, "explanation");
  put_rule(w, x->rule);
  pascal_jtext_real(w, "a", x->a);
  pascal_jtext_array_begin(w, "rows");
  for (size_t i = 0; i < n; i++)
    pascal_jtext_uint(w, NULL, x->row_n_r[i]);
  pascal_jtext_array_end(w);
  pascal_jtext_array_begin(w, "columns");
  for (size_t i = 0; i < n; i++)
    put_gemm_step(w, NULL, &x->col[i]);
  pascal_jtext_array_end(w);
  put_gemm_step(w, "row", &x->row);
}

static void put_config_members(pascal_jtext *w, const pascal_gemm_config *c)
{
  pascal_jtext_uint(w, "tile_m", c->tile_m);
  pascal_jtext_uint(w, "tile_n", c->tile_n);
  pascal_jtext_uint(w, "tile_k", c->tile_k);
  pascal_jtext_uint(w, "elem_bytes", c->elem_bytes);
  pascal_jtext_uint(w, "stages", c->stages);
  pascal_jtext_uint(w, "group_m", c->group_m);
}

/* "config": the configuration answered, what was transferred to it from
 * the calibration's (pascal/gemm_config.h), its occupancy and anchor; in
 * both forms (a tuner ranks from the compact one, which stays a prefix of
 * the explained one). */
static void put_gemm_config(pascal_jtext *w, const pascal_gemm_config_answer *ca)
{
  pascal_jtext_object_begin(w, "config");
  put_config_members(w, &ca->config);
  pascal_jtext_uint(w, "ctas_per_sm", ca->ctas_per_sm);
  pascal_jtext_string(w, "occupancy", pascal_gemm_occupancy_source_name(ca->occupancy));
  pascal_jtext_array_begin(w, "transferred");
  for (unsigned b = 0; b < PASCAL_GEMM_TRANSFER_COUNT; b++)
    if (ca->transferred >> b & 1)
      pascal_jtext_string(w, NULL, pascal_gemm_transfer_name(b));
  pascal_jtext_array_end(w);
  pascal_jtext_object_begin(w, "calibrated");
  put_config_members(w, &ca->calibrated);
  pascal_jtext_object_end(w);
  if (ca->smem_per_sm)
    pascal_jtext_uint(w, "smem_per_sm", ca->smem_per_sm);
  else
    pascal_jtext_null(w, "smem_per_sm");
  pascal_jtext_object_begin(w, "anchor");
  pascal_jtext_uint(w, "Mg", ca->anchor.Mg);
  pascal_jtext_uint(w, "Ng", ca->anchor.Ng);
  pascal_jtext_uint(w, "Kg", ca->anchor.Kg);
  pascal_jtext_real(w, "fill_bytes", ca->anchor_fills);
  pascal_jtext_object_end(w);
  pascal_jtext_real_or_null(w, "static_fills", ca->static_fills);
  pascal_jtext_real_or_null(w, "anchor_static_fills", ca->anchor_static_fills);
  pascal_jtext_object_end(w);
}

static void put_gemm(pascal_jtext *w, const pascal_query *q, const pascal_answer *a,
                     pascal_codec_detail detail)
{
  const pascal_gemm_prediction *p = &a->gemm;
  put_common(w, "gemm", p->K, p->rho, p->fill_bytes, p->M, p->why.rule, &p->expected,
             &p->extrapolated, a);
  put_gemm_config(w, &a->gemm_config);
  if (detail == PASCAL_CODEC_COMPACT)
    return;
  put_query(w, q);
  pascal_jtext_uint(w, "n_r", p->n_r);
  pascal_jtext_uint(w, "n_c", p->n_c);
  pascal_jtext_uint(w, "n_k", p->n_k);
  pascal_jtext_real(w, "B0", p->B0);
  pascal_jtext_real(w, "Q", p->Q);
  pascal_jtext_real(w, "K0", p->K0);
  pascal_jtext_real(w, "kappa", p->kappa);
  put_gemm_explanation(w, &p->why);
  put_expected_error(w, &p->expected, 1, p->why.rule);
  put_interval_basis(w, &p->transfers, &a->interval);
  pascal_jtext_null(w, "advice"); /* Theorem coherence is about cyclic scans */
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
    pascal_jtext_string(w, "device", origin->device);
    pascal_jtext_int(w, "calibration", origin->calibration);
  }
  if (a->timed) {
    pascal_jtext_real(w, "time_s", a->time.time_s);
    pascal_jtext_string(w, "bound", pascal_bound_name(a->time.bound));
    pascal_jtext_string(w, "time_source", pascal_time_source_name(a->time.source));
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
