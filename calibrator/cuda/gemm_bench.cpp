/*
 * gemm_bench.cpp - the probe's GEMM TFLOP/s (gemm_bench.h): one set of
 * 4096^3 operands, each implementation checked once and then timed over
 * warm repeats; for cuBLASLt the heuristic's algo and explicit
 * configurations of it: its own full configuration, then other tiles the
 * algo lists (one not listed is skipped, saying so).
 */
#include "gemm_bench.h"

#include <functional>

#include "cublaslt_gemm.h"
#include "cuda_rig.h"
#include "peak_math.h"

namespace {

/* The tiles tried beside the heuristic's, in this order, where the algo
 * lists them: those users' tuners name for a large FP16 GEMM. */
const uint32_t kTiles[] = {23, 24, 20}; /* 128x256, 256x128, 128x128 */
const unsigned kWarmup = 2;

bool listed(const std::vector<uint32_t> &ids, uint32_t id)
{
  for (uint32_t v : ids)
    if (v == id)
      return true;
  return false;
}

/* Run `step` kWarmup times, then `repeats` times each between two events;
 * the median in milliseconds. */
pascal_status time_median(const pcu_step &step, unsigned repeats, double *ms, pascal_error *err)
{
  cudaEvent_t start = nullptr, stop = nullptr;
  std::vector<double> t;
  pascal_status st = PASCAL_OK;
  cudaError_t e = cudaEventCreate(&start);
  if (e == cudaSuccess)
    e = cudaEventCreate(&stop);
  for (unsigned i = 0; i < kWarmup && e == cudaSuccess && st == PASCAL_OK; ++i)
    st = step(err);
  for (unsigned i = 0; i < repeats && e == cudaSuccess && st == PASCAL_OK; ++i) {
    float one = 0;
    if ((e = cudaEventRecord(start, nullptr)) != cudaSuccess || (st = step(err)) != PASCAL_OK ||
        (e = cudaEventRecord(stop, nullptr)) != cudaSuccess ||
        (e = cudaEventSynchronize(stop)) != cudaSuccess ||
        (e = cudaEventElapsedTime(&one, start, stop)) != cudaSuccess)
      break;
    t.push_back(one);
  }
  if (e == cudaSuccess && st == PASCAL_OK)
    e = cudaDeviceSynchronize();
  if (start != nullptr)
    cudaEventDestroy(start);
  if (stop != nullptr)
    cudaEventDestroy(stop);
  if (st != PASCAL_OK)
    return st;
  if (e != cudaSuccess)
    return pcu_fail(err, "timed GEMM", e);
  *ms = pcu_peak_median(t);
  return PASCAL_OK;
}

/* Check the result of one run of `step`, then time it into fig->tflops. */
pascal_status measure(const pcu_gemm_bench &b, const pcu_step &step, float *c, bool col_major,
                      pcu_gemm_figure *fig, pascal_error *err)
{
  double ms = 0;
  pascal_status st = cudaMemset(c, 0, (size_t)b.m * b.n * sizeof(float)) == cudaSuccess
                         ? step(err)
                         : pascal_error_set(err, PASCAL_EINVAL, "result", "cannot clear C");
  cudaError_t e = cudaSuccess;
  if (st == PASCAL_OK && (e = cudaDeviceSynchronize()) != cudaSuccess)
    st = pcu_fail(err, "GEMM run", e);
  if (st == PASCAL_OK)
    st = pcu_gemm_check(c, b.m, b.n, b.k, col_major, err);
  if (st == PASCAL_OK)
    st = time_median(step, b.repeats, &ms, err);
  if (st == PASCAL_OK)
    fig->tflops = 2.0 * b.m * b.n * b.k / (ms * 1e-3) / 1e12;
  else
    fig->error = err->message;
  return st;
}

/* The cuBLASLt figures: the heuristic's, then each candidate's. */
void measure_cublaslt(const pcu_cublaslt *lib, const __half *a, const __half *bm, float *c,
                      pcu_gemm_bench *b)
{
  pascal_error err;
  pcu_lt_gemm *g = nullptr;
  pcu_lt_caps cap;
  b->heuristic.cublaslt = true;
  if (pcu_lt_gemm::create(lib, b->m, b->n, b->k, &g, &err) != PASCAL_OK ||
      g->use_heuristic(&b->heuristic.config, &err) != PASCAL_OK) {
    b->heuristic.error = err.message;
    delete g;
    return;
  }
  const pcu_step run = [&](pascal_error *e) { return g->run(a, bm, c, e); };
  (void)measure(*b, run, c, true, &b->heuristic, &err);
  if (g->caps(b->heuristic.config.algo, &cap, &err) != PASCAL_OK) {
    pcu_gemm_figure f;
    f.cublaslt = true;
    f.config = b->heuristic.config;
    f.error = err.message;
    b->explicit_configs.push_back(f);
  }
  for (pcu_gemm_figure &f : pcu_gemm_candidates(cap, b->heuristic.config)) {
    pascal_error_clear(&err);
    if (!f.skipped && g->use_config(f.config, &err) == PASCAL_OK)
      (void)measure(*b, run, c, true, &f, &err);
    else if (!f.skipped)
      f.error = err.message;
    b->explicit_configs.push_back(f);
  }
  delete g;
}

/* The bundle's gemm keys of `c` (ids where PASCAL cannot name its tile or
 * stages); the Hopper attributes only where they are not 0, as a bundle
 * writes them. */
void print_config(FILE *out, const pascal_cublaslt_config &c)
{
  pascal_gemm_params g{};
  if (pascal_cublaslt_decode(&c, &g, nullptr) == PASCAL_OK)
    fprintf(out,
            "{\"algo\":%u,\"tile_m\":%u,\"tile_n\":%u,\"tile_k\":%u,\"stages\":%u,"
            "\"cta_swizzling\":%u,\"split_k\":%u",
            g.algo, g.tile_m, g.tile_n, g.tile_k, g.stages, g.cta_swizzling, g.split_k);
  else
    fprintf(out, "{\"algo\":%u,\"tile_id\":%u,\"stages_id\":%u,\"cta_swizzling\":%u,\"split_k\":%d",
            c.algo, c.tile_id, c.stages_id, c.cta_swizzling, c.split_k);
  if (c.custom_option != 0)
    fprintf(out, ",\"custom_option\":%u", c.custom_option);
  if (c.inner_shape_id != 0)
    fprintf(out, ",\"inner_shape_id\":%u", c.inner_shape_id);
  if (c.cluster_shape_id != 0)
    fprintf(out, ",\"cluster_shape_id\":%u", c.cluster_shape_id);
  fprintf(out, "}");
}

void print_figure_json(FILE *out, const pcu_gemm_figure *f)
{
  if (f == nullptr || f->tflops <= 0) {
    fprintf(out, "null");
    return;
  }
  fprintf(out, "{\"config\":");
  print_config(out, f->config);
  fprintf(out, ",\"tflops\":%.2f}", f->tflops);
}

} // namespace

std::vector<pcu_gemm_figure> pcu_gemm_candidates(const pcu_lt_caps &cap,
                                                 const pascal_cublaslt_config &heuristic)
{
  std::vector<pcu_gemm_figure> out(1);
  out[0].cublaslt = true;
  out[0].config = heuristic;
  for (uint32_t t : kTiles) {
    if (t == heuristic.tile_id)
      continue;
    pcu_gemm_figure f = out[0];
    f.config.tile_id = t;
    if (!listed(cap.tiles, t)) {
      char what[128];
      pascal_cublaslt_describe(&f.config, what, sizeof what);
      f.skipped = true;
      f.error = std::string("its tile is not among the ") + std::to_string(cap.tiles.size()) +
                " tile id(s) algo " + std::to_string(heuristic.algo) + " lists";
    }
    out.push_back(f);
  }
  return out;
}

pcu_cublaslt *pcu_gemm_cublaslt_line(FILE *out, const char *env)
{
  pcu_cublaslt *lib = nullptr;
  std::string why;
  if (pcu_cublaslt::open(env, &lib, &why))
    fprintf(out, "cuBLASLt      %s (version %zu), loaded at run time\n", lib->path().c_str(),
            lib->version());
  else
    fprintf(out, "cuBLASLt      not loaded, the GEMM runs on the project's wmma kernel: %s\n",
            why.c_str());
  return lib;
}

pascal_status pcu_gemm_bench_run(const pcu_cublaslt *lib, pcu_gemm_bench *b, pascal_error *err)
{
  pcu_gemm_operands x;
  const uint32_t m = b->m, n = b->n, k = b->k;
  pascal_status st = x.make(m, n, k, err);
  if (st != PASCAL_OK)
    return st;
  const pcu_step own =
      pcu_cuda_step("GEMM", [&]() { return pascal_kern_gemm(x.a, x.b, x.c, m, n, k, nullptr); });
  if ((st = measure(*b, own, x.c, false, &b->own, err)) != PASCAL_OK)
    return st;
  b->have_cublaslt = lib != nullptr;
  if (lib != nullptr)
    measure_cublaslt(lib, x.a, x.b, x.c, b);
  return PASCAL_OK;
}

const pcu_gemm_figure *pcu_gemm_best_explicit(const pcu_gemm_bench &b)
{
  const pcu_gemm_figure *best = nullptr;
  for (const pcu_gemm_figure &f : b.explicit_configs)
    if (f.tflops > 0 && (best == nullptr || f.tflops > best->tflops))
      best = &f;
  return best;
}

void pcu_gemm_bench_print(FILE *out, const pcu_gemm_bench &b)
{
  char what[128];
  size_t failed = 0, measured = 0, skipped = 0;
  fprintf(out, "GEMM          %u x %u x %u FP16, FP32 accumulate: median of %u warm runs each\n",
          b.m, b.n, b.k, b.repeats);
  fprintf(out, "GEMM TFLOP/s  %8.1f  own wmma kernel 128x128x64\n", b.own.tflops);
  if (b.have_cublaslt) {
    pascal_cublaslt_describe(&b.heuristic.config, what, sizeof what);
    if (b.heuristic.tflops > 0)
      fprintf(out, "GEMM TFLOP/s  %8.1f  cuBLASLt heuristic (%s)\n", b.heuristic.tflops, what);
    else
      fprintf(out, "GEMM TFLOP/s  %8s  cuBLASLt heuristic: %s\n", "-", b.heuristic.error.c_str());
    for (const pcu_gemm_figure &f : b.explicit_configs) {
      pascal_cublaslt_describe(&f.config, what, sizeof what);
      if (f.tflops > 0) {
        measured++;
      } else if (f.skipped) {
        fprintf(out, "cuBLASLt      skipped (%s): %s\n", what, f.error.c_str());
        skipped++;
      } else {
        fprintf(out, "cuBLASLt      not measured (%s): %s\n", what, f.error.c_str());
        failed++;
      }
    }
    const pcu_gemm_figure *best = pcu_gemm_best_explicit(b);
    if (best != nullptr) {
      pascal_cublaslt_describe(&best->config, what, sizeof what);
      fprintf(out, "GEMM TFLOP/s  %8.1f  cuBLASLt explicit, best of %zu measured (%s)\n",
              best->tflops, measured, what);
    } else {
      fprintf(out, "GEMM TFLOP/s  %8s  cuBLASLt explicit: none of %zu configurations ran\n", "-",
              b.explicit_configs.size() - skipped);
    }
  }
  fprintf(out, "gemm json: {\"m\":%u,\"n\":%u,\"k\":%u,\"repeats\":%u,\"own_tflops\":%.2f,", b.m,
          b.n, b.k, b.repeats, b.own.tflops);
  if (!b.have_cublaslt) {
    fprintf(out, "\"cublaslt\":null}\n");
    return;
  }
  fprintf(out, "\"cublaslt\":{\"heuristic\":");
  print_figure_json(out, &b.heuristic);
  fprintf(out, ",\"explicit_best\":");
  print_figure_json(out, pcu_gemm_best_explicit(b));
  fprintf(out, ",\"explicit_measured\":%zu,\"explicit_failed\":%zu,\"explicit_skipped\":%zu}}\n",
          measured, failed, skipped);
}
