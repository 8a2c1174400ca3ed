/*
 * cublaslt_gemm.cpp - the cuBLASLt GEMM of cublaslt_gemm.h: descriptors of
 * the "TN" FP16 product with FP32 accumulate and output, the heuristic or
 * an explicit algo configuration (CUBLASLT_ALGO_CONFIG_TILE_ID, _STAGES_ID,
 * _CTA_SWIZZLING, _SPLITK_NUM, _CUSTOM_OPTION, _INNER_SHAPE_ID,
 * _CLUSTER_SHAPE_ID) checked before use, and the launch.
 */
#include "cublaslt_gemm.h"

#include "cuda_rig.h"

namespace {

/* The types of every descriptor and algo here: compute, scale, A, B, C, D. */
const int kCompute = pcu_lt::COMPUTE_32F, kScale = pcu_lt::R_32F, kIn = pcu_lt::R_16F,
          kOut = pcu_lt::R_32F;

template <typename T>
pcu_lt::status_t get_config(const pcu_cublaslt_api &f, const pcu_lt::algo_t &a, int attr, T *v)
{
  size_t written = 0;
  return f.cublasLtMatmulAlgoConfigGetAttribute(&a, attr, v, sizeof *v, &written);
}

template <typename T>
pcu_lt::status_t set_config(const pcu_cublaslt_api &f, pcu_lt::algo_t *a, int attr, T v)
{
  return f.cublasLtMatmulAlgoConfigSetAttribute(a, attr, &v, sizeof v);
}

/* A capability that is an array of uint32 ids (tiles, stages). */
pcu_lt::status_t cap_ids(const pcu_cublaslt_api &f, const pcu_lt::algo_t &a, int attr,
                         std::vector<uint32_t> *out)
{
  size_t bytes = 0;
  pcu_lt::status_t s = f.cublasLtMatmulAlgoCapGetAttribute(&a, attr, nullptr, 0, &bytes);
  if (s != pcu_lt::STATUS_SUCCESS)
    return s;
  out->assign(bytes / sizeof(uint32_t), 0);
  if (out->empty())
    return s;
  return f.cublasLtMatmulAlgoCapGetAttribute(&a, attr, out->data(), bytes, &bytes);
}

bool same_config(const pascal_cublaslt_config &x, const pascal_cublaslt_config &y)
{
  return x.algo == y.algo && x.tile_id == y.tile_id && x.stages_id == y.stages_id &&
         x.cta_swizzling == y.cta_swizzling && x.split_k == y.split_k &&
         x.custom_option == y.custom_option && x.inner_shape_id == y.inner_shape_id &&
         x.cluster_shape_id == y.cluster_shape_id;
}

} // namespace

pascal_status pcu_lt_gemm::lt_fail(pascal_error *err, const char *what, pcu_lt::status_t s) const
{
  return pascal_error_set(err, s == pcu_lt::STATUS_ALLOC_FAILED ? PASCAL_ENOMEM : PASCAL_EINVAL,
                          "cublaslt", "%s: %s", what, lib_->status_name(s));
}

pascal_status pcu_lt_gemm::create(const pcu_cublaslt *lib, uint32_t mg, uint32_t ng, uint32_t kg,
                                  pcu_lt_gemm **out, pascal_error *err)
{
  pcu_lt_gemm *g = new pcu_lt_gemm();
  g->lib_ = lib;
  const pcu_cublaslt_api &f = lib->api();
  const int32_t ta = pcu_lt::OP_T, tb = pcu_lt::OP_N;
  pcu_lt::status_t s;
  pascal_status st = PASCAL_OK;
  cudaError_t e;
  if ((s = f.cublasLtCreate(&g->handle_)) != pcu_lt::STATUS_SUCCESS) {
    st = g->lt_fail(err, "cublasLtCreate", s);
    goto fail;
  }
  if ((s = f.cublasLtMatmulDescCreate(&g->desc_, kCompute, kScale)) != pcu_lt::STATUS_SUCCESS ||
      (s = f.cublasLtMatmulDescSetAttribute(g->desc_, pcu_lt::DESC_TRANSA, &ta, sizeof ta)) !=
          pcu_lt::STATUS_SUCCESS ||
      (s = f.cublasLtMatmulDescSetAttribute(g->desc_, pcu_lt::DESC_TRANSB, &tb, sizeof tb)) !=
          pcu_lt::STATUS_SUCCESS) {
    st = g->lt_fail(err, "matmul descriptor", s);
    goto fail;
  }
  if ((s = f.cublasLtMatrixLayoutCreate(&g->la_, kIn, kg, mg, kg)) != pcu_lt::STATUS_SUCCESS ||
      (s = f.cublasLtMatrixLayoutCreate(&g->lb_, kIn, kg, ng, kg)) != pcu_lt::STATUS_SUCCESS ||
      (s = f.cublasLtMatrixLayoutCreate(&g->ld_, kOut, mg, ng, mg)) != pcu_lt::STATUS_SUCCESS) {
    st = g->lt_fail(err, "matrix layouts", s);
    goto fail;
  }
  if ((e = cudaMalloc(&g->workspace_, kWorkspaceBytes)) != cudaSuccess) {
    st = pcu_fail(err, "cuBLASLt workspace", e);
    goto fail;
  }
  *out = g;
  return PASCAL_OK;
fail:
  delete g;
  return st;
}

pcu_lt_gemm::~pcu_lt_gemm()
{
  const pcu_cublaslt_api &f = lib_->api();
  cudaFree(workspace_);
  if (ld_ != nullptr)
    f.cublasLtMatrixLayoutDestroy(ld_);
  if (lb_ != nullptr)
    f.cublasLtMatrixLayoutDestroy(lb_);
  if (la_ != nullptr)
    f.cublasLtMatrixLayoutDestroy(la_);
  if (desc_ != nullptr)
    f.cublasLtMatmulDescDestroy(desc_);
  if (handle_ != nullptr)
    f.cublasLtDestroy(handle_);
}

pascal_status pcu_lt_gemm::read_config(const pcu_lt::algo_t &a, pascal_cublaslt_config *out,
                                       pascal_error *err) const
{
  const pcu_cublaslt_api &f = lib_->api();
  int32_t id = 0, split = 0;
  uint32_t tile = 0, stages = 0, swizzle = 0, option = 0;
  uint16_t inner = 0, cluster = 0; /* uint16_t attributes in cublasLt.h */
  pcu_lt::status_t s;
  if ((s = get_config(f, a, pcu_lt::CONFIG_ID, &id)) != pcu_lt::STATUS_SUCCESS ||
      (s = get_config(f, a, pcu_lt::CONFIG_TILE_ID, &tile)) != pcu_lt::STATUS_SUCCESS ||
      (s = get_config(f, a, pcu_lt::CONFIG_STAGES_ID, &stages)) != pcu_lt::STATUS_SUCCESS ||
      (s = get_config(f, a, pcu_lt::CONFIG_CTA_SWIZZLING, &swizzle)) != pcu_lt::STATUS_SUCCESS ||
      (s = get_config(f, a, pcu_lt::CONFIG_SPLITK_NUM, &split)) != pcu_lt::STATUS_SUCCESS ||
      (s = get_config(f, a, pcu_lt::CONFIG_CUSTOM_OPTION, &option)) != pcu_lt::STATUS_SUCCESS ||
      (s = get_config(f, a, pcu_lt::CONFIG_INNER_SHAPE_ID, &inner)) != pcu_lt::STATUS_SUCCESS ||
      (s = get_config(f, a, pcu_lt::CONFIG_CLUSTER_SHAPE_ID, &cluster)) != pcu_lt::STATUS_SUCCESS)
    return lt_fail(err, "algo configuration", s);
  *out = {(uint32_t)id, tile, stages, swizzle, split, option, inner, cluster};
  return PASCAL_OK;
}

pascal_status pcu_lt_gemm::ask_heuristic(int max, std::vector<pcu_lt::heuristic_t> *out,
                                         pascal_error *err) const
{
  const pcu_cublaslt_api &f = lib_->api();
  pcu_lt::preference_t pref = nullptr;
  std::vector<pcu_lt::heuristic_t> h((size_t)max);
  int found = 0;
  const uint64_t ws = kWorkspaceBytes;
  pcu_lt::status_t s = f.cublasLtMatmulPreferenceCreate(&pref);
  if (s == pcu_lt::STATUS_SUCCESS)
    s = f.cublasLtMatmulPreferenceSetAttribute(pref, pcu_lt::PREF_MAX_WORKSPACE_BYTES, &ws,
                                               sizeof ws);
  if (s == pcu_lt::STATUS_SUCCESS)
    s = f.cublasLtMatmulAlgoGetHeuristic(handle_, desc_, la_, lb_, ld_, ld_, pref, max, h.data(),
                                         &found);
  if (pref != nullptr)
    f.cublasLtMatmulPreferenceDestroy(pref);
  if (s != pcu_lt::STATUS_SUCCESS)
    return lt_fail(err, "cublasLtMatmulAlgoGetHeuristic", s);
  out->clear();
  for (int i = 0; i < found && i < max; i++)
    if (h[(size_t)i].state == pcu_lt::STATUS_SUCCESS)
      out->push_back(h[(size_t)i]);
  if (out->empty())
    return pascal_error_set(err, PASCAL_ENOTFOUND, "cublaslt",
                            "cuBLASLt's heuristic has no algo for this GEMM");
  return PASCAL_OK;
}

pascal_status pcu_lt_gemm::use_heuristic(pascal_cublaslt_config *out, pascal_error *err)
{
  std::vector<pcu_lt::heuristic_t> h;
  const pascal_status st = ask_heuristic(1, &h, err);
  if (st != PASCAL_OK)
    return st;
  algo_ = h[0].algo;
  selected_ = true;
  return read_config(algo_, out, err);
}

pascal_status pcu_lt_gemm::heuristic_answers(int max, std::vector<pascal_cublaslt_config> *out,
                                             pascal_error *err)
{
  std::vector<pcu_lt::heuristic_t> h;
  pascal_status st = ask_heuristic(max, &h, err);
  out->assign(h.size(), pascal_cublaslt_config{});
  for (size_t i = 0; st == PASCAL_OK && i < h.size(); i++)
    st = read_config(h[i].algo, &(*out)[i], err);
  return st;
}

pascal_status pcu_lt_gemm::caps(uint32_t algo, pcu_lt_caps *out, pascal_error *err)
{
  const pcu_cublaslt_api &f = lib_->api();
  pcu_lt::algo_t a{};
  int32_t split = 0;
  uint32_t swizzle = 0;
  size_t written = 0;
  pcu_lt::status_t s =
      f.cublasLtMatmulAlgoInit(handle_, kCompute, kScale, kIn, kIn, kOut, kOut, (int)algo, &a);
  if (s == pcu_lt::STATUS_SUCCESS)
    s = cap_ids(f, a, pcu_lt::CAP_TILE_IDS, &out->tiles);
  if (s == pcu_lt::STATUS_SUCCESS)
    s = cap_ids(f, a, pcu_lt::CAP_STAGES_IDS, &out->stages);
  if (s == pcu_lt::STATUS_SUCCESS)
    s = f.cublasLtMatmulAlgoCapGetAttribute(&a, pcu_lt::CAP_SPLITK_SUPPORT, &split, sizeof split,
                                            &written);
  if (s == pcu_lt::STATUS_SUCCESS)
    s = f.cublasLtMatmulAlgoCapGetAttribute(&a, pcu_lt::CAP_CTA_SWIZZLING_SUPPORT, &swizzle,
                                            sizeof swizzle, &written);
  if (s == pcu_lt::STATUS_SUCCESS)
    s = f.cublasLtMatmulAlgoCapGetAttribute(&a, pcu_lt::CAP_REDUCTION_SCHEME_MASK, &out->reductions,
                                            sizeof out->reductions, &written);
  if (s != pcu_lt::STATUS_SUCCESS)
    return lt_fail(err, "algo capabilities", s);
  out->split_k = split != 0;
  out->swizzle = swizzle != 0;
  return PASCAL_OK;
}

pascal_status pcu_lt_gemm::use_config(const pascal_cublaslt_config &c, pascal_error *err)
{
  const pcu_cublaslt_api &f = lib_->api();
  char what[128];
  pascal_cublaslt_describe(&c, what, sizeof what);
  pcu_lt::algo_t a{};
  pcu_lt::heuristic_t check{};
  pcu_lt_caps cap;
  uint32_t scheme = pcu_lt::REDUCTION_NONE;
  pascal_status st;
  selected_ = false;
  if (c.split_k > 1) {
    if ((st = caps(c.algo, &cap, err)) != PASCAL_OK)
      return st;
    for (uint32_t r :
         {pcu_lt::REDUCTION_INPLACE, pcu_lt::REDUCTION_COMPUTE_TYPE, pcu_lt::REDUCTION_OUTPUT_TYPE})
      if (scheme == pcu_lt::REDUCTION_NONE && (cap.reductions & r) != 0)
        scheme = r;
  }
  pcu_lt::status_t s =
      f.cublasLtMatmulAlgoInit(handle_, kCompute, kScale, kIn, kIn, kOut, kOut, (int)c.algo, &a);
  if (s == pcu_lt::STATUS_SUCCESS)
    s = set_config(f, &a, pcu_lt::CONFIG_TILE_ID, c.tile_id);
  if (s == pcu_lt::STATUS_SUCCESS)
    s = set_config(f, &a, pcu_lt::CONFIG_STAGES_ID, c.stages_id);
  if (s == pcu_lt::STATUS_SUCCESS)
    s = set_config(f, &a, pcu_lt::CONFIG_CTA_SWIZZLING, c.cta_swizzling);
  if (s == pcu_lt::STATUS_SUCCESS)
    s = set_config(f, &a, pcu_lt::CONFIG_SPLITK_NUM, c.split_k);
  if (s == pcu_lt::STATUS_SUCCESS)
    s = set_config(f, &a, pcu_lt::CONFIG_REDUCTION_SCHEME, scheme);
  /* 0 is AlgoInit's default for these three, so setting it changes nothing */
  if (s == pcu_lt::STATUS_SUCCESS)
    s = set_config(f, &a, pcu_lt::CONFIG_CUSTOM_OPTION, c.custom_option);
  if (s == pcu_lt::STATUS_SUCCESS)
    s = set_config(f, &a, pcu_lt::CONFIG_INNER_SHAPE_ID, (uint16_t)c.inner_shape_id);
  if (s == pcu_lt::STATUS_SUCCESS)
    s = set_config(f, &a, pcu_lt::CONFIG_CLUSTER_SHAPE_ID, (uint16_t)c.cluster_shape_id);
  if (s == pcu_lt::STATUS_SUCCESS)
    s = f.cublasLtMatmulAlgoCheck(handle_, desc_, la_, lb_, ld_, ld_, &a, &check);
  if (s != pcu_lt::STATUS_SUCCESS)
    return pascal_error_set(err, PASCAL_EINVAL, "gemm", "cuBLASLt rejects %s: %s", what,
                            lib_->status_name(s));
  if (check.workspace_size > kWorkspaceBytes)
    return pascal_error_set(err, PASCAL_EINVAL, "gemm",
                            "cuBLASLt's %s needs %zu bytes of workspace, more than the %zu offered",
                            what, check.workspace_size, kWorkspaceBytes);
  algo_ = a;
  selected_ = true;
  return PASCAL_OK;
}

pascal_status pcu_lt_gemm::use_stated(const pascal_cublaslt_config &c, pascal_error *err)
{
  pascal_cublaslt_config h;
  pascal_error ignored;
  if (use_heuristic(&h, &ignored) == PASCAL_OK && same_config(h, c))
    return PASCAL_OK;
  return use_config(c, err);
}

pascal_status pcu_lt_gemm::run(const __half *a, const __half *b, float *d, pascal_error *err)
{
  if (!selected_)
    return pascal_error_set(err, PASCAL_EINVAL, "gemm", "no cuBLASLt algo selected");
  const float alpha = 1.0f, beta = 0.0f;
  /* op_T(A') is A (Mg x Kg): A's storage is A'; B's storage is B' */
  const pcu_lt::status_t s =
      lib_->api().cublasLtMatmul(handle_, desc_, &alpha, a, la_, b, lb_, &beta, d, ld_, d, ld_,
                                 &algo_, workspace_, kWorkspaceBytes, nullptr);
  return s == pcu_lt::STATUS_SUCCESS ? PASCAL_OK : lt_fail(err, "cublasLtMatmul", s);
}
