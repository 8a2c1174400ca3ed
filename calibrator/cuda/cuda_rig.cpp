/*
 * cuda_rig.cpp - measured runs of the PASCAL kernels on one device (see
 * cuda_rig.h): flush L2, open a CUPTI range around exactly one launch timed
 * with CUDA events, then check the kernel's result on the host. A run whose
 * counter reads zero, or whose result is wrong, is an error, never a sample.
 */
#include "cuda_rig.h"

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>

#include "cublaslt_gemm.h"
#include "peak_kernels.h"
#include "peak_math.h"
#include "reference.h"

pcu_step pcu_cuda_step(const char *what, std::function<cudaError_t()> kernel)
{
  return [what, kernel](pascal_error *err) {
    const cudaError_t e = kernel();
    return e == cudaSuccess ? PASCAL_OK : pcu_fail(err, what, e);
  };
}

pascal_status pcu_gemm_operands::make(uint32_t mg, uint32_t ng, uint32_t kg, pascal_error *err)
{
  cudaError_t e = cudaMalloc(&a, (size_t)mg * kg * sizeof(__half));
  if (e == cudaSuccess)
    e = cudaMalloc(&b, (size_t)ng * kg * sizeof(__half));
  if (e == cudaSuccess)
    e = cudaMalloc(&c, (size_t)mg * ng * sizeof(float));
  if (e == cudaSuccess)
    e = pascal_kern_fill_gemm_input(a, (uint64_t)mg * kg, 1, nullptr);
  if (e == cudaSuccess)
    e = pascal_kern_fill_gemm_input(b, (uint64_t)ng * kg, 2, nullptr);
  if (e == cudaSuccess)
    e = cudaDeviceSynchronize();
  return e == cudaSuccess ? PASCAL_OK : pcu_fail(err, "GEMM buffers", e);
}

pcu_gemm_operands::~pcu_gemm_operands()
{
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
}

pascal_status pcu_fail(pascal_error *err, const char *what, cudaError_t e)
{
  switch (e) {
  case cudaErrorNoKernelImageForDevice:
  case cudaErrorInvalidDeviceFunction:
    return pascal_error_set(err, PASCAL_ENOTFOUND, "device",
                            "%s: no kernel image for this GPU's architecture in this build "
                            "(built for sm_%s; rebuild with PASCAL_CUDA_ARCHITECTURES)",
                            what, PASCAL_CUDA_ARCHS);
  case cudaErrorNoDevice:
  case cudaErrorInsufficientDriver:
    return pascal_error_set(err, PASCAL_ENOTFOUND, "device", "%s: no usable CUDA device (%s)", what,
                            cudaGetErrorString(e));
  case cudaErrorMemoryAllocation:
    return pascal_error_set(err, PASCAL_ENOMEM, "device", "%s: out of device memory", what);
  case cudaErrorCooperativeLaunchTooLarge:
    return pascal_error_set(err, PASCAL_EINVAL, "M",
                            "%s: more CTAs than can be co-resident for the grid barrier", what);
  default:
    return pascal_error_set(err, PASCAL_EINVAL, "device", "%s: %s", what, cudaGetErrorString(e));
  }
}

/* The closure a measured run hands to the CUPTI session. */
struct pcu_rig_launch {
  pcu_rig *rig;
  pcu_step kernel;
  cudaEvent_t start = nullptr, stop = nullptr;
  const char *what;

  static pascal_status prepare(void *ctx, pascal_error *err)
  {
    auto *l = static_cast<pcu_rig_launch *>(ctx);
    cudaError_t e = pascal_kern_l2_flush(static_cast<const uint4 *>(l->rig->flush_),
                                         l->rig->flush_bytes_, l->rig->sink_, nullptr);
    return e == cudaSuccess ? PASCAL_OK : pcu_fail(err, "L2 flush", e);
  }

  static pascal_status launch(void *ctx, pascal_error *err)
  {
    auto *l = static_cast<pcu_rig_launch *>(ctx);
    cudaError_t e = cudaEventRecord(l->start, nullptr);
    if (e != cudaSuccess)
      return pcu_fail(err, l->what, e);
    const pascal_status st = l->kernel(err);
    if (st != PASCAL_OK)
      return st;
    e = cudaEventRecord(l->stop, nullptr);
    return e == cudaSuccess ? PASCAL_OK : pcu_fail(err, l->what, e);
  }
};

namespace {

/* Measure `step` with the rig's flush and the given metrics. */
pascal_status measure_launch(pcu_cupti_session *cupti, pcu_rig *rig, const char *what,
                             pcu_step step, const std::vector<pcu_fill_metric> &metrics,
                             std::vector<double> *bytes, double *ns, pascal_error *err)
{
  pcu_rig_launch l{rig, std::move(step), nullptr, nullptr, what};
  std::vector<std::string> names;
  for (const pcu_fill_metric &m : metrics)
    names.push_back(m.name);
  std::vector<double> raw;
  float ms = 0.0f;
  pascal_status st = PASCAL_OK;
  cudaError_t e = cudaEventCreate(&l.start);
  if (e == cudaSuccess)
    e = cudaEventCreate(&l.stop);
  if (e != cudaSuccess) {
    st = pcu_fail(err, "cudaEventCreate", e);
    goto done;
  }
  st = cupti->measure(names, pcu_rig_launch::prepare, pcu_rig_launch::launch, &l, &raw, err);
  if (st != PASCAL_OK)
    goto done;
  if ((e = cudaEventElapsedTime(&ms, l.start, l.stop)) != cudaSuccess) {
    st = pcu_fail(err, "cudaEventElapsedTime", e);
    goto done;
  }
  bytes->clear();
  for (size_t i = 0; i < metrics.size(); ++i)
    bytes->push_back(raw[i] * metrics[i].bytes_per_unit);
  *ns = (double)ms * 1e6;
done:
  if (l.start != nullptr)
    cudaEventDestroy(l.start);
  if (l.stop != nullptr)
    cudaEventDestroy(l.stop);
  return st;
}

pascal_status measure_launch(pcu_cupti_session *cupti, pcu_rig *rig, const char *what,
                             std::function<cudaError_t()> kernel,
                             const std::vector<pcu_fill_metric> &metrics,
                             std::vector<double> *bytes, double *ns, pascal_error *err)
{
  return measure_launch(cupti, rig, what, pcu_cuda_step(what, std::move(kernel)), metrics, bytes,
                        ns, err);
}

/* A measured sample must have counted something: zero fills or time is a
 * measurement failure, never a value. */
pascal_status sample_from(const pcu_fill_metric &m, double fill, double ns, double logical,
                          pcu_sample *out, pascal_error *err)
{
  if (!(fill > 0.0))
    return pascal_error_set(err, PASCAL_ERANGE, "fill_bytes",
                            "counter %s read %g for a run of %.0f logical bytes", m.name.c_str(),
                            fill, logical);
  if (!(ns > 0.0))
    return pascal_error_set(err, PASCAL_ERANGE, "kernel_ns", "kernel time not measured");
  out->fill_bytes = fill;
  out->kernel_ns = ns;
  return PASCAL_OK;
}

template <typename T>
pascal_status copy_back(std::vector<T> *dst, const T *src, size_t n, pascal_error *err)
{
  dst->assign(n, T());
  cudaError_t e = cudaMemcpy(dst->data(), src, n * sizeof(T), cudaMemcpyDeviceToHost);
  return e == cudaSuccess ? PASCAL_OK : pcu_fail(err, "result copy", e);
}

} // namespace

pascal_status pcu_rig::open(int device, pcu_rig **out, pascal_error *err)
{
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0)
    return pascal_error_set(err, PASCAL_ENOTFOUND, "device", "no CUDA device: %s",
                            e != cudaSuccess ? cudaGetErrorString(e) : "device count is 0");
  if (device < 0 || device >= count)
    return pascal_error_set(err, PASCAL_EINVAL, "device", "device %d out of range (0..%d)", device,
                            count - 1);
  pcu_rig *r = new pcu_rig();
  pascal_status st = PASCAL_OK;
  cudaDeviceProp p;
  r->device_ = device;
  if ((e = cudaSetDevice(device)) != cudaSuccess || (e = cudaFree(nullptr)) != cudaSuccess ||
      (e = cudaGetDeviceProperties(&p, device)) != cudaSuccess) {
    st = pcu_fail(err, "device setup", e);
    goto fail;
  }
  r->info_.name = p.name;
  r->info_.cc_major = p.major;
  r->info_.cc_minor = p.minor;
  r->info_.sm_count = (uint32_t)p.multiProcessorCount;
  r->info_.l2_bytes = (uint64_t)p.l2CacheSize;
  r->info_.smem_per_sm = (uint64_t)p.sharedMemPerMultiprocessor;
  r->info_.global_bytes = (uint64_t)p.totalGlobalMem;
  if (p.major < 9) {
    st = pascal_error_set(err, PASCAL_ENOTFOUND, "device",
                          "%s is sm_%d%d; the PASCAL kernels need sm_90 or newer (TMA bulk copies)",
                          p.name, p.major, p.minor);
    goto fail;
  }
  /* Every kernel loaded now, so that no timed launch loads a module. */
  if ((e = pascal_kern_load_all()) != cudaSuccess) {
    st = pcu_fail(err, "kernel loading", e);
    goto fail;
  }
  if (r->info_.l2_bytes == 0) {
    st = pascal_error_set(err, PASCAL_ENOTFOUND, "device", "%s reports no L2 cache", p.name);
    goto fail;
  }
  /* The flush streams 3 x L2 (at least 64 MiB): more than L2 plus the
   * system-level cache of the integrated chips. */
  r->flush_bytes_ = std::max<uint64_t>(3 * r->info_.l2_bytes, 64ull << 20) / 16 * 16;
  if ((e = cudaMalloc(&r->flush_, r->flush_bytes_)) != cudaSuccess ||
      (e = cudaMalloc(&r->sink_, sizeof(uint32_t))) != cudaSuccess ||
      (e = cudaMemset(r->flush_, 0, r->flush_bytes_)) != cudaSuccess) {
    st = pcu_fail(err, "flush buffer", e);
    goto fail;
  }
  if ((st = pcu_cupti_session::open(device, &r->cupti_, err)) != PASCAL_OK)
    goto fail;
  r->info_.chip = r->cupti_->chip();
  if ((st = r->choose_metric(err)) != PASCAL_OK)
    goto fail;
  *out = r;
  return PASCAL_OK;
fail:
  delete r;
  return st;
}

pcu_rig::~pcu_rig()
{
  delete cupti_;
  delete cublaslt_;
  cudaFree(flush_);
  cudaFree(sink_);
  cudaFree(data_);
  cudaFree(checksum_);
  cudaFree(iterations_);
  cudaFree(phases_);
}

pascal_status pcu_rig::bind_thread(pascal_error *err)
{
  const cudaError_t e = cudaSetDevice(device_);
  return e == cudaSuccess ? PASCAL_OK : pcu_fail(err, "cudaSetDevice", e);
}

void pcu_rig::drop_if_lost(pcu_rig **rig)
{
  if (*rig == nullptr)
    return;
  cudaError_t e = cudaSetDevice((*rig)->device_);
  if (e == cudaSuccess)
    e = cudaDeviceSynchronize();
  if (e == cudaSuccess)
    return;
  delete *rig;
  *rig = nullptr;
  cudaDeviceReset();
}

pascal_status pcu_rig::choose_metric(pascal_error *err)
{
  pcu_fill_choice choice;
  pascal_status st = pcu_fill_choice_resolve(info_.chip, cupti_->availability(), &choice, err);
  if (st != PASCAL_OK)
    return st;
  const std::vector<pcu_fill_metric> all = pcu_fill_cold_read_metrics(choice);
  /* Cold read of twice the flush volume: far more than L2, so every line is
   * filled exactly once from memory. */
  const uint64_t bytes = 2 * flush_bytes_;
  std::vector<double> values;
  if ((st = measure_cold_read(bytes, all, &values, err)) != PASCAL_OK)
    return st;
  cold_.bytes = (double)bytes;
  cold_.metrics = all;
  cold_.values = values;
  std::vector<double> cand(values.begin(), values.begin() + (long)choice.candidates.size());
  const int pick = pcu_fill_pick(cand, (double)bytes);
  if (pick < 0) {
    std::string seen;
    for (size_t i = 0; i < cand.size(); ++i)
      seen += (i ? ", " : "") + choice.candidates[i].name + "=" + std::to_string(cand[i]);
    return pascal_error_set(err, PASCAL_ENOTFOUND, "metric",
                            "no fill counter on %s reports a cold read of %.0f bytes (%s)",
                            info_.chip.c_str(), (double)bytes, seen.c_str());
  }
  metric_ = choice.candidates[(size_t)pick];
  return PASCAL_OK;
}

pascal_status pcu_rig::ensure_data(uint64_t bytes, pascal_error *err)
{
  if (bytes <= data_bytes_)
    return PASCAL_OK;
  cudaFree(data_);
  data_ = nullptr;
  data_bytes_ = 0;
  cudaError_t e = cudaMalloc(&data_, bytes);
  if (e == cudaSuccess)
    e = pascal_kern_fill_pattern(static_cast<uint32_t *>(data_), bytes / 4, nullptr);
  if (e == cudaSuccess)
    e = cudaDeviceSynchronize();
  if (e != cudaSuccess)
    return pcu_fail(err, "scan data", e);
  data_bytes_ = bytes;
  return PASCAL_OK;
}

pascal_status pcu_rig::ensure_outputs(uint64_t ctas, pascal_error *err)
{
  if (ctas <= out_ctas_)
    return PASCAL_OK;
  cudaFree(checksum_);
  cudaFree(iterations_);
  cudaFree(phases_);
  checksum_ = iterations_ = phases_ = nullptr;
  out_ctas_ = 0;
  cudaError_t e = cudaMalloc(&checksum_, ctas * sizeof(uint32_t));
  if (e == cudaSuccess)
    e = cudaMalloc(&iterations_, ctas * sizeof(uint32_t));
  if (e == cudaSuccess)
    e = cudaMalloc(&phases_, ctas * sizeof(uint32_t));
  if (e != cudaSuccess)
    return pcu_fail(err, "result buffers", e);
  out_ctas_ = ctas;
  return PASCAL_OK;
}

const std::vector<uint32_t> &pcu_rig::block_sums(uint64_t n_blocks, uint32_t block_bytes)
{
  if (sums_n_ != n_blocks || sums_b_ != block_bytes) {
    sums_ = pascal_ref_block_sums(n_blocks, block_bytes);
    sums_n_ = n_blocks;
    sums_b_ = block_bytes;
  }
  return sums_;
}

pascal_status pcu_rig::measure_cold_read(uint64_t bytes,
                                         const std::vector<pcu_fill_metric> &metrics,
                                         std::vector<double> *values, pascal_error *err)
{
  bytes = bytes / 16 * 16;
  pascal_status st = ensure_data(bytes, err);
  if (st != PASCAL_OK)
    return st;
  const uint4 *data = static_cast<const uint4 *>(data_);
  uint32_t *sink = sink_;
  double ns = 0;
  return measure_launch(
      cupti_, this, "cold read", [=]() { return pascal_kern_l2_flush(data, bytes, sink, nullptr); },
      metrics, values, &ns, err);
}

pascal_status pcu_rig::measure_cost(unsigned n, pcu_run_cost *out, pascal_error *err)
{
  using clock = std::chrono::steady_clock;
  const auto seconds = [](clock::time_point a) {
    return std::chrono::duration<double>(clock::now() - a).count();
  };
  const std::vector<pcu_fill_metric> m{metric_};
  std::vector<double> with, without, fill;
  pcu_rig_launch l{this,
                   pcu_cuda_step("empty kernel", [] { return pascal_kern_peak_empty(nullptr); }),
                   nullptr, nullptr, "empty kernel"};
  pascal_status st = PASCAL_OK;
  cudaError_t e = cudaEventCreate(&l.start);
  if (e == cudaSuccess)
    e = cudaEventCreate(&l.stop);
  if (e != cudaSuccess)
    st = pcu_fail(err, "cudaEventCreate", e);
  for (unsigned i = 0; i < n && st == PASCAL_OK; ++i) {
    double ns = 0;
    const clock::time_point t0 = clock::now();
    if ((st = measure_launch(cupti_, this, l.what, l.kernel, m, &fill, &ns, err)) != PASCAL_OK)
      break;
    with.push_back(seconds(t0));
    const clock::time_point t1 = clock::now();
    float ms = 0;
    if ((st = pcu_rig_launch::prepare(&l, err)) != PASCAL_OK ||
        (st = pcu_rig_launch::launch(&l, err)) != PASCAL_OK)
      break;
    if ((e = cudaDeviceSynchronize()) != cudaSuccess ||
        (e = cudaEventElapsedTime(&ms, l.start, l.stop)) != cudaSuccess) {
      st = pcu_fail(err, "timed launch without CUPTI", e);
      break;
    }
    without.push_back(seconds(t1));
  }
  if (l.start != nullptr)
    cudaEventDestroy(l.start);
  if (l.stop != nullptr)
    cudaEventDestroy(l.stop);
  if (st != PASCAL_OK)
    return st;
  out->with_cupti_s = pcu_peak_median(with);
  out->without_cupti_s = pcu_peak_median(without);
  return PASCAL_OK;
}

pascal_status pcu_rig::run_open_scan(const pascal_kern_open_config &cfg, uint64_t n_blocks,
                                     uint64_t w, pcu_sample *out, pascal_error *err)
{
  pascal_kern_open_plan plan;
  cudaError_t e = pascal_kern_open_plan_make(device_, &cfg, &plan);
  if (e == cudaErrorInvalidConfiguration)
    return pascal_error_set(err, PASCAL_EINVAL, "o",
                            "occupancy o=%u not reachable on %s with %s d=%u, b=%u (nearest "
                            "verified occupancy %d)",
                            cfg.o, info_.name.c_str(), cfg.tma ? "tma" : "sync", cfg.d,
                            cfg.block_bytes, plan.occupancy);
  if (e != cudaSuccess)
    return pcu_fail(err, "occupancy plan", e);
  const uint64_t ctas = w * (uint64_t)info_.sm_count * cfg.o;
  if (ctas > 0x7fffffffull)
    return pascal_error_set(err, PASCAL_ERANGE, "W", "W x M = %llu CTAs exceeds the grid limit",
                            (unsigned long long)ctas);
  const uint64_t bytes = n_blocks * cfg.block_bytes;
  pascal_status st = ensure_data(bytes, err);
  if (st == PASCAL_OK)
    st = ensure_outputs(ctas, err);
  if (st != PASCAL_OK)
    return st;

  const uint4 *data = static_cast<const uint4 *>(data_);
  uint32_t *cs = checksum_, *it = iterations_;
  std::vector<pcu_fill_metric> m{metric_};
  std::vector<double> fill;
  double ns = 0;
  st = measure_launch(
      cupti_, this, "open scan",
      [=]() {
        return pascal_kern_open_scan(&cfg, &plan, data, n_blocks, (uint32_t)ctas, cs, it, nullptr);
      },
      m, &fill, &ns, err);
  if (st != PASCAL_OK)
    return st;

  std::vector<uint32_t> got_cs, got_it;
  if ((st = copy_back(&got_cs, cs, ctas, err)) != PASCAL_OK ||
      (st = copy_back(&got_it, it, ctas, err)) != PASCAL_OK)
    return st;
  const uint32_t want_cs = pascal_ref_open_checksum(block_sums(n_blocks, cfg.block_bytes));
  const uint32_t want_it =
      (uint32_t)((uint64_t)(PASCAL_KERN_OPEN_THREADS / 32u) * cfg.m * n_blocks);
  for (uint64_t c = 0; c < ctas; ++c)
    if (got_cs[c] != want_cs || got_it[c] != want_it)
      return pascal_error_set(err, PASCAL_ERANGE, "result",
                              "open scan result check failed at CTA %llu: checksum %u (want %u), "
                              "MMA count %u (want %u)",
                              (unsigned long long)c, got_cs[c], want_cs, got_it[c], want_it);
  return sample_from(metric_, fill[0], ns, (double)bytes * (double)ctas, out, err);
}

pascal_status pcu_rig::run_static_scan(const std::vector<uint32_t> &phases, uint64_t n_blocks,
                                       uint32_t block_bytes, uint64_t rounds, pcu_sample *out,
                                       pascal_error *err)
{
  uint32_t max_ctas = 0;
  cudaError_t e = pascal_kern_static_max_ctas(device_, block_bytes, &max_ctas);
  if (e != cudaSuccess)
    return pcu_fail(err, "static scan occupancy", e);
  if (phases.empty() || phases.size() > max_ctas)
    return pascal_error_set(err, PASCAL_EINVAL, "M",
                            "static scan needs 1..%u co-resident CTAs, got %zu", max_ctas,
                            phases.size());
  for (size_t i = 0; i < phases.size(); ++i)
    if (phases[i] >= n_blocks)
      return pascal_error_set(err, PASCAL_EINVAL, "phases", "phase %zu = %u is not below N", i,
                              phases[i]);
  const uint32_t ctas = (uint32_t)phases.size();
  pascal_status st = ensure_data(n_blocks * block_bytes, err);
  if (st == PASCAL_OK)
    st = ensure_outputs(ctas, err);
  if (st != PASCAL_OK)
    return st;
  if ((e = cudaMemcpy(phases_, phases.data(), ctas * sizeof(uint32_t), cudaMemcpyHostToDevice)) !=
      cudaSuccess)
    return pcu_fail(err, "phases copy", e);

  pascal_kern_static_args a{
      static_cast<const uint4 *>(data_), n_blocks, block_bytes, phases_, ctas, rounds, checksum_};
  std::vector<pcu_fill_metric> m{metric_};
  std::vector<double> fill;
  double ns = 0;
  st = measure_launch(
      cupti_, this, "static scan", [=]() { return pascal_kern_static_scan(&a, nullptr); }, m, &fill,
      &ns, err);
  if (st != PASCAL_OK)
    return st;
  std::vector<uint32_t> got;
  if ((st = copy_back(&got, checksum_, ctas, err)) != PASCAL_OK)
    return st;
  const std::vector<uint32_t> &sums = block_sums(n_blocks, block_bytes);
  for (uint32_t c = 0; c < ctas; ++c) {
    const uint32_t want = pascal_ref_static_checksum(sums, phases[c], rounds);
    if (got[c] != want)
      return pascal_error_set(err, PASCAL_ERANGE, "result",
                              "static scan result check failed at CTA %u: %u (want %u)", c, got[c],
                              want);
  }
  return sample_from(metric_, fill[0], ns, (double)block_bytes * rounds * ctas, out, err);
}

pascal_status pcu_gemm_check(const float *c, uint32_t mg, uint32_t ng, uint32_t kg, bool col_major,
                             pascal_error *err)
{
  /* the four corners and a diagonal sample of 60 more elements */
  for (uint32_t s = 0; s < 64; ++s) {
    const uint32_t row = s < 4 ? (s & 1 ? mg - 1 : 0) : (uint32_t)((uint64_t)s * 7919u % mg);
    const uint32_t col = s < 4 ? (s & 2 ? ng - 1 : 0) : (uint32_t)((uint64_t)s * 104729u % ng);
    const size_t at = col_major ? (size_t)col * mg + row : (size_t)row * ng + col;
    float got = 0.0f;
    const cudaError_t e = cudaMemcpy(&got, c + at, sizeof(float), cudaMemcpyDeviceToHost);
    if (e != cudaSuccess)
      return pcu_fail(err, "GEMM result copy", e);
    const double want = pascal_ref_gemm_element(kg, row, col);
    if ((double)got != want)
      return pascal_error_set(err, PASCAL_ERANGE, "result",
                              "GEMM result check failed at (%u, %u): %g (want %g)", row, col,
                              (double)got, want);
  }
  return PASCAL_OK;
}

pascal_status pcu_rig::cublaslt(const pcu_cublaslt **out, pascal_error *err)
{
  std::string why;
  if (cublaslt_ == nullptr && !pcu_cublaslt::open(getenv("PASCAL_CUBLASLT"), &cublaslt_, &why))
    return pascal_error_set(err, PASCAL_ENOTFOUND, "impl", "cuBLASLt is not available: %s",
                            why.c_str());
  *out = cublaslt_;
  return PASCAL_OK;
}

pascal_status pcu_rig::measure_gemm(pcu_gemm_operands &x, const pcu_step &step, bool col_major,
                                    const char *what, uint32_t mg, uint32_t ng, uint32_t kg,
                                    pcu_sample *out, pascal_error *err)
{
  std::vector<pcu_fill_metric> m{metric_};
  std::vector<double> fill;
  double ns = 0;
  pascal_status st = measure_launch(cupti_, this, what, step, m, &fill, &ns, err);
  if (st == PASCAL_OK)
    st = pcu_gemm_check(x.c, mg, ng, kg, col_major, err);
  if (st == PASCAL_OK)
    st = sample_from(metric_, fill[0], ns, 2.0 * ((double)mg * kg + (double)ng * kg), out, err);
  return st;
}

pascal_status pcu_rig::run_gemm(const pascal_gemm_params &g, uint32_t mg, uint32_t ng, uint32_t kg,
                                pcu_sample *out, pascal_error *err)
{
  const bool lt = g.impl == PASCAL_GEMM_IMPL_CUBLASLT;
  pcu_gemm_operands x;
  pcu_lt_gemm *lt_gemm = nullptr;
  pascal_cublaslt_config cfg;
  const pcu_cublaslt *lib = nullptr;
  pcu_step step;
  pascal_status st = x.make(mg, ng, kg, err);
  if (st != PASCAL_OK)
    goto done;
  if (lt) {
    if ((st = pascal_cublaslt_encode(&g, &cfg, err)) != PASCAL_OK ||
        (st = cublaslt(&lib, err)) != PASCAL_OK ||
        (st = pcu_lt_gemm::create(lib, mg, ng, kg, &lt_gemm, err)) != PASCAL_OK ||
        (st = lt_gemm->use_stated(cfg, err)) != PASCAL_OK)
      goto done;
    step = [&x, lt_gemm](pascal_error *e) { return lt_gemm->run(x.a, x.b, x.c, e); };
  } else {
    step = pcu_cuda_step("GEMM", [&x, mg, ng, kg]() {
      return pascal_kern_gemm(x.a, x.b, x.c, mg, ng, kg, nullptr);
    });
  }
  st = measure_gemm(x, step, lt, lt ? "cuBLASLt GEMM" : "GEMM", mg, ng, kg, out, err);
done:
  delete lt_gemm;
  return st;
}

/* How many of cuBLASLt's heuristic answers a configuration run may borrow
 * launch attributes from. */
static const int LT_ANSWERS = 16;

/* Select configuration `c` (its tile, stages and direct raster, as stated)
 * on the algo and launch attributes (custom option, inner and cluster shape)
 * of the first of cuBLASLt's heuristic answers with which cuBLASLt accepts
 * it: Hopper refuses a tile without them, and an answer's cluster shape may
 * not suit another tile (run 6 on an H100: 64x64x64 at 4 stages refused on
 * the first answer's cluster shape 3). `note` (may be NULL) names the
 * configuration cuBLASLt runs; when none is accepted, the first answer's
 * refusal. */
static pascal_status use_config_on_answers(pcu_lt_gemm *lt, const pascal_gemm_config &c,
                                           std::string *note, pascal_error *err)
{
  std::vector<pascal_cublaslt_config> answers;
  pascal_status st = lt->heuristic_answers(LT_ANSWERS, &answers, err);
  pascal_error first;
  size_t tried = 0;
  for (size_t i = 0; st == PASCAL_OK && i < answers.size(); i++) {
    const pascal_cublaslt_config &h = answers[i];
    bool seen = false;
    for (size_t j = 0; j < i; j++)
      seen = seen || (answers[j].algo == h.algo && answers[j].custom_option == h.custom_option &&
                      answers[j].inner_shape_id == h.inner_shape_id &&
                      answers[j].cluster_shape_id == h.cluster_shape_id);
    if (seen)
      continue;
    pascal_gemm_params g;
    pascal_cublaslt_config cfg;
    if ((st = pascal_cublaslt_of_config(&c, &h, &g, err)) != PASCAL_OK ||
        (st = pascal_cublaslt_encode(&g, &cfg, err)) != PASCAL_OK)
      return st; /* the configuration itself has no cuBLASLt form */
    pascal_error why;
    if (lt->use_stated(cfg, &why) == PASCAL_OK) {
      if (note) {
        char what[128];
        pascal_cublaslt_describe(&cfg, what, sizeof what);
        *note = std::string("cuBLASLt ") + what;
      }
      return PASCAL_OK;
    }
    if (tried++ == 0)
      first = why;
  }
  if (st != PASCAL_OK)
    return st;
  return pascal_error_set(err, PASCAL_EINVAL, "gemm",
                          "%s (and on the launch attributes of %zu other heuristic answers)",
                          first.message, tried - 1);
}

pascal_status pcu_rig::run_gemm_config(const pascal_gemm_config &c, uint32_t mg, uint32_t ng,
                                       uint32_t kg, pcu_sample *out, std::string *note,
                                       pascal_error *err)
{
  static_assert(PASCAL_GEMM_OWN_STAGES_MAX == PASCAL_KERN_GEMM_STAGES_MAX,
                "pascal/gemm_impl.h and kernels/pascal_kernels.h disagree on the stages");
  pcu_gemm_operands x;
  pcu_lt_gemm *lt_gemm = nullptr;
  const pcu_cublaslt *lib = nullptr;
  pcu_step step;
  pascal_error own, absent;
  const bool staged = pascal_gemm_own_runs_config(&c, &own) == PASCAL_OK;
  pascal_status st = x.make(mg, ng, kg, err);
  if (st != PASCAL_OK)
    goto done;
  if (staged) {
    if (note)
      *note = "the project's own staged kernel";
    const uint32_t stages = c.stages, group_m = c.group_m;
    step = pcu_cuda_step("staged GEMM", [&x, mg, ng, kg, stages, group_m]() {
      return pascal_kern_gemm_staged(x.a, x.b, x.c, mg, ng, kg, stages, group_m, nullptr);
    });
  } else if (cublaslt(&lib, &absent) == PASCAL_OK) {
    if ((st = pcu_lt_gemm::create(lib, mg, ng, kg, &lt_gemm, err)) != PASCAL_OK ||
        (st = use_config_on_answers(lt_gemm, c, note, err)) != PASCAL_OK)
      goto done;
    step = [&x, lt_gemm](pascal_error *e) { return lt_gemm->run(x.a, x.b, x.c, e); };
  } else {
    st = pascal_error_set(err, PASCAL_ENOTFOUND, "impl", "%s; %s", own.message, absent.message);
    goto done;
  }
  st = measure_gemm(x, step, !staged, staged ? "staged GEMM" : "cuBLASLt GEMM", mg, ng, kg, out,
                    err);
done:
  delete lt_gemm;
  return st;
}

/* |kernel - reference| of an output element: the probabilities are rounded
 * to FP16 before PV (relative error 2^-11 each), so a weighted average of
 * values of magnitude at most 1/2 may move by 2 x 2^-11 x 1/2 = 4.9e-4;
 * FP32 accumulation adds far less. */
static const double ATTENTION_TOLERANCE = 1e-3;

pascal_status pcu_rig::run_attention(uint32_t o, uint32_t stages, uint64_t n_steps, uint64_t w,
                                     pcu_sample *out, pascal_error *err)
{
  pascal_kern_open_plan plan;
  cudaError_t e = pascal_kern_attention_plan_make(device_, stages, o, &plan);
  if (e == cudaErrorInvalidConfiguration)
    return pascal_error_set(err, PASCAL_EINVAL, "o",
                            "occupancy o=%u not reachable on %s for attention at stages=%u "
                            "(nearest verified occupancy %d)",
                            o, info_.name.c_str(), stages, plan.occupancy);
  if (e != cudaSuccess)
    return pcu_fail(err, "attention occupancy plan", e);
  const uint64_t heads = (uint64_t)info_.sm_count * o, T = PASCAL_KERN_ATT_TILE;
  if (w * T > 0x7fffffffull || n_steps * T > 0x7fffffffull || heads * w > 0x7fffffffull)
    return pascal_error_set(err, PASCAL_ERANGE, "W", "the run's sequences exceed 2^31 rows");
  const uint32_t seq_q = (uint32_t)(w * T), seq_kv = (uint32_t)(n_steps * T);
  const size_t q_elems = (size_t)heads * seq_q * T, kv_elems = (size_t)seq_kv * T;
  __half *q = nullptr, *k = nullptr, *v = nullptr;
  float *o_buf = nullptr;
  pascal_status st = PASCAL_OK;
  std::vector<pcu_fill_metric> m{metric_};
  std::vector<double> fill;
  double ns = 0;
  pascal_kern_attention_args a{};
  e = cudaMalloc(&q, q_elems * sizeof(__half));
  if (e == cudaSuccess)
    e = cudaMalloc(&k, kv_elems * sizeof(__half));
  if (e == cudaSuccess)
    e = cudaMalloc(&v, kv_elems * sizeof(__half));
  if (e == cudaSuccess)
    e = cudaMalloc(&o_buf, q_elems * sizeof(float));
  if (e == cudaSuccess)
    e = pascal_kern_fill_gemm_input(q, q_elems, PASCAL_REF_ATT_SEED_Q, nullptr);
  if (e == cudaSuccess)
    e = pascal_kern_fill_gemm_input(k, kv_elems, PASCAL_REF_ATT_SEED_K, nullptr);
  if (e == cudaSuccess)
    e = pascal_kern_fill_gemm_input(v, kv_elems, PASCAL_REF_ATT_SEED_V, nullptr);
  if (e == cudaSuccess)
    e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    st = pcu_fail(err, "attention buffers", e);
    goto done;
  }
  a = pascal_kern_attention_args{q, k, v, o_buf, seq_q, seq_kv, (uint32_t)heads, 1u, stages};
  st = measure_launch(
      cupti_, this, "attention", [=]() { return pascal_kern_attention(&a, &plan, nullptr); }, m,
      &fill, &ns, err);
  if (st != PASCAL_OK)
    goto done;
  /* Eight rows: the first and last of the launch and six spread over it. */
  for (uint32_t s = 0; s < 8; ++s) {
    const uint64_t rows = heads * seq_q;
    const uint64_t at = s == 0 ? 0 : s == 7 ? rows - 1 : (uint64_t)s * 2654435761u % rows;
    const uint32_t head = (uint32_t)(at / seq_q), row = (uint32_t)(at % seq_q);
    float got[64];
    double want[64];
    if ((e = cudaMemcpy(got, o_buf + at * T, sizeof got, cudaMemcpyDeviceToHost)) != cudaSuccess) {
      st = pcu_fail(err, "attention result copy", e);
      goto done;
    }
    pascal_ref_attention_row(seq_q, seq_kv, (uint32_t)heads, head, row, want);
    for (uint32_t c = 0; c < 64; ++c)
      if (!(std::fabs((double)got[c] - want[c]) <= ATTENTION_TOLERANCE)) {
        st = pascal_error_set(err, PASCAL_ERANGE, "result",
                              "attention result check failed at head %u row %u column %u: %.9g "
                              "(want %.9g)",
                              head, row, c, (double)got[c], want[c]);
        goto done;
      }
  }
  st = sample_from(metric_, fill[0], ns, 16384.0 * (double)heads * w * n_steps, out, err);
done:
  cudaFree(q);
  cudaFree(k);
  cudaFree(v);
  cudaFree(o_buf);
  return st;
}
