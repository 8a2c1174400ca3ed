/*
 * results_codec.c - JSON form of dynamic results: scan and GEMM predictions
 * with their explanations (paper Algorithm predict, Eq. graph, App. C "GEMM
 * instantiation") and leave-one-key-out reports (Eq. dynamic_selection).
 * Keys are documented in docs/cli.md; the core's NaN ("not used by this
 * rule") is written as null.
 */
#include <stdio.h>
#include <string.h>

#include "json_util.h"
#include "pascal_codec.h"

static pascal_status set_rule(json_t *obj, pascal_rule rule, pascal_error *err)
{
  return codec_set(obj, "rule", json_string(pascal_rule_name(rule)), err);
}

/* A new object stored under `key` of `parent` (or appended when key is NULL). */
static pascal_status child(json_t *parent, const char *key, json_t **out, pascal_error *err)
{
  json_t *obj = json_object();
  *out = obj;
  return key ? codec_set(parent, key, obj, err) : codec_append(parent, obj, "explanation", err);
}

static pascal_status encode_family_step(json_t *arr, const pascal_family_step *f,
                                        double weight, pascal_error *err)
{
  json_t *o;
  pascal_status st;
  if ((st = child(arr, NULL, &o, err)) || (st = codec_set(o, "d", codec_uint(f->d), err)) ||
      (st = codec_set(o, "weight", codec_real(weight), err)) || (st = set_rule(o, f->rule, err)) ||
      (st = codec_set(o, "a", codec_real(f->a), err)) ||
      (st = codec_set(o, "p", codec_real_or_null(f->p), err)) ||
      (st = codec_set(o, "a_lin", codec_real_or_null(f->a_lin), err)) ||
      (st = codec_set(o, "omega", codec_real_or_null(f->omega), err)) ||
      (st = codec_set(o, "c0", codec_real_or_null(f->c0), err)) ||
      (st = codec_set(o, "m_left", codec_uint(f->m_left), err)) ||
      (st = codec_set(o, "m_right", codec_uint(f->m_right), err)) ||
      (st = codec_set(o, "a_left", codec_real_or_null(f->a_left), err)) ||
      (st = codec_set(o, "a_right", codec_real_or_null(f->a_right), err)) ||
      (st = codec_set(o, "m_minus", codec_uint(f->m_minus), err)) ||
      (st = codec_set(o, "m_plus", codec_uint(f->m_plus), err)))
    return st;
  return PASCAL_OK;
}

static pascal_status encode_size_step(json_t *arr, const pascal_size_step *s, pascal_error *err)
{
  json_t *o, *depths;
  pascal_status st;
  if ((st = child(arr, NULL, &o, err)) || (st = codec_set(o, "N", codec_uint(s->N), err)) ||
      (st = codec_set(o, "eta", codec_real(s->eta), err)) ||
      (st = codec_set(o, "weight", codec_real(s->weight), err)) ||
      (st = set_rule(o, s->rule, err)) || (st = codec_set(o, "a", codec_real(s->a), err)) ||
      (st = codec_set(o, "depths", depths = json_array(), err)))
    return st;
  for (size_t i = 0; i < s->n_depths && i < 2; i++)
    if ((st = encode_family_step(depths, &s->depth[i], s->depth_weight[i], err)))
      return st;
  return PASCAL_OK;
}

static pascal_status encode_scan_explanation(json_t *pred, const pascal_scan_explanation *x,
                                             pascal_error *err)
{
  json_t *o, *fam, *sizes;
  pascal_status st;
  if ((st = child(pred, "explanation", &o, err)) || (st = set_rule(o, x->rule, err)) ||
      (st = child(o, "family", &fam, err)) || (st = codec_set(fam, "o", codec_uint(x->o), err)) ||
      (st = codec_set(fam, "path", json_string(pascal_path_name(x->path)), err)) ||
      (st = codec_set(fam, "d", codec_uint(x->d), err)) ||
      (st = codec_set(o, "class", codec_uint(x->class_id), err)) ||
      (st = codec_set(o, "eta", codec_real(x->eta), err)) ||
      (st = codec_set(o, "a", codec_real(x->a), err)) || (st = codec_set(o, "sizes", sizes = json_array(), err)))
    return st;
  for (size_t i = 0; i < x->n_sizes && i < 2; i++)
    if ((st = encode_size_step(sizes, &x->size[i], err)))
      return st;
  return PASCAL_OK;
}

/* K, rho, fill_bytes, M and rule: the keys every prediction has. */
static pascal_status encode_common(json_t *o, const char *workload, double K, double rho,
                                   double fill_bytes, uint32_t M, pascal_rule rule,
                                   pascal_error *err)
{
  pascal_status st;
  if ((st = codec_set(o, "workload", json_string(workload), err)) ||
      (st = codec_set(o, "K", codec_real(K), err)) ||
      (st = codec_set(o, "rho", codec_real(rho), err)) ||
      (st = codec_set(o, "fill_bytes", codec_real(fill_bytes), err)) ||
      (st = codec_set(o, "M", codec_uint(M), err)) || (st = set_rule(o, rule, err)))
    return st;
  return PASCAL_OK;
}

pascal_status pascal_codec_scan_prediction_encode(const pascal_scan_key *key, uint32_t N,
                                                  double W,
                                                  const pascal_scan_prediction *pred,
                                                  json_t **out, pascal_error *err)
{
  json_t *o = json_object(), *q;
  pascal_status st;
  if ((st = encode_common(o, "scan", pred->K, pred->rho, pred->fill_bytes, pred->M,
                          pred->why.rule, err)) ||
      (st = child(o, "query", &q, err)) || (st = codec_set_scan_key(q, key, err)) ||
      (st = codec_set(q, "N", codec_uint(N), err)) ||
      (st = codec_set(q, "W", codec_real(W), err)) ||
      (st = encode_scan_explanation(o, &pred->why, err))) {
    json_decref(o);
    return st;
  }
  *out = o;
  return PASCAL_OK;
}

static pascal_status encode_gemm_step(json_t *parent, const char *key,
                                      const pascal_gemm_step *s, pascal_error *err)
{
  json_t *o;
  pascal_status st;
  if ((st = child(parent, key, &o, err)) || (st = set_rule(o, s->rule, err)) ||
      (st = codec_set(o, "left", codec_uint(s->left), err)) ||
      (st = codec_set(o, "right", codec_uint(s->right), err)) ||
      (st = codec_set(o, "a_left", codec_real_or_null(s->a_left), err)) ||
      (st = codec_set(o, "a_right", codec_real_or_null(s->a_right), err)) ||
      (st = codec_set(o, "p", codec_real_or_null(s->p), err)) ||
      (st = codec_set(o, "a_lin", codec_real_or_null(s->a_lin), err)) ||
      (st = codec_set(o, "a", codec_real(s->a), err)))
    return st;
  return PASCAL_OK;
}

static pascal_status encode_gemm_explanation(json_t *pred, const pascal_gemm_explanation *x,
                                             pascal_error *err)
{
  json_t *o, *rows, *cols;
  pascal_status st;
  size_t n = x->n_rows < 2 ? x->n_rows : 2;
  if ((st = child(pred, "explanation", &o, err)) || (st = set_rule(o, x->rule, err)) ||
      (st = codec_set(o, "a", codec_real(x->a), err)) || (st = codec_set(o, "rows", rows = json_array(), err)) ||
      (st = codec_set(o, "columns", cols = json_array(), err)))
    return st;
  for (size_t i = 0; i < n; i++)
    if ((st = codec_append(rows, codec_uint(x->row_n_r[i]), "explanation.rows", err)) ||
        (st = encode_gemm_step(cols, NULL, &x->col[i], err)))
      return st;
  return encode_gemm_step(o, "row", &x->row, err);
}

pascal_status pascal_codec_gemm_prediction_encode(const pascal_gemm_shape *shape,
                                                  const pascal_gemm_prediction *p,
                                                  json_t **out, pascal_error *err)
{
  json_t *o = json_object(), *q;
  pascal_status st;
  if ((st = encode_common(o, "gemm", p->K, p->rho, p->fill_bytes, p->M, p->why.rule, err)) ||
      (st = child(o, "query", &q, err)) || (st = codec_set(q, "Mg", codec_uint(shape->Mg), err)) ||
      (st = codec_set(q, "Ng", codec_uint(shape->Ng), err)) ||
      (st = codec_set(q, "Kg", codec_uint(shape->Kg), err)) ||
      (st = codec_set(o, "n_r", codec_uint(p->n_r), err)) ||
      (st = codec_set(o, "n_c", codec_uint(p->n_c), err)) ||
      (st = codec_set(o, "n_k", codec_uint(p->n_k), err)) ||
      (st = codec_set(o, "B0", codec_real(p->B0), err)) ||
      (st = codec_set(o, "Q", codec_real(p->Q), err)) ||
      (st = codec_set(o, "K0", codec_real(p->K0), err)) ||
      (st = codec_set(o, "kappa", codec_real(p->kappa), err)) ||
      (st = encode_gemm_explanation(o, &p->why, err))) {
    json_decref(o);
    return st;
  }
  *out = o;
  return PASCAL_OK;
}

/* {"pascal":..,"aligned":..,"sdcm":..,"ppt_gpu":..,"che":..}: method names
 * with '-' turned into '_' so the keys stay snake_case. */
static pascal_status encode_methods(json_t *parent, const char *key, const double *v,
                                    pascal_error *err)
{
  json_t *o;
  pascal_status st = child(parent, key, &o, err);
  for (int m = 0; !st && m < PASCAL_METHOD_COUNT; m++) {
    char name[32];
    snprintf(name, sizeof name, "%s", pascal_method_name((pascal_method)m));
    for (char *c = name; *c; c++)
      if (*c == '-')
        *c = '_';
    st = codec_set(o, name, codec_real_or_null(v[m]), err);
  }
  return st;
}

static pascal_status encode_key_report(json_t *arr, pascal_workload wl,
                                       const pascal_key_report *k, pascal_error *err)
{
  json_t *o;
  pascal_status st = child(arr, NULL, &o, err);
  if (st)
    return st;
  if (wl != PASCAL_WORKLOAD_GEMM)
    st = codec_set_scan_key(o, &k->key, err);
  else if (!(st = codec_set(o, "Mg", codec_uint(k->Mg), err)))
    st = codec_set(o, "Ng", codec_uint(k->Ng), err);
  if (st || (st = codec_set(o, "n_runs", codec_uint(k->n_runs), err)) ||
      (st = codec_set(o, "n_scored", codec_uint(k->n_scored), err)) ||
      (st = encode_methods(o, "mape", k->mape, err)) ||
      (st = codec_set(o, "refusal", k->refusal[0] ? json_string(k->refusal) : json_null(), err)))
    return st;
  return PASCAL_OK;
}

pascal_status pascal_codec_loko_encode(const pascal_loko_report *r, json_t **out,
                                       pascal_error *err)
{
  json_t *o = json_object(), *keys;
  pascal_status st;
  if ((st = codec_set(o, "workload", json_string(pascal_workload_name(r->workload)), err)) ||
      (st = codec_set(o, "n_keys", codec_uint(r->n_keys), err)) ||
      (st = codec_set(o, "n_runs", codec_uint(r->n_runs), err)) ||
      (st = codec_set(o, "n_scored", codec_uint(r->n_scored), err)) ||
      (st = codec_set(o, "n_refused", codec_uint(r->n_refused), err)) ||
      (st = codec_set(o, "n_keys_scored", codec_uint(r->n_keys_scored), err)) ||
      (st = encode_methods(o, "balanced_mape", r->balanced_mape, err)) ||
      (st = codec_set(o, "keys", keys = json_array(), err)))
    goto fail;
  for (size_t i = 0; i < r->n_keys; i++)
    if ((st = encode_key_report(keys, r->workload, &r->keys[i], err)))
      goto fail;
  *out = o;
  return PASCAL_OK;
fail:
  json_decref(o);
  return st;
}
