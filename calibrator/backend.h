/*
 * backend.h - the contract between pascal-agent's job loop and a measurement
 * backend ("sim": the CPU sim device of core/simdev; "cuda": the CUDA kernels
 * with CUPTI fill counters).
 *
 * The agent claims a job from pascald, turns it into a pascal_backend_job,
 * calls run(), and uploads the pascal_backend_result. A backend never talks
 * HTTP and never sees tokens. All calls return a pascal_status and fill the
 * optional pascal_error with a message that names the cause (for CUDA:
 * "profiling restricted to admin users", "metric dram__bytes_read.sum not
 * available on GB10B", ...): a failed measurement is an error, never a zero.
 */
#ifndef PASCAL_AGENT_BACKEND_H
#define PASCAL_AGENT_BACKEND_H

#include <stdint.h>
#include <stdio.h>

#include "pascal/calibration.h"
#include "pascal/device_data.h"
#include "pascal/error.h"
#include "pascal/latency.h"
#include "pascal/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One measured run: the plan's run as pascald expanded it (scan: key
 * (o, path, d, m) with path SYNC = __ldcg and d == 0, TMA = bulk copies
 * into d buffers; size N in blocks; horizon W in scans per resident CTA;
 * gemm: the shape; the repeat index, also mixed into the sim seed), and the
 * device's block size, which a plan run does not carry. `gemm` names the
 * GEMM implementation and its configuration (pascal/gemm_impl.h); all zero
 * is the project's own kernel at its fixed 128x128x64 tile, which is what
 * every job of the calibration plans runs. A configuration run (run.config
 * set, plan kind gemm-configs) runs that configuration: on the sim as
 * `pascal sim gemm` does, on cuda through the project's own staged kernel
 * where it runs the configuration as stated, else through cuBLASLt (its
 * tile and stages as stated), which result.note then says. A backend runs
 * exactly the configuration asked for, or fails the job naming why (cuda:
 * neither implementation runs it as stated); it never substitutes
 * another. */
typedef struct pascal_backend_job {
  pascal_plan_run run;
  uint32_t block_bytes;    /* bytes per logical block (16384 by default) */
  pascal_gemm_params gemm; /* GEMM jobs only; elem_bytes, resident_ctas unused */
} pascal_backend_job;

typedef struct pascal_backend_result {
  double fill_bytes; /* DRAM -> L2 fill bytes for the whole run (> 0) */
  double kernel_ns;  /* kernel time, nanoseconds (> 0) */
  char note[192];    /* "" or one line the agent prints with the result: which
                        implementation ran a configuration run (cuda) */
} pascal_backend_result;

/* What the device is, for registering it with pascald. */
typedef struct pascal_backend_device {
  char name[64];
  char arch[32]; /* "sm_90", "sim", ... */
  uint32_t sm_count;
  uint32_t capacity_blocks; /* effective L2 capacity C in blocks */
  uint32_t block_bytes;
  uint64_t l2_bytes;           /* nominal L2 size */
  char cuda_name[64];          /* as CUDA reports it (sim: as its profile states it); "" unknown */
  uint32_t cc_major, cc_minor; /* compute capability; 0.0 unknown */
  uint64_t smem_per_sm;        /* shared memory per SM in bytes; 0: no limit (sim) */
  int has_peaks;               /* 1: peaks measured (sim: as its profile states them) */
  pascal_peaks peaks;          /* the latency pipeline's device peaks (pascal/latency.h) */
  int has_capacity_probe;      /* 1: the capacity scan below was run (sim: on every describe) */
  pascal_capacity_probe capacity_probe; /* pascal/device_data.h */
} pascal_backend_device;

/* One static phase-controlled run (paper Algorithm "static-kernel", the
 * cluster experiment of section 5.2): worker w requests block
 * (k + phases[w]) mod N in round k, for H rounds, with a grid barrier per
 * round. capacity_blocks is C in blocks of block_bytes: a simulated device
 * uses it, hardware has its own. */
typedef struct pascal_backend_static {
  uint64_t N;
  uint32_t M;
  const uint64_t *phases; /* M phases, each < N (borrowed) */
  uint64_t H;
  uint32_t block_bytes;
  uint32_t capacity_blocks;
} pascal_backend_static;

typedef struct pascal_backend pascal_backend; /* opaque, one per backend instance */

typedef struct pascal_backend_ops {
  const char *name; /* "sim" or "cuda" */
  /* Open the backend. `profile` is a device-profile file (sim) or NULL. */
  pascal_status (*open)(const char *profile, pascal_backend **out, pascal_error *err);
  /* Describe the device. `known_capacity` is the C already stored for it
   * (pascald's registration or --capacity-blocks, from an earlier probe with
   * repeats), 0 when there is none: a backend that measures C (cuda) then
   * reports the known value instead of measuring again; one whose C is a
   * constant (sim: the profile's) ignores it. */
  pascal_status (*describe)(pascal_backend *b, uint32_t known_capacity, pascal_backend_device *out,
                            pascal_error *err);
  pascal_status (*run)(pascal_backend *b, const pascal_backend_job *job, pascal_backend_result *out,
                       pascal_error *err);
  /* The static kernel above; fill_bytes of the whole run. */
  pascal_status (*run_static)(pascal_backend *b, const pascal_backend_static *run,
                              pascal_backend_result *out, pascal_error *err);
  void (*close)(pascal_backend *b);
  /* `pascal-agent --probe` on a device nobody has described yet: a report
   * for a person on `out` and the description, with the capacity C
   * measured (cuda: constants, fill metric, capacity scan, docs/gpu.md;
   * block_bytes 0 = 16384, repeats 0 = 3). NULL for a backend whose
   * describe() says all there is (sim). Needs no open(). */
  pascal_status (*probe)(FILE *out, uint32_t block_bytes, uint32_t repeats,
                         pascal_backend_device *device, pascal_error *err);
} pascal_backend_ops;

/* The backends compiled into this agent. cuda is NULL when the build has no
 * CUDA toolkit; the agent then says so and refuses --backend cuda. */
extern const pascal_backend_ops pascal_backend_sim_ops;
const pascal_backend_ops *pascal_backend_cuda_ops(void);

#ifdef __cplusplus
}
#endif
#endif
