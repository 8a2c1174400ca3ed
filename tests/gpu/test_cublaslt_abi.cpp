/*
 * test_cublaslt_abi.cpp - what PASCAL declares of cuBLASLt (the id tables of
 * pascal/gemm_impl.h, the types and constants of calibrator/cuda/
 * cublaslt_lib.h) against the toolkit's cublasLt.h, at compile time: a
 * wrong enum value, struct size or field offset stops the build. No GPU;
 * built where the toolkit has cublasLt.h (tests/gpu/CMakeLists.txt). Verified to fail:
 * with PASCAL_CUBLASLT_TILES listing X(128, 256, 24) the build stops at the
 * tile assertion.
 */
#include <stddef.h>
#include <stdio.h>

#include <cublasLt.h>

#include <type_traits>

#include "cublaslt_lib.h"
#include "pascal/gemm_impl.h"

#define PCU_TILE_ASSERT(M, N, ID)                                                                  \
  static_assert(CUBLASLT_MATMUL_TILE_##M##x##N == ID, "tile " #M "x" #N);
#define PCU_STAGES_ASSERT(K, SNAME, S, ID)                                                         \
  static_assert(CUBLASLT_MATMUL_STAGES_##K##x##SNAME == ID, "stages " #K "x" #SNAME);
PASCAL_CUBLASLT_TILES(PCU_TILE_ASSERT)
PASCAL_CUBLASLT_STAGES(PCU_STAGES_ASSERT)

/* the enums travel as int */
static_assert(sizeof(cublasStatus_t) == sizeof(int), "status size");
static_assert(sizeof(cudaDataType_t) == sizeof(int), "data type size");
static_assert(sizeof(cublasComputeType_t) == sizeof(int), "compute type size");
static_assert(sizeof(cublasLtMatmulDescAttributes_t) == sizeof(int), "attribute size");
static_assert(sizeof(cublasLtMatmulAlgoConfigAttributes_t) == sizeof(int), "config size");
static_assert(sizeof(cublasLtMatmulAlgoCapAttributes_t) == sizeof(int), "cap size");
static_assert(sizeof(cublasLtMatmulPreferenceAttributes_t) == sizeof(int), "pref size");
static_assert(sizeof(cublasOperation_t) == sizeof(int32_t), "op size");

static_assert(pcu_lt::STATUS_SUCCESS == CUBLAS_STATUS_SUCCESS, "success");
static_assert(pcu_lt::STATUS_ALLOC_FAILED == CUBLAS_STATUS_ALLOC_FAILED, "alloc failed");
static_assert(pcu_lt::R_16F == CUDA_R_16F && pcu_lt::R_32F == CUDA_R_32F, "data types");
static_assert(pcu_lt::COMPUTE_32F == CUBLAS_COMPUTE_32F, "compute type");
static_assert(pcu_lt::OP_N == CUBLAS_OP_N && pcu_lt::OP_T == CUBLAS_OP_T, "operations");
static_assert(pcu_lt::DESC_TRANSA == CUBLASLT_MATMUL_DESC_TRANSA &&
                  pcu_lt::DESC_TRANSB == CUBLASLT_MATMUL_DESC_TRANSB,
              "transpose attributes");
static_assert(pcu_lt::PREF_MAX_WORKSPACE_BYTES == CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
              "workspace preference");
static_assert(pcu_lt::CONFIG_ID == CUBLASLT_ALGO_CONFIG_ID &&
                  pcu_lt::CONFIG_TILE_ID == CUBLASLT_ALGO_CONFIG_TILE_ID &&
                  pcu_lt::CONFIG_SPLITK_NUM == CUBLASLT_ALGO_CONFIG_SPLITK_NUM &&
                  pcu_lt::CONFIG_REDUCTION_SCHEME == CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME &&
                  pcu_lt::CONFIG_CTA_SWIZZLING == CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING &&
                  pcu_lt::CONFIG_STAGES_ID == CUBLASLT_ALGO_CONFIG_STAGES_ID &&
                  pcu_lt::CONFIG_CUSTOM_OPTION == CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION &&
                  pcu_lt::CONFIG_INNER_SHAPE_ID == CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID &&
                  pcu_lt::CONFIG_CLUSTER_SHAPE_ID == CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID,
              "algo configuration attributes");
/* 0 is AlgoInit's default of the inner and cluster shape (use_config sets 0
 * for "not stated"), and both ids fit the uint16_t attributes */
static_assert(CUBLASLT_MATMUL_INNER_SHAPE_UNDEFINED == 0 && CUBLASLT_CLUSTER_SHAPE_AUTO == 0 &&
                  CUBLASLT_MATMUL_INNER_SHAPE_END - 1 <= PASCAL_CUBLASLT_MAX_SHAPE_ID &&
                  CUBLASLT_CLUSTER_SHAPE_END - 1 <= PASCAL_CUBLASLT_MAX_SHAPE_ID,
              "inner and cluster shape ids");
static_assert(pcu_lt::CAP_SPLITK_SUPPORT == CUBLASLT_ALGO_CAP_SPLITK_SUPPORT &&
                  pcu_lt::CAP_REDUCTION_SCHEME_MASK == CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK &&
                  pcu_lt::CAP_CTA_SWIZZLING_SUPPORT == CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT &&
                  pcu_lt::CAP_TILE_IDS == CUBLASLT_ALGO_CAP_TILE_IDS &&
                  pcu_lt::CAP_STAGES_IDS == CUBLASLT_ALGO_CAP_STAGES_IDS,
              "algo capabilities");
static_assert(pcu_lt::REDUCTION_NONE == CUBLASLT_REDUCTION_SCHEME_NONE &&
                  pcu_lt::REDUCTION_INPLACE == CUBLASLT_REDUCTION_SCHEME_INPLACE &&
                  pcu_lt::REDUCTION_COMPUTE_TYPE == CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE &&
                  pcu_lt::REDUCTION_OUTPUT_TYPE == CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE,
              "reduction schemes");

/* the structures the library writes into */
static_assert(sizeof(pcu_lt::algo_t) == sizeof(cublasLtMatmulAlgo_t), "algo size");
static_assert(sizeof(pcu_lt::heuristic_t) == sizeof(cublasLtMatmulHeuristicResult_t),
              "heuristic size");
static_assert(offsetof(pcu_lt::heuristic_t, workspace_size) ==
                      offsetof(cublasLtMatmulHeuristicResult_t, workspaceSize) &&
                  offsetof(pcu_lt::heuristic_t, state) ==
                      offsetof(cublasLtMatmulHeuristicResult_t, state) &&
                  offsetof(pcu_lt::heuristic_t, waves_count) ==
                      offsetof(cublasLtMatmulHeuristicResult_t, wavesCount),
              "heuristic fields");

/* each entry point's arity and return type; parameters travel as declared
 * (pointers as pointers, enums as int, the 64-bit extents as 64 bits) */
template <typename F> struct pcu_arity;
template <typename R, typename... A> struct pcu_arity<R (*)(A...)> {
  static const size_t n = sizeof...(A);
  static const size_t bytes = (0 + ... + sizeof(A));
  typedef R ret;
};
#define PCU_ARITY_ASSERT(name, type)                                                               \
  static_assert(pcu_arity<type>::n == pcu_arity<decltype(&::name)>::n, #name " arity");            \
  static_assert(pcu_arity<type>::bytes == pcu_arity<decltype(&::name)>::bytes, #name " sizes");    \
  static_assert(sizeof(pcu_arity<type>::ret) == sizeof(pcu_arity<decltype(&::name)>::ret),         \
                #name " return");
PCU_CUBLASLT_API(PCU_ARITY_ASSERT)

#define PCU_ONE2(a, b)       +1
#define PCU_ONE3(a, b, c)    +1
#define PCU_ONE4(a, b, c, d) +1

int main(void)
{
  printf("cublasLt.h agrees with PASCAL's %d tile ids, %d stages ids and %d entry points\n",
         0 PASCAL_CUBLASLT_TILES(PCU_ONE3), 0 PASCAL_CUBLASLT_STAGES(PCU_ONE4),
         0 PCU_CUBLASLT_API(PCU_ONE2));
  return 0;
}
