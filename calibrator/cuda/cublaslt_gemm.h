/*
 * cublaslt_gemm.h - one FP16 GEMM of a given shape on cuBLASLt (FP32
 * accumulate, FP32 output), in the operand layout of the project's kernel
 * (kernels/pascal_kernels.h): A row-major Mg x Kg, B stored as B^T
 * row-major (Ng x Kg). cuBLASLt sees the "TN" product D = op_T(A') op_N(B')
 * with A' the Kg x Mg column-major view of A and B' the Kg x Ng view of B,
 * so its tile MxN is Mg rows by Ng columns and D is Mg x Ng column-major.
 *
 * The algo is cuBLASLt's heuristic choice or an explicit configuration
 * (pascal/gemm_impl.h) checked by cublasLtMatmulAlgoCheck: a configuration
 * cuBLASLt rejects is an error naming it, never replaced by another. (The
 * cuda rig may offer a configuration's tile and stages on the launch
 * attributes of several heuristic answers, heuristic_answers(); the tile
 * and stages stay as stated.)
 * Internal to the cuda backend (C++).
 */
#ifndef PASCAL_CUDA_CUBLASLT_GEMM_H
#define PASCAL_CUDA_CUBLASLT_GEMM_H

#include <stdint.h>

#include <vector>

#include <cuda_fp16.h>

#include "cublaslt_lib.h"
#include "pascal/error.h"
#include "pascal/gemm_impl.h"

/* What one algo id allows (cublasLtMatmulAlgoCapGetAttribute). */
struct pcu_lt_caps {
  std::vector<uint32_t> tiles;  /* tile ids; {0} when none is stated */
  std::vector<uint32_t> stages; /* stages ids; {0} when none is stated */
  bool split_k = false;
  bool swizzle = false;
  uint32_t reductions = 0; /* mask of cublasLtReductionScheme_t */
};

class pcu_lt_gemm {
public:
  /* Workspace offered to every algo (split-K partial sums). */
  static const size_t kWorkspaceBytes = 64u << 20;

  /* Descriptors for Mg x Ng x Kg on the current device; `lib` must outlive
   * the GEMM. */
  static pascal_status create(const pcu_cublaslt *lib, uint32_t mg, uint32_t ng, uint32_t kg,
                              pcu_lt_gemm **out, pascal_error *err);
  ~pcu_lt_gemm();

  /* Select cuBLASLt's first heuristic answer for this shape and say its
   * configuration (ids as the algo states them). */
  pascal_status use_heuristic(pascal_cublaslt_config *out, pascal_error *err);
  /* The configurations of at most `max` of cuBLASLt's heuristic answers
   * for this shape, best first (at least one); selects nothing. */
  pascal_status heuristic_answers(int max, std::vector<pascal_cublaslt_config> *out,
                                  pascal_error *err);
  /* Select an explicit configuration: cublasLtMatmulAlgoInit(c.algo), tile,
   * stages, CTA swizzling, split-K, custom option, inner and cluster shape
   * set (and for split-K > 1 the first reduction scheme the algo supports
   * of in place, compute type, output type), then cublasLtMatmulAlgoCheck.
   * Rejected: PASCAL_EINVAL, field "gemm", naming the configuration and
   * cuBLASLt's status; nothing is selected then. */
  pascal_status use_config(const pascal_cublaslt_config &c, pascal_error *err);
  /* Select `c` the way a job reproduces a bundle's configuration: the
   * heuristic's algo exactly as cuBLASLt returned it when its configuration
   * is `c` (so what the heuristic ran always runs again), otherwise
   * use_config(c). */
  pascal_status use_stated(const pascal_cublaslt_config &c, pascal_error *err);
  /* Capabilities of algo id `algo` for this problem's types. */
  pascal_status caps(uint32_t algo, pcu_lt_caps *out, pascal_error *err);
  /* Enqueue D = A B with the selected algo on the legacy default stream. */
  pascal_status run(const __half *a, const __half *b, float *d, pascal_error *err);

private:
  pcu_lt_gemm() = default;
  pascal_status lt_fail(pascal_error *err, const char *what, pcu_lt::status_t s) const;
  pascal_status read_config(const pcu_lt::algo_t &a, pascal_cublaslt_config *out,
                            pascal_error *err) const;
  /* At most `max` heuristic answers that cuBLASLt states as usable. */
  pascal_status ask_heuristic(int max, std::vector<pcu_lt::heuristic_t> *out,
                              pascal_error *err) const;

  const pcu_cublaslt *lib_ = nullptr;
  pcu_lt::handle_t handle_ = nullptr;
  pcu_lt::matmul_desc_t desc_ = nullptr;
  pcu_lt::layout_t la_ = nullptr, lb_ = nullptr, ld_ = nullptr;
  pcu_lt::algo_t algo_{};
  bool selected_ = false;
  void *workspace_ = nullptr;
};

#endif
