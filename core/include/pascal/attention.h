/*
 * pascal/attention.h - attention as a shared cyclic scan (paper section 1:
 * "different query tiles share the same key and value blocks"; the
 * exploratory FlashAttention-2 section of the evaluation; docs/attention.md).
 *
 * A multi-query FlashAttention-2 forward kernel runs one CTA per (query tile
 * of block_q rows, head); each CTA loads its query tile once, then streams
 * the one shared K and V in steps of block_kv rows through a pipeline of
 * `stages` buffers (QK^T, online softmax, PV per step) and writes its output
 * tile once. Every CTA reads the same K/V steps in the same order: the K/V
 * traffic is a shared cyclic scan, and the query tiles are private reads
 * that no other CTA repeats. The mapping onto the scan's coordinates:
 *
 *   block   one K/V step, b = 2 block_kv head_dim elem_bytes bytes (the
 *           calibration requires b = device.block_bytes)
 *   N       ceil(seq_kv / block_kv) steps per scan
 *   d       stages (the tma path: bulk copies into d buffers)
 *   m       2 block_q block_kv head_dim / 16^3: the 16x16x16 tensor-core
 *           products of QK^T and PV per step (the tiling fixes it)
 *   o       the kernel's resident CTAs per SM at depth d: the calibration's
 *   W       CTAs / M, CTAs = ceil(seq_q / block_q) heads, M = sm_count o
 *
 * Query-adjusted traffic: the fills V of a run hold the query tiles, read
 * exactly once each, Q = seq_q heads head_dim elem_bytes bytes (W M q for a
 * calibration run, q = block_q head_dim elem_bytes). PASCAL's excess
 * coordinate is taken on the shared K/V part only, K = (V - Q) / (b W N),
 * and the prediction adds Q back: V = Q + K b W N. The static reference B0
 * (K = 1: every wave reads K/V once, the queries once) is Q + b W N; the
 * output O (written, not a fill) is reported beside it.
 *
 * Modelled: multi-query K/V (kv_heads = 1), no causal mask, the
 * calibration's tiling. Grouped-query K/V (several scans at once), causal
 * masking (a CTA scans only the steps up to its diagonal: not a cyclic scan
 * of one length) and another tiling are refused with the reason, never
 * answered from the wrong model.
 */
#ifndef PASCAL_ATTENTION_H
#define PASCAL_ATTENTION_H

#include <stdint.h>

#include "pascal/calibration.h"
#include "pascal/error.h"
#include "pascal/predict.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An attention launch as a user states it (the /v1/predict fields). A zero
 * block_q, block_kv or elem_bytes means "the calibration's"; kv_heads 0
 * means 1 (multi-query); causal is 0 or 1. */
typedef struct pascal_attention_shape {
  uint32_t seq_q, seq_kv;     /* query and key/value sequence lengths */
  uint32_t heads, kv_heads;   /* query heads; K/V heads               */
  uint32_t head_dim;          /* columns of Q, K, V, O                */
  uint32_t block_q, block_kv; /* the kernel's tiles                   */
  uint32_t stages;            /* pipeline depth of the K/V stream     */
  uint32_t elem_bytes;        /* bytes per element                    */
  uint32_t causal;            /* 1: causal mask (refused)             */
} pascal_attention_shape;

/* The tiling calibrations default to and attention plans measure: 64 x 64,
 * head_dim 64, FP16 (a 16 KiB K/V step, m = 128). */
#define PASCAL_ATTENTION_DEFAULT ((pascal_attention_params){64, 64, 64, 2})

/* 16x16x16 tensor-core products per K/V step: 2 block_q block_kv head_dim /
 * 4096 (QK^T and PV). */
uint32_t pascal_attention_m(const pascal_attention_params *a);
/* Bytes of one query tile (block_q head_dim elem_bytes) and of one K/V
 * step (2 block_kv head_dim elem_bytes). */
double pascal_attention_q_tile_bytes(const pascal_attention_params *a);
double pascal_attention_step_bytes(const pascal_attention_params *a);

/* Check a tiling for a device whose block is `block_bytes`: every member
 * >= 1, block_q, block_kv and head_dim multiples of 16, the K/V step equal to
 * the block. Errors name "attention.block_q", ... (PASCAL_EINVAL). */
pascal_status pascal_attention_params_check(const pascal_attention_params *a, uint32_t block_bytes,
                                            pascal_error *err);

/* Shared memory one CTA of the attention kernel (kernels/attention.cu)
 * takes at depth `stages`: its pipeline barriers (128 bytes per 16
 * stages), the query tile, `stages` K/V steps, the scores (FP32), the
 * probabilities (FP16), the output accumulator (FP32), the row maxima and
 * sums (FP32), and the driver's 1 KiB reservation per CTA. Default tiling:
 * 50816 + 16384 stages bytes. */
double pascal_attention_smem_bytes(const pascal_attention_params *a, uint32_t stages);

/* The kernel's resident CTAs per SM at depth `stages`: as many CTAs as
 * pascal_attention_smem_bytes fits in smem_per_sm, capped at max_occupancy
 * (0 smem: no limit); 0 when not even one fits. The occupancy the
 * attention plans measure at each depth. */
uint32_t pascal_attention_occupancy(const pascal_attention_params *a, uint32_t stages,
                                    uint64_t smem_per_sm, uint32_t max_occupancy);

/* The query tiles' bytes in the fills of a calibration run with W M CTAs:
 * W sm_count o q. */
double pascal_attention_run_q_bytes(const pascal_attention_params *a, uint32_t sm_count,
                                    const pascal_scan_run *run);

/* An attention prediction: the shared K/V scan in the scan's coordinates
 * (its K, explanation, extrapolations, advice and expected error), and the
 * traffic of the whole launch. */
typedef struct pascal_attention_prediction {
  pascal_scan_key key;       /* (o, tma, stages, m)                         */
  uint32_t N;                /* K/V steps per scan                          */
  double W;                  /* CTAs / M                                    */
  uint64_t ctas;             /* ceil(seq_q / block_q) heads                 */
  pascal_scan_prediction kv; /* the K/V scan: K, its fill bytes K b W N ... */
  double K;                  /* kv.K: the excess on the shared K/V traffic  */
  double q_bytes;            /* query tiles read once: seq_q heads hd e     */
  double kv_bytes;           /* one pass over K and V: b N                  */
  double o_bytes;            /* output written once (not a fill)            */
  double b0_bytes;           /* static reference, K = 1: q_bytes + b W N    */
  double fill_bytes;         /* predicted fills: q_bytes + kv.fill_bytes    */
} pascal_attention_prediction;

/* Predict `shape` from an attention model. PASCAL_EINVAL for a model of
 * another workload (field "workload"), kv_heads not dividing heads
 * ("kv_heads"), a sequence whose steps exceed 2^32 - 1 ("seq_kv"); PASCAL_EREFUSED for
 * what the model does not describe: causal ("causal"), kv_heads > 1
 * ("kv_heads"), a tiling other than the calibration's ("block_q",
 * "block_kv", "head_dim", "elem_bytes"), a depth the calibration did not
 * measure or measured at more than one occupancy ("stages"), and the
 * scan's own refusals. `out` is written only on success. */
pascal_status pascal_model_predict_attention(const pascal_model *model,
                                             const pascal_attention_shape *shape,
                                             pascal_attention_prediction *out, pascal_error *err);

/* The attention tiling of an attention model (NULL for another workload). */
const pascal_attention_params *pascal_model_attention(const pascal_model *model);

#ifdef __cplusplus
}
#endif
#endif
