/*
 * cublaslt_lib.h - cuBLASLt loaded at run time with dlopen from the host's
 * CUDA toolkit, never linked and never carried in the GPU bundle (the
 * library is about 540 MB). The few types, constants and entry points the
 * cuda backend uses are declared here, with the values of cublasLt.h (CUDA
 * 12 and 13); tests/gpu compares each with the header at compile time, so a
 * build needs no cuBLAS header. Internal to the cuda backend (C++).
 *
 * Search order: PASCAL_CUBLASLT=path alone when it is set; otherwise
 * libcublasLt.so.13, then libcublasLt.so.12, each in the folders of
 * LD_LIBRARY_PATH, /usr/local/cuda/lib64, /usr/local/cuda/targets/<arch>/lib
 * and then by name (the dynamic loader's cache: the ldconfig paths).
 */
#ifndef PASCAL_CUDA_CUBLASLT_LIB_H
#define PASCAL_CUDA_CUBLASLT_LIB_H

#include <stddef.h>
#include <stdint.h>

#include <string>
#include <vector>

#include <cuda_runtime.h>

/* The ABI of cublasLt.h, declared (namespace pcu_lt). Enumerations travel
 * as int (cublasStatus_t, cudaDataType_t, cublasComputeType_t and the
 * attribute enums are int-sized), descriptors as opaque pointers. */
namespace pcu_lt {
struct context;
struct matmul_desc;
struct layout;
struct preference;
typedef context *handle_t;
typedef matmul_desc *matmul_desc_t;
typedef layout *layout_t;
typedef preference *preference_t;
typedef int status_t;

struct algo_t {
  uint64_t data[8];
};
struct heuristic_t {
  algo_t algo;
  size_t workspace_size;
  status_t state;
  float waves_count;
  int reserved[4];
};

const status_t STATUS_SUCCESS = 0, STATUS_ALLOC_FAILED = 3;
const int R_16F = 2;        /* cudaDataType_t CUDA_R_16F */
const int R_32F = 0;        /* CUDA_R_32F */
const int COMPUTE_32F = 68; /* cublasComputeType_t CUBLAS_COMPUTE_32F */
const int OP_N = 0, OP_T = 1;
/* cublasLtMatmulDescAttributes_t */
const int DESC_TRANSA = 3, DESC_TRANSB = 4;
/* cublasLtMatmulPreferenceAttributes_t */
const int PREF_MAX_WORKSPACE_BYTES = 1;
/* cublasLtMatmulAlgoConfigAttributes_t */
const int CONFIG_ID = 0, CONFIG_TILE_ID = 1, CONFIG_SPLITK_NUM = 2, CONFIG_REDUCTION_SCHEME = 3,
          CONFIG_CTA_SWIZZLING = 4, CONFIG_CUSTOM_OPTION = 5, CONFIG_STAGES_ID = 6,
          CONFIG_INNER_SHAPE_ID = 7, CONFIG_CLUSTER_SHAPE_ID = 8;
/* cublasLtMatmulAlgoCapAttributes_t */
const int CAP_SPLITK_SUPPORT = 0, CAP_REDUCTION_SCHEME_MASK = 1, CAP_CTA_SWIZZLING_SUPPORT = 2,
          CAP_TILE_IDS = 6, CAP_STAGES_IDS = 13;
/* cublasLtReductionScheme_t */
const uint32_t REDUCTION_NONE = 0, REDUCTION_INPLACE = 1, REDUCTION_COMPUTE_TYPE = 2,
               REDUCTION_OUTPUT_TYPE = 4;
} // namespace pcu_lt

/* The entry points, resolved by name (the X-macro gives name and type once;
 * tests/gpu checks each name exists in the library it finds). */
#define PCU_CUBLASLT_API(X)                                                                        \
  X(cublasLtCreate, pcu_lt::status_t (*)(pcu_lt::handle_t *))                                      \
  X(cublasLtDestroy, pcu_lt::status_t (*)(pcu_lt::handle_t))                                       \
  X(cublasLtGetVersion, size_t (*)(void))                                                          \
  X(cublasLtGetStatusName, const char *(*)(pcu_lt::status_t))                                      \
  X(cublasLtMatmulDescCreate, pcu_lt::status_t (*)(pcu_lt::matmul_desc_t *, int, int))             \
  X(cublasLtMatmulDescDestroy, pcu_lt::status_t (*)(pcu_lt::matmul_desc_t))                        \
  X(cublasLtMatmulDescSetAttribute,                                                                \
    pcu_lt::status_t (*)(pcu_lt::matmul_desc_t, int, const void *, size_t))                        \
  X(cublasLtMatrixLayoutCreate,                                                                    \
    pcu_lt::status_t (*)(pcu_lt::layout_t *, int, uint64_t, uint64_t, int64_t))                    \
  X(cublasLtMatrixLayoutDestroy, pcu_lt::status_t (*)(pcu_lt::layout_t))                           \
  X(cublasLtMatmulPreferenceCreate, pcu_lt::status_t (*)(pcu_lt::preference_t *))                  \
  X(cublasLtMatmulPreferenceDestroy, pcu_lt::status_t (*)(pcu_lt::preference_t))                   \
  X(cublasLtMatmulPreferenceSetAttribute,                                                          \
    pcu_lt::status_t (*)(pcu_lt::preference_t, int, const void *, size_t))                         \
  X(cublasLtMatmulAlgoGetHeuristic,                                                                \
    pcu_lt::status_t (*)(pcu_lt::handle_t, pcu_lt::matmul_desc_t, pcu_lt::layout_t,                \
                         pcu_lt::layout_t, pcu_lt::layout_t, pcu_lt::layout_t,                     \
                         pcu_lt::preference_t, int, pcu_lt::heuristic_t *, int *))                 \
  X(cublasLtMatmulAlgoInit,                                                                        \
    pcu_lt::status_t (*)(pcu_lt::handle_t, int, int, int, int, int, int, int, pcu_lt::algo_t *))   \
  X(cublasLtMatmulAlgoCheck,                                                                       \
    pcu_lt::status_t (*)(pcu_lt::handle_t, pcu_lt::matmul_desc_t, pcu_lt::layout_t,                \
                         pcu_lt::layout_t, pcu_lt::layout_t, pcu_lt::layout_t,                     \
                         const pcu_lt::algo_t *, pcu_lt::heuristic_t *))                           \
  X(cublasLtMatmulAlgoCapGetAttribute,                                                             \
    pcu_lt::status_t (*)(const pcu_lt::algo_t *, int, void *, size_t, size_t *))                   \
  X(cublasLtMatmulAlgoConfigSetAttribute,                                                          \
    pcu_lt::status_t (*)(pcu_lt::algo_t *, int, const void *, size_t))                             \
  X(cublasLtMatmulAlgoConfigGetAttribute,                                                          \
    pcu_lt::status_t (*)(const pcu_lt::algo_t *, int, void *, size_t, size_t *))                   \
  X(cublasLtMatmul,                                                                                \
    pcu_lt::status_t (*)(pcu_lt::handle_t, pcu_lt::matmul_desc_t, const void *, const void *,      \
                         pcu_lt::layout_t, const void *, pcu_lt::layout_t, const void *,           \
                         const void *, pcu_lt::layout_t, void *, pcu_lt::layout_t,                 \
                         const pcu_lt::algo_t *, void *, size_t, cudaStream_t))

/* A function pointer type written the way a declarator cannot take it. */
template <typename T> using pcu_lt_fn = T;

struct pcu_cublaslt_api {
#define PCU_LT_FIELD(name, type) pcu_lt_fn<type> name = nullptr;
  PCU_CUBLASLT_API(PCU_LT_FIELD)
#undef PCU_LT_FIELD
};

/* The library, opened with every entry point above resolved. */
class pcu_cublaslt {
public:
  /* Open the first candidate of the search order that loads and has every
   * entry point. On failure *out is NULL and *why says, in one line, what
   * was tried and why none loaded. `env` is the value of PASCAL_CUBLASLT
   * (NULL or "" when unset). */
  static bool open(const char *env, pcu_cublaslt **out, std::string *why);
  ~pcu_cublaslt();

  const pcu_cublaslt_api &api() const
  {
    return api_;
  }
  const std::string &path() const
  {
    return path_;
  }
  size_t version() const
  {
    return api_.cublasLtGetVersion();
  }
  /* "CUBLAS_STATUS_NOT_SUPPORTED" and the like */
  const char *status_name(pcu_lt::status_t s) const;

  /* The files tried for `env` in order (a name without '/' is looked up by
   * the dynamic loader). */
  static std::vector<std::string> candidates(const char *env);

private:
  pcu_cublaslt() = default;
  void *dl_ = nullptr;
  std::string path_;
  pcu_cublaslt_api api_;
};

#endif
