/*
 * pascal/gemm_impl.h - which GEMM implementation a calibration measured
 * (bundle "gemm.impl", docs/bundle-format.md) and, for cuBLASLt, the two-way
 * encoding between a GEMM configuration (tile_m x tile_n x tile_k, stages,
 * CTA swizzling, split-K) and the algo configuration attributes that
 * cublasLtMatmulAlgoConfigSetAttribute() takes (CUBLASLT_ALGO_CONFIG_TILE_ID,
 * _STAGES_ID, _CTA_SWIZZLING, _SPLITK_NUM, and Hopper's _CUSTOM_OPTION,
 * _INNER_SHAPE_ID, _CLUSTER_SHAPE_ID). Beyond the paper: its GEMM is
 * one tiled kernel (Appendix "GEMM instantiation"); this names the kernel
 * users run instead.
 *
 * The cuBLASLt ids are those of cublasLt.h (CUDA 12 and 13, which agree on
 * every entry below); the lists are X-macros so that the GPU tests compare
 * each one with the header at compile time, and PASCAL needs no cuBLAS
 * header or library to read or write a bundle. A cuBLASLt tile "MxN" is
 * M output rows (the GEMM's Mg direction) by N output columns (Ng); a stages
 * id "KxS" is S buffered k-steps of K elements each (tile_k = K), and
 * "KxAUTO" leaves S to the library (stages 0 here).
 */
#ifndef PASCAL_GEMM_IMPL_H
#define PASCAL_GEMM_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "pascal/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pascal_gemm_impl {
  PASCAL_GEMM_IMPL_OWN = 0,     /* the project's wmma kernel; bundle: "impl" absent */
  PASCAL_GEMM_IMPL_CUBLASLT = 1 /* cuBLASLt with an explicit algo configuration      */
} pascal_gemm_impl;

/* X(M, N, id): the cublasLtMatmulTile_t values PASCAL can name, CUBLASLT_MATMUL_TILE_MxN = id.
 * Every two-sided tile of CUDA 11 (ids 1-35) and the large square-ish ones of CUDA 12/13. */
// clang-format off
#define PASCAL_CUBLASLT_TILES(X)                                                                   \
  X(8, 8, 1)      X(8, 16, 2)     X(16, 8, 3)     X(8, 32, 4)     X(16, 16, 5)    X(32, 8, 6)      \
  X(8, 64, 7)     X(16, 32, 8)    X(32, 16, 9)    X(64, 8, 10)    X(32, 32, 11)   X(32, 64, 12)    \
  X(64, 32, 13)   X(32, 128, 14)  X(64, 64, 15)   X(128, 32, 16)  X(64, 128, 17)  X(128, 64, 18)   \
  X(64, 256, 19)  X(128, 128, 20) X(256, 64, 21)  X(64, 512, 22)  X(128, 256, 23) X(256, 128, 24)  \
  X(512, 64, 25)  X(64, 96, 26)   X(96, 64, 27)   X(96, 128, 28)  X(128, 160, 29) X(160, 128, 30)  \
  X(192, 128, 31) X(128, 192, 32) X(128, 96, 33)  X(32, 256, 34)  X(256, 32, 35)  X(128, 384, 177) \
  X(192, 192, 209) X(192, 256, 210) X(256, 192, 232) X(128, 512, 447) X(256, 256, 513)             \
  X(512, 128, 587)

/* X(K, S_NAME, S, id): the cublasLtMatmulStages_t values, CUBLASLT_MATMUL_STAGES_KxS_NAME = id;
 * S = 0 for the AUTO entries (the library chooses the number of stages). All of them. */
#define PASCAL_CUBLASLT_STAGES(X)                                                                  \
  X(16, 1, 1, 1)    X(16, 2, 2, 2)    X(16, 3, 3, 3)    X(16, 4, 4, 4)    X(16, 5, 5, 5)           \
  X(16, 6, 6, 6)    X(32, 1, 1, 7)    X(32, 2, 2, 8)    X(32, 3, 3, 9)    X(32, 4, 4, 10)          \
  X(32, 5, 5, 11)   X(32, 6, 6, 12)   X(64, 1, 1, 13)   X(64, 2, 2, 14)   X(64, 3, 3, 15)          \
  X(64, 4, 4, 16)   X(64, 5, 5, 17)   X(64, 6, 6, 18)   X(128, 1, 1, 19)  X(128, 2, 2, 20)         \
  X(128, 3, 3, 21)  X(128, 4, 4, 22)  X(128, 5, 5, 23)  X(128, 6, 6, 24)  X(32, 10, 10, 25)        \
  X(8, 4, 4, 26)    X(16, 10, 10, 27) X(8, 5, 5, 28)    X(8, 3, 3, 31)    X(8, AUTO, 0, 32)        \
  X(16, AUTO, 0, 33) X(32, AUTO, 0, 34) X(64, AUTO, 0, 35) X(128, AUTO, 0, 36)                     \
  X(256, AUTO, 0, 37) X(768, AUTO, 0, 38)
// clang-format on

/* The largest split-K PASCAL asks for (cuBLASLt takes any int32 >= 1; a
 * larger one splits a 4096-deep product below one 16-wide k-step). */
#define PASCAL_CUBLASLT_MAX_SPLIT_K 256u

/* cuBLASLt's algo configuration, as its attributes take it. */
typedef struct pascal_cublaslt_config {
  uint32_t algo;          /* CUBLASLT_ALGO_CONFIG_ID, the id given to cublasLtMatmulAlgoInit */
  uint32_t tile_id;       /* CUBLASLT_ALGO_CONFIG_TILE_ID (a cublasLtMatmulTile_t)            */
  uint32_t stages_id;     /* CUBLASLT_ALGO_CONFIG_STAGES_ID (a cublasLtMatmulStages_t)        */
  uint32_t cta_swizzling; /* CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING: 0 or 1                       */
  int32_t split_k;        /* CUBLASLT_ALGO_CONFIG_SPLITK_NUM: 1 .. PASCAL_CUBLASLT_MAX_SPLIT_K */
  /* The attributes Hopper (sm_90) kernels state beside the ones above; 0 is
   * cublasLtMatmulAlgoInit's default for each (option 0, INNER_SHAPE_UNDEFINED,
   * CLUSTER_SHAPE_AUTO), which an sm_90 algo of the heuristic need not accept. */
  uint32_t custom_option;    /* CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION                        */
  uint32_t inner_shape_id;   /* CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID (uint16_t there)      */
  uint32_t cluster_shape_id; /* CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID (uint16_t there)    */
} pascal_cublaslt_config;

/* The largest inner and cluster shape id (the attributes are uint16_t). */
#define PASCAL_CUBLASLT_MAX_SHAPE_ID 65535u

struct pascal_gemm_params; /* pascal/calibration.h */

/* "own" / "cublaslt"; NULL for an invalid value. */
const char *pascal_gemm_impl_name(pascal_gemm_impl impl);
/* Parse "own" / "cublaslt"; PASCAL_EINVAL naming `field` otherwise. */
pascal_status pascal_gemm_impl_parse(const char *text, const char *field, pascal_gemm_impl *out,
                                     pascal_error *err);

/* The configuration fields of `g` that belong to its implementation: for the
 * own kernel algo, cta_swizzling and split_k are 0 (not stated); for cuBLASLt
 * the configuration encodes (pascal_cublaslt_encode). Errors name
 * "gemm.<field>". Does not check tile_m/n/k against a shape. */
pascal_status pascal_gemm_impl_check(const struct pascal_gemm_params *g, pascal_error *err);

/* GEMM configuration -> cuBLASLt attributes. `g->impl` must be cuBLASLt;
 * (tile_m, tile_n) must be a tile of PASCAL_CUBLASLT_TILES, (tile_k, stages)
 * a stages id of PASCAL_CUBLASLT_STAGES (stages 0: KxAUTO), cta_swizzling 0
 * or 1, split_k in 1..PASCAL_CUBLASLT_MAX_SPLIT_K, inner_shape_id and
 * cluster_shape_id at most PASCAL_CUBLASLT_MAX_SHAPE_ID (custom_option is
 * any uint32). PASCAL_EINVAL naming "gemm.tile_m", "gemm.stages",
 * "gemm.cta_swizzling", "gemm.split_k", "gemm.inner_shape_id",
 * "gemm.cluster_shape_id" or "gemm.impl" otherwise; *out is written only on
 * success. */
pascal_status pascal_cublaslt_encode(const struct pascal_gemm_params *g,
                                     pascal_cublaslt_config *out, pascal_error *err);

/* cuBLASLt attributes -> GEMM configuration: sets impl (cuBLASLt), tile_m,
 * tile_n, tile_k, stages, algo, cta_swizzling, split_k, custom_option,
 * inner_shape_id and cluster_shape_id of *g and leaves its other fields.
 * PASCAL_EINVAL naming "tile_id", "stages_id", "cta_swizzling", "split_k",
 * "inner_shape_id" or "cluster_shape_id" for a value outside the tables and ranges
 * above (CUBLASLT_MATMUL_TILE_UNDEFINED and _STAGES_UNDEFINED included); *g
 * is written only on success. encode(decode(c)) == c for every c that
 * decodes, and decode(encode(g)) restores g's configuration fields. */
pascal_status pascal_cublaslt_decode(const pascal_cublaslt_config *c, struct pascal_gemm_params *g,
                                     pascal_error *err);

/* A configuration run (pascal/plan.h, plan kind gemm-configs) as cuBLASLt
 * runs it: (tile_m, tile_n) -> TILE_ID, (tile_k, stages) -> STAGES_ID,
 * CTA swizzling 0 and split-K 1; the algo id and the Hopper attributes
 * (custom option, inner and cluster shape) are those of `heuristic`, the
 * first answer cuBLASLt's heuristic gave for the shape, which an sm_90
 * algo needs as stated. Into *out: impl cuBLASLt, the tile, stages and
 * those attributes, ready for pascal_cublaslt_encode. What cuBLASLt cannot
 * express is refused in one line (PASCAL_EINVAL): elem_bytes other than 2
 * (field "configuration.elem_bytes": the rig runs FP16 operands), group_m
 * other than 1 ("configuration.group_m": its swizzling is on or off, not a
 * grouped raster of G tile rows), a tile or (tile_k, stages) without a
 * cuBLASLt id ("configuration.tile_m", "configuration.stages"). */
struct pascal_gemm_config; /* pascal/calibration.h */
pascal_status pascal_cublaslt_of_config(const struct pascal_gemm_config *c,
                                        const pascal_cublaslt_config *heuristic,
                                        struct pascal_gemm_params *out, pascal_error *err);

/* Whether the project's own staged kernel (kernels/gemm.cu,
 * pascal_kern_gemm_staged) runs configuration `c` as stated: the 128 x 128
 * x 64 FP16 tile, 1..PASCAL_GEMM_OWN_STAGES_MAX stages, any group_m. The
 * cuda backend's fallback when cuBLASLt is missing; PASCAL_EINVAL naming
 * "configuration.<member>" in one line otherwise. */
#define PASCAL_GEMM_OWN_STAGES_MAX 4u
pascal_status pascal_gemm_own_runs_config(const struct pascal_gemm_config *c, pascal_error *err);

/* "algo 66 tile 128x256 stages 64x3 swizzle 0 split-k 1" into buf (always
 * NUL-terminated), followed by " custom-option 1", " inner-shape 4" and
 * " cluster-shape 3" for those that are not 0; ids outside the tables print
 * as "tile id 600". */
void pascal_cublaslt_describe(const pascal_cublaslt_config *c, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
