/*
 * query.c - the field tables of each workload's query, the typed access to
 * a field through its table, the workload a set of fields asks for and the
 * check of a whole query (pascal/query.h; paper section 4: a scan key
 * z = (o, path, d, m) with its size N and horizon W, Algorithm predict; a
 * GEMM shape, App. C "GEMM instantiation"; an attention launch,
 * pascal/attention.h).
 */
#include "pascal/query.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pascal/plan.h"

#define SCAN(member) offsetof(pascal_query, scan.member)
#define GEMM(member) offsetof(pascal_query, gemm.member)
#define ATT(member)  offsetof(pascal_query, attention.shape.member)
static const pascal_query_field scan_fields[] = {
    {"o", PASCAL_QUERY_UINT, true, true, 1, PASCAL_PLAN_MAX_OCCUPANCY, SCAN(key.o),
     "resident CTAs per SM", "2", false},
    {"path", PASCAL_QUERY_PATH, true, true, 0, 0, SCAN(key.path), "load path: sync or tma", "tma",
     false},
    {"d", PASCAL_QUERY_UINT, false, true, 0, PASCAL_PLAN_MAX_DEPTH, SCAN(key.d),
     "TMA pipeline depth: >= 1 for tma, 0 (or absent) for sync", "3", false},
    {"m", PASCAL_QUERY_UINT, true, true, 0, PASCAL_PLAN_MAX_COMPUTE, SCAN(key.m),
     "matrix instructions per block", "7", false},
    {"N", PASCAL_QUERY_UINT, true, true, 1, UINT32_MAX, SCAN(N), "blocks per scan", "6144", false},
    {"W", PASCAL_QUERY_REAL, true, true, PASCAL_PREDICT_W_MIN, PASCAL_PREDICT_W_MAX, SCAN(W),
     "horizon: scans per resident CTA slot (CTA waves)", "64", false},
};
#define SCAN_D 2 /* scan_fields[SCAN_D] is d, whose rule is check_scan's */
static const pascal_query_field gemm_fields[] = {
    {"Mg", PASCAL_QUERY_UINT, true, true, 1, UINT32_MAX, GEMM(shape.Mg), "rows of C (and of A)",
     "1024", false},
    {"Ng", PASCAL_QUERY_UINT, true, true, 1, UINT32_MAX, GEMM(shape.Ng), "columns of C (and of B)",
     "1024", false},
    {"Kg", PASCAL_QUERY_UINT, true, true, 1, UINT32_MAX, GEMM(shape.Kg), "the reduction dimension",
     "4096", false},
    {"tile_m", PASCAL_QUERY_UINT, false, true, 1, PASCAL_QUERY_TILE_MAX, GEMM(config.tile_m),
     "output rows per CTA (Triton BLOCK_M); absent: the calibration's", "128", true},
    {"tile_n", PASCAL_QUERY_UINT, false, true, 1, PASCAL_QUERY_TILE_MAX, GEMM(config.tile_n),
     "output columns per CTA (Triton BLOCK_N); absent: the calibration's", "128", true},
    {"tile_k", PASCAL_QUERY_UINT, false, true, 1, PASCAL_QUERY_TILE_MAX, GEMM(config.tile_k),
     "reduction step per k-iteration (Triton BLOCK_K); absent: the calibration's", "64", true},
    {"elem_bytes", PASCAL_QUERY_UINT, false, false, 1, 8, GEMM(config.elem_bytes),
     "bytes per input element: 1, 2, 4 or 8; absent: the calibration's", "2", true},
    {"stages", PASCAL_QUERY_UINT, false, false, 1, PASCAL_GEMM_STAGES_MAX, GEMM(config.stages),
     "k-steps of tiles a CTA keeps buffered (Triton num_stages); absent: the calibration's", "3",
     true},
    {"group_m", PASCAL_QUERY_UINT, false, true, 1, PASCAL_QUERY_GROUP_MAX, GEMM(config.group_m),
     "tile rows per raster group (Triton GROUP_SIZE_M; 1: direct); absent: the calibration's", "8",
     true},
};
#define GEMM_SHAPE_FIELDS 3 /* Mg, Ng, Kg; then the configuration */
#define GEMM_ELEM_BYTES                                                                            \
  6 /* gemm_fields[GEMM_ELEM_BYTES] is elem_bytes, whose rule is check_gemm's */

/* The tiling members are optional (0: the calibration's); a value the
 * calibration does not have is the model's refusal, not a range. */
static const pascal_query_field attention_fields[] = {
    {"seq_q", PASCAL_QUERY_UINT, true, true, 1, INT32_MAX, ATT(seq_q), "query sequence length",
     "4096", false},
    {"seq_kv", PASCAL_QUERY_UINT, true, true, 1, INT32_MAX, ATT(seq_kv),
     "key/value sequence length", "16384", false},
    {"heads", PASCAL_QUERY_UINT, true, true, 1, 65536, ATT(heads), "query heads", "8", false},
    {"kv_heads", PASCAL_QUERY_UINT, false, true, 1, 65536, ATT(kv_heads),
     "key/value heads (absent: 1, multi-query; only 1 is modelled)", "1", false},
    {"head_dim", PASCAL_QUERY_UINT, true, true, 1, 1024, ATT(head_dim),
     "columns of Q, K, V and O (the calibration's)", "64", false},
    {"block_q", PASCAL_QUERY_UINT, false, true, 1, 1024, ATT(block_q),
     "query rows per CTA (absent: the calibration's)", "64", true},
    {"block_kv", PASCAL_QUERY_UINT, false, true, 1, 1024, ATT(block_kv),
     "K/V rows per pipeline step (absent: the calibration's)", "64", true},
    {"stages", PASCAL_QUERY_UINT, true, false, 1, PASCAL_PLAN_MAX_DEPTH, ATT(stages),
     "pipeline depth of the K/V stream (a calibrated depth)", "2", false},
    {"elem_bytes", PASCAL_QUERY_UINT, false, false, 1, 8, ATT(elem_bytes),
     "bytes per element (absent: the calibration's)", "2", true},
    {"causal", PASCAL_QUERY_UINT, false, true, 0, 1, ATT(causal),
     "1: causal mask (not modelled: refused); absent or 0: none", "0", false},
};
#undef SCAN
#undef GEMM
#undef ATT
#define ATT_HEADS    2 /* attention_fields[ATT_HEADS] is heads    */
#define ATT_KV_HEADS 3 /* attention_fields[ATT_KV_HEADS] is kv_heads */
_Static_assert(sizeof scan_fields / sizeof *scan_fields <= PASCAL_QUERY_FIELDS_MAX &&
                   sizeof gemm_fields / sizeof *gemm_fields <= PASCAL_QUERY_FIELDS_MAX &&
                   sizeof attention_fields / sizeof *attention_fields <= PASCAL_QUERY_FIELDS_MAX,
               "`given` has a bit for every field");

size_t pascal_query_fields(pascal_workload workload, const pascal_query_field **out)
{
  switch (workload) {
  case PASCAL_WORKLOAD_SCAN: *out = scan_fields; return sizeof scan_fields / sizeof *scan_fields;
  case PASCAL_WORKLOAD_GEMM: *out = gemm_fields; return sizeof gemm_fields / sizeof *gemm_fields;
  case PASCAL_WORKLOAD_ATTENTION:
    *out = attention_fields;
    return sizeof attention_fields / sizeof *attention_fields;
  }
  *out = NULL;
  return 0;
}

int pascal_query_field_index(pascal_workload workload, const char *name, size_t len)
{
  const pascal_query_field *f;
  size_t n = pascal_query_fields(workload, &f);
  for (size_t i = 0; i < n; i++)
    if (strncmp(f[i].name, name, len) == 0 && f[i].name[len] == '\0')
      return (int)i;
  return -1;
}

/* The bits of `given` the fields of a table of n fields may have. */
static uint32_t all_given(size_t n)
{
  return n < 32 ? (UINT32_C(1) << n) - 1 : UINT32_MAX;
}

static double number_at(const pascal_query *q, const pascal_query_field *f);

/* An empty query of `workload` with the given bits. */
static void query_init(pascal_query *q, pascal_workload workload, uint32_t given)
{
  memset(q, 0, sizeof *q);
  q->workload = workload;
  q->given = given;
}

pascal_query pascal_query_scan(const pascal_scan_key *key, uint32_t N, double W)
{
  pascal_query q;
  query_init(&q, PASCAL_WORKLOAD_SCAN, all_given(sizeof scan_fields / sizeof *scan_fields));
  q.scan = (pascal_scan_query){*key, N, W};
  return q;
}

pascal_query pascal_query_gemm(const pascal_gemm_shape *shape, const pascal_gemm_config *config)
{
  pascal_query q;
  query_init(&q, PASCAL_WORKLOAD_GEMM, all_given(GEMM_SHAPE_FIELDS));
  q.gemm.shape = *shape;
  if (config) {
    q.gemm.config = *config;
    for (size_t i = GEMM_SHAPE_FIELDS; i < sizeof gemm_fields / sizeof *gemm_fields; i++)
      if (number_at(&q, &gemm_fields[i]) != 0)
        q.given |= UINT32_C(1) << i;
  }
  return q;
}

pascal_query pascal_query_attention(const pascal_attention_shape *shape)
{
  pascal_query q;
  query_init(&q, PASCAL_WORKLOAD_ATTENTION,
             all_given(sizeof attention_fields / sizeof *attention_fields));
  q.attention.shape = *shape;
  return q;
}

/* "prefix.name", or "name" without a prefix. */
static void field_name(char out[PASCAL_ERROR_FIELD_MAX], const char *prefix, const char *name)
{
  snprintf(out, PASCAL_ERROR_FIELD_MAX, "%s%s%s", prefix ? prefix : "", prefix ? "." : "", name);
}

/* The field `index` of q's table (its index checked). */
static const pascal_query_field *field_of(const pascal_query *q, size_t index)
{
  const pascal_query_field *f;
  size_t n = pascal_query_fields(q->workload, &f);
  assert(index < n);
  return index < n ? &f[index] : NULL;
}

/* A number field's value (UINT or REAL). */
static double number_at(const pascal_query *q, const pascal_query_field *f)
{
  const char *at = (const char *)q + f->offset;
  return f->type == PASCAL_QUERY_UINT ? (double)*(const uint32_t *)(const void *)at
                                      : *(const double *)(const void *)at;
}

/* The errors of pascal_query_build and pascal_query_check, kept out of their
 * paths (a batch reads and checks thousands of queries; an error formats
 * its field's name once). */
__attribute__((noinline, cold)) static pascal_status
out_of_range(const pascal_query_field *f, const char *prefix, pascal_error *err)
{
  char name[PASCAL_ERROR_FIELD_MAX];
  field_name(name, prefix, f->name);
  if (f->type == PASCAL_QUERY_UINT)
    return pascal_error_set(err, PASCAL_ERANGE, name, "field '%s' must be in [%.0f, %.0f]", name,
                            f->lo, f->hi);
  return pascal_error_set(err, PASCAL_ERANGE, name, "field '%s' must be in [%g, %g]", name, f->lo,
                          f->hi);
}

__attribute__((noinline, cold)) static pascal_status
not_a_path(const pascal_query_field *f, const char *text, const char *prefix, pascal_error *err)
{
  char name[PASCAL_ERROR_FIELD_MAX];
  pascal_path path;
  field_name(name, prefix, f->name);
  return pascal_path_parse(text, name, &path, err);
}

void pascal_query_get(const pascal_query *q, size_t index, pascal_query_value *out)
{
  const pascal_query_field *f = field_of(q, index);
  memset(out, 0, sizeof *out);
  if (!f)
    return;
  const char *at = (const char *)q + f->offset;
  switch (f->type) {
  case PASCAL_QUERY_UINT: out->u = *(const uint32_t *)(const void *)at; break;
  case PASCAL_QUERY_REAL: out->r = *(const double *)(const void *)at; break;
  case PASCAL_QUERY_PATH:
    out->text = pascal_path_name(*(const pascal_path *)(const void *)at);
    break;
  }
}

/* The first marking field of `w`'s table that is given, or NULL. */
static const char *own_given(pascal_workload w, int (*given)(const char *, void *), void *arg)
{
  const pascal_query_field *f;
  size_t n = pascal_query_fields(w, &f);
  for (size_t i = 0; i < n; i++)
    if (f[i].marks && given(f[i].name, arg))
      return f[i].name;
  return NULL;
}

pascal_status pascal_query_workload(int (*given)(const char *name, void *arg), void *arg,
                                    const char *prefix, pascal_workload *out, pascal_error *err)
{
  const char *scan = own_given(PASCAL_WORKLOAD_SCAN, given, arg);
  const char *gemm = own_given(PASCAL_WORKLOAD_GEMM, given, arg);
  const char *attention = own_given(PASCAL_WORKLOAD_ATTENTION, given, arg);
  const char *mixed = gemm && scan ? gemm : attention && (scan || gemm) ? attention : NULL;
  if (mixed) {
    char name[PASCAL_ERROR_FIELD_MAX];
    field_name(name, prefix, mixed);
    return pascal_error_set(err, PASCAL_EINVAL, name, "%s",
                            mixed == gemm ? PASCAL_PREDICT_MIXED_MESSAGE
                                          : PASCAL_PREDICT_MIXED_ATTENTION_MESSAGE);
  }
  *out = attention ? PASCAL_WORKLOAD_ATTENTION : gemm ? PASCAL_WORKLOAD_GEMM : PASCAL_WORKLOAD_SCAN;
  return PASCAL_OK;
}

/* A scan's path is one of the two, and its depth belongs to it: never a
 * silent d = 0 for tma. */
static pascal_status check_scan(const pascal_query *q, const char *prefix, pascal_error *err)
{
  const pascal_scan_key *k = &q->scan.key;
  if (k->path != PASCAL_PATH_SYNC && k->path != PASCAL_PATH_TMA) {
    char name[PASCAL_ERROR_FIELD_MAX];
    field_name(name, prefix, "path");
    return pascal_error_set(err, PASCAL_EINVAL, name, "path must be \"sync\" or \"tma\"");
  }
  assert(scan_fields[SCAN_D].offset == offsetof(pascal_query, scan.key.d));
  if (k->path == PASCAL_PATH_TMA ? k->d != 0 : k->d == 0)
    return PASCAL_OK;
  int given = (q->given >> SCAN_D) & 1;
  char name[PASCAL_ERROR_FIELD_MAX];
  field_name(name, prefix, "d");
  if (k->path == PASCAL_PATH_TMA && !given)
    return pascal_error_set(err, PASCAL_EMISSING, name,
                            "field '%s' (prefetch depth >= 1) is required for path tma", name);
  if (k->path == PASCAL_PATH_TMA)
    return pascal_error_set(err, PASCAL_EINVAL, name,
                            "field '%s' must be >= 1 for path tma (d = 0 is the sync path)", name);
  return pascal_error_set(err, PASCAL_EINVAL, name,
                          "field '%s' must be 0 (or absent) for path sync", name);
}

/* A GEMM's element size is one a matrix unit reads. */
static pascal_status check_gemm(const pascal_query *q, const char *prefix, pascal_error *err)
{
  assert(gemm_fields[GEMM_ELEM_BYTES].offset == offsetof(pascal_query, gemm.config.elem_bytes));
  uint32_t e = q->gemm.config.elem_bytes;
  if (!((q->given >> GEMM_ELEM_BYTES) & 1) || e == 1 || e == 2 || e == 4 || e == 8)
    return PASCAL_OK;
  char name[PASCAL_ERROR_FIELD_MAX];
  field_name(name, prefix, "elem_bytes");
  return pascal_error_set(err, PASCAL_EINVAL, name, "field '%s' must be 1, 2, 4 or 8", name);
}

/* Attention's kv_heads (1 when absent) divides its heads. */
static pascal_status check_attention(const pascal_query *q, const char *prefix, pascal_error *err)
{
  assert(attention_fields[ATT_HEADS].offset == offsetof(pascal_query, attention.shape.heads) &&
         attention_fields[ATT_KV_HEADS].offset == offsetof(pascal_query, attention.shape.kv_heads));
  const pascal_attention_shape *s = &q->attention.shape;
  if (!((q->given >> ATT_KV_HEADS) & 1) || s->heads % s->kv_heads == 0)
    return PASCAL_OK;
  char name[PASCAL_ERROR_FIELD_MAX];
  field_name(name, prefix, "kv_heads");
  return pascal_error_set(err, PASCAL_EINVAL, name, "field '%s' (%u) must divide heads (%u)", name,
                          s->kv_heads, s->heads);
}

/* Every required field given, and (when `ranges`) every number in its
 * range; then the workload's rules. */
static pascal_status check(const pascal_query *q, int ranges, const char *prefix, pascal_error *err)
{
  const pascal_query_field *f;
  size_t n = pascal_query_fields(q->workload, &f);
  if (n == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "workload", "unknown workload");
  for (size_t i = 0; i < n; i++) {
    if (!((q->given >> i) & 1)) {
      if (!f[i].required)
        continue;
      char name[PASCAL_ERROR_FIELD_MAX];
      field_name(name, prefix, f[i].name);
      return pascal_error_set(err, PASCAL_EMISSING, name, "field '%s' is required", name);
    }
    if (ranges && f[i].type != PASCAL_QUERY_PATH) {
      double v = number_at(q, &f[i]);
      if (!(v >= f[i].lo && v <= f[i].hi))
        return out_of_range(&f[i], prefix, err);
    }
  }
  switch (q->workload) {
  case PASCAL_WORKLOAD_SCAN: return check_scan(q, prefix, err);
  case PASCAL_WORKLOAD_GEMM: return check_gemm(q, prefix, err);
  case PASCAL_WORKLOAD_ATTENTION: return check_attention(q, prefix, err);
  }
  return PASCAL_OK;
}

pascal_status pascal_query_check(const pascal_query *q, const char *prefix, pascal_error *err)
{
  return check(q, 1, prefix, err);
}

pascal_status pascal_query_build(pascal_workload workload, const pascal_query_value *values,
                                 uint32_t given, const char *prefix, pascal_query *out,
                                 pascal_error *err)
{
  const pascal_query_field *f;
  size_t n = pascal_query_fields(workload, &f);
  query_init(out, workload, given & all_given(n));
  for (size_t i = 0; i < n; i++) {
    if (!((given >> i) & 1))
      continue;
    const pascal_query_value *v = &values[i];
    char *at = (char *)out + f[i].offset;
    pascal_path path;
    switch (f[i].type) {
    case PASCAL_QUERY_UINT:
      if ((double)v->u < f[i].lo || (double)v->u > f[i].hi)
        return out_of_range(&f[i], prefix, err);
      *(uint32_t *)(void *)at = (uint32_t)v->u;
      break;
    case PASCAL_QUERY_REAL:
      if (!isfinite(v->r) || v->r < f[i].lo || v->r > f[i].hi)
        return out_of_range(&f[i], prefix, err);
      *(double *)(void *)at = v->r;
      break;
    case PASCAL_QUERY_PATH:
      if (pascal_path_parse(v->text, NULL, &path, NULL))
        return not_a_path(&f[i], v->text, prefix, err);
      *(pascal_path *)(void *)at = path;
      break;
    }
  }
  return check(out, 0, prefix, err); /* the numbers were taken in range */
}
