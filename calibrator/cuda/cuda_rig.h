/*
 * cuda_rig.h - one CUDA device set up for PASCAL measurements: device
 * constants, the chosen fill counter (fill_metric.h), device buffers, and
 * measured runs of the kernels in kernels/ (L2 flushed before each measured
 * launch, fill bytes from CUPTI, kernel time from CUDA events, every result
 * checked against the host reference). Internal to the cuda backend (C++).
 */
#ifndef PASCAL_CUDA_RIG_H
#define PASCAL_CUDA_RIG_H

#include <stddef.h>
#include <stdint.h>

#include <functional>
#include <string>
#include <vector>

#include "cublaslt_lib.h"
#include "cupti_session.h"
#include "fill_metric.h"
#include "pascal/calibration.h"
#include "pascal/error.h"
#include "pascal_kernels.h"

struct pcu_info {
  std::string name;
  std::string chip; /* CUPTI chip name, e.g. GH100 */
  int cc_major = 0, cc_minor = 0;
  uint32_t sm_count = 0;
  uint64_t l2_bytes = 0;
  uint64_t smem_per_sm = 0;
  uint64_t global_bytes = 0;
};

/* The cold read made at open time to pick / validate the fill counter. */
struct pcu_cold_read {
  double bytes = 0;                     /* logical bytes read once */
  std::vector<pcu_fill_metric> metrics; /* candidates then checks */
  std::vector<double> values;           /* bytes reported by each */
};

/* What one measured run costs besides its kernel: wall seconds per run
 * (medians) of an empty kernel measured as every job is (L2 flush, range
 * profiler enabled, configured and disabled around one pass, counters
 * decoded and evaluated) and of the same flush and timed launch without
 * CUPTI. */
struct pcu_run_cost {
  double with_cupti_s = 0;
  double without_cupti_s = 0;
};

/* A measured run: fill bytes (> 0) and kernel time (ns, > 0). */
struct pcu_sample {
  double fill_bytes = 0;
  double kernel_ns = 0;
};

class pcu_rig {
public:
  /* Select `device`, create its context, open CUPTI, choose the fill
   * counter (cold-read test) and allocate the flush buffer. */
  static pascal_status open(int device, pcu_rig **out, pascal_error *err);
  ~pcu_rig();

  const pcu_info &info() const
  {
    return info_;
  }
  const pcu_fill_metric &metric() const
  {
    return metric_;
  }
  const pcu_cold_read &cold_read() const
  {
    return cold_;
  }

  /* Open scan: W x M CTAs (M = SMs x o) over N blocks of cfg.block_bytes. */
  pascal_status run_open_scan(const pascal_kern_open_config &cfg, uint64_t n_blocks, uint64_t w,
                              pcu_sample *out, pascal_error *err);
  /* Static scan: one CTA per phase, `rounds` rounds with a grid barrier. */
  pascal_status run_static_scan(const std::vector<uint32_t> &phases, uint64_t n_blocks,
                                uint32_t block_bytes, uint64_t rounds, pcu_sample *out,
                                pascal_error *err);
  /* FP16 GEMM Mg x Ng x Kg (FP32 accumulate and output) on the
   * implementation `g` names: the project's kernel (multiples of 128, 128,
   * 64) or cuBLASLt with g's explicit configuration (cublaslt_gemm.h; a
   * configuration cuBLASLt rejects fails the run). Sampled outputs are
   * compared with exact host dot products. */
  pascal_status run_gemm(const pascal_gemm_params &g, uint32_t mg, uint32_t ng, uint32_t kg,
                         pcu_sample *out, pascal_error *err);
  /* A configuration run (plan kind gemm-configs) Mg x Ng x Kg, run as
   * stated: on the project's own staged kernel where it runs the
   * configuration (pascal_gemm_own_runs_config: 128 x 128 x 64, any stages
   * up to its maximum and any group_m), else on cuBLASLt with its tile and
   * stages on the launch attributes of the first heuristic answer it
   * accepts them with (a configuration cuBLASLt cannot express or refuses
   * fails the run in one line), else, cuBLASLt missing, the run fails
   * naming both reasons. *note (may be NULL) says which ran. */
  pascal_status run_gemm_config(const pascal_gemm_config &c, uint32_t mg, uint32_t ng, uint32_t kg,
                                pcu_sample *out, std::string *note, pascal_error *err);
  /* cuBLASLt, loaded on first use (cublaslt_lib.h, PASCAL_CUBLASLT from the
   * environment); PASCAL_ENOTFOUND, field "impl", saying why it is absent. */
  pascal_status cublaslt(const pcu_cublaslt **out, pascal_error *err);
  /* What run_gemm and run_gemm_config share: one CUPTI-measured launch of
   * `step` on operands x, its result checked (col_major: cuBLASLt's). */
  pascal_status measure_gemm(struct pcu_gemm_operands &x,
                             const std::function<pascal_status(pascal_error *)> &step,
                             bool col_major, const char *what, uint32_t mg, uint32_t ng,
                             uint32_t kg, pcu_sample *out, pascal_error *err);
  /* An attention plan's run (docs/attention.md): W x M CTAs of the
   * FlashAttention-2 kernel at occupancy o and depth `stages`, W query
   * tiles of each of M = sm_count o heads sharing one K/V head of N steps;
   * sampled output rows are compared with a double-precision host
   * reference. */
  pascal_status run_attention(uint32_t o, uint32_t stages, uint64_t n_steps, uint64_t w,
                              pcu_sample *out, pascal_error *err);
  /* Read `bytes` of cold data once; values of `metrics` in bytes. */
  pascal_status measure_cold_read(uint64_t bytes, const std::vector<pcu_fill_metric> &metrics,
                                  std::vector<double> *values, pascal_error *err);

  /* `n` runs of an empty kernel each way (pcu_run_cost). */
  pascal_status measure_cost(unsigned n, pcu_run_cost *out, pascal_error *err);

  /* Make the rig's device current on the calling thread: a thread the CUDA
   * runtime has not seen starts on device 0 (the agent runs every job on a
   * thread of its own). */
  pascal_status bind_thread(pascal_error *err);
  /* After a failed run: when the device's context is lost (a kernel fault
   * such as an illegal address is sticky: every later CUDA call returns it),
   * delete *rig and reset the device, leaving *rig NULL so that a fresh rig
   * can be opened; otherwise leave *rig as it is. */
  static void drop_if_lost(pcu_rig **rig);

private:
  pcu_rig() = default;
  pascal_status choose_metric(pascal_error *err);
  pascal_status ensure_data(uint64_t bytes, pascal_error *err);
  pascal_status ensure_outputs(uint64_t ctas, pascal_error *err);
  const std::vector<uint32_t> &block_sums(uint64_t n_blocks, uint32_t block_bytes);

  int device_ = 0;
  pcu_info info_;
  pcu_cupti_session *cupti_ = nullptr;
  pcu_fill_metric metric_;
  pcu_cold_read cold_;
  void *flush_ = nullptr;
  uint64_t flush_bytes_ = 0;
  uint32_t *sink_ = nullptr;
  void *data_ = nullptr;
  uint64_t data_bytes_ = 0;
  uint32_t *checksum_ = nullptr, *iterations_ = nullptr, *phases_ = nullptr;
  uint64_t out_ctas_ = 0;
  std::vector<uint32_t> sums_;
  uint64_t sums_n_ = 0;
  uint32_t sums_b_ = 0;
  pcu_cublaslt *cublaslt_ = nullptr;

  friend struct pcu_rig_launch;
};

/* A measured step: enqueue the work of one run (a kernel, or a library
 * call that launches its own); a kernel launch becomes one with
 * pcu_cuda_step, its CUDA error a status naming `what`. */
typedef std::function<pascal_status(pascal_error *)> pcu_step;
pcu_step pcu_cuda_step(const char *what, std::function<cudaError_t()> kernel);

/* The operands of one FP16 GEMM Mg x Ng x Kg on the device, in the layout
 * of pascal_kern_gemm: A and B filled as pcu_gemm_check expects, C (FP32)
 * left as allocated; freed with the object. */
struct pcu_gemm_operands {
  __half *a = nullptr, *b = nullptr;
  float *c = nullptr;
  pascal_status make(uint32_t mg, uint32_t ng, uint32_t kg, pascal_error *err);
  ~pcu_gemm_operands();
};

/* Compare 64 sampled elements of the device matrix `c` (Mg x Ng, FP32,
 * row-major or column-major) with exact host dot products of the GEMM
 * inputs pascal_kern_fill_gemm_input wrote (seeds 1 and 2). */
pascal_status pcu_gemm_check(const float *c, uint32_t mg, uint32_t ng, uint32_t kg, bool col_major,
                             pascal_error *err);

/* The two entry points the shared library exports (C ABI); everything else
 * stays hidden. */
#define PCU_API extern "C" __attribute__((visibility("default")))

/* Map a CUDA runtime error of `what` to a status and message (no kernel
 * image for this architecture, no device, out of memory, ...). */
pascal_status pcu_fail(pascal_error *err, const char *what, cudaError_t e);

#endif
