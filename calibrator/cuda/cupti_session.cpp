/*
 * cupti_session.cpp - CUPTI Range Profiler + Profiler Host API (CUDA 13) for
 * PASCAL's fill counters (docs/gpu.md "CUPTI in CUDA 13"):
 * profiler init (once per process, never undone) -> chip name -> counter
 * availability; per measurement:
 * host object + metrics -> config image (cached while the metrics stay the
 * same) -> range profiler enable -> counter-data image -> set config (user
 * range, user replay, one range) -> passes of (prepare; start; push; launch;
 * sync; pop; stop) -> decode -> evaluate -> range profiler disable. Every
 * parameter struct carries its _STRUCT_SIZE.
 *
 * Invariant: between measurements no range profiler is enabled. Each
 * measurement enables one, sets one config on it and disables it on every
 * way out, the lifecycle other CUPTI clients use per measurement (for
 * example NVIDIA's nvbench); whether one enabled profiler accepts a second
 * config is not documented, so the session does not rely on it. This
 * lifecycle ran on an H100 (2026-11-26): about 1,400 measurements, one
 * process per phase, at about 0.165 s of overhead per measured run all
 * included (docs/gpu.md "What one measurement costs").
 */
#include "cupti_session.h"

#include <mutex>

#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

namespace {

/* A zeroed CUPTI parameter struct carrying its size (every CUPTI call needs
 * structSize = <Type>_STRUCT_SIZE and NULL/zero in the fields not set). */
template <typename T> T params(size_t size)
{
  T p{};
  p.structSize = size;
  return p;
}
#define CUPTI_PARAMS(T) params<T>(T##_STRUCT_SIZE)

const char *cupti_text(CUptiResult r)
{
  const char *s = nullptr;
  if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || s == nullptr)
    return "unknown CUPTI error";
  return s;
}

/* Map a CUPTI failure of `call` to a pascal_status with an actionable message. */
pascal_status cupti_fail(pascal_error *err, const char *call, CUptiResult r)
{
  if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
    return pascal_error_set(
        err, PASCAL_EREFUSED, "cupti",
        "%s: profiling restricted to admin users (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES); run as "
        "root or with CAP_PERFMON/CAP_SYS_ADMIN, or load the driver with "
        "NVreg_RestrictProfilingToAdminUsers=0",
        call);
  if (r == CUPTI_ERROR_NOT_SUPPORTED || r == CUPTI_ERROR_NOT_COMPATIBLE)
    return pascal_error_set(err, PASCAL_ENOTFOUND, "cupti",
                            "%s: profiling not supported on this device/driver (%s)", call,
                            cupti_text(r));
  return pascal_error_set(err, PASCAL_EINVAL, "cupti", "%s failed: %s", call, cupti_text(r));
}

/* The range profiler of one measurement, disabled when it goes out of scope
 * (after a stopped or never-started range, as every way out leaves it). */
class enabled_profiler {
public:
  explicit enabled_profiler(CUpti_RangeProfiler_Object *rp) : rp_(rp) {}
  ~enabled_profiler()
  {
    auto dp = CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params);
    dp.pRangeProfilerObject = rp_;
    cuptiRangeProfilerDisable(&dp);
  }
  enabled_profiler(const enabled_profiler &) = delete;
  enabled_profiler &operator=(const enabled_profiler &) = delete;

private:
  CUpti_RangeProfiler_Object *rp_;
};

/* A Profiler Host object for one chip with a list of metrics added. */
class host_config {
public:
  ~host_config()
  {
    if (host_ != nullptr) {
      auto p = CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
      p.pHostObject = host_;
      cuptiProfilerHostDeinitialize(&p);
    }
  }

  pascal_status init(const std::string &chip, const uint8_t *avail, pascal_error *err)
  {
    auto p = CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params);
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip.c_str();
    p.pCounterAvailabilityImage = avail;
    CUptiResult r = cuptiProfilerHostInitialize(&p);
    if (r != CUPTI_SUCCESS)
      return pascal_error_set(err, PASCAL_ENOTFOUND, "chip",
                              "CUPTI profiler host does not support chip %s (%s)", chip.c_str(),
                              cupti_text(r));
    host_ = p.pHostObject;
    return PASCAL_OK;
  }

  /* CUPTI_ERROR_INVALID_PARAMETER here means the chip has no such metric. */
  CUptiResult add(const char *const *names, size_t n)
  {
    auto p = CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
    p.pHostObject = host_;
    p.ppMetricNames = const_cast<const char **>(names);
    p.numMetrics = n;
    return cuptiProfilerHostConfigAddMetrics(&p);
  }

  pascal_status image(std::vector<uint8_t> *out, pascal_error *err)
  {
    auto s = CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
    s.pHostObject = host_;
    CUptiResult r = cuptiProfilerHostGetConfigImageSize(&s);
    if (r != CUPTI_SUCCESS)
      return cupti_fail(err, "cuptiProfilerHostGetConfigImageSize", r);
    out->assign(s.configImageSize, 0);
    auto g = CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
    g.pHostObject = host_;
    g.configImageSize = out->size();
    g.pConfigImage = out->data();
    r = cuptiProfilerHostGetConfigImage(&g);
    if (r != CUPTI_SUCCESS)
      return cupti_fail(err, "cuptiProfilerHostGetConfigImage", r);
    return PASCAL_OK;
  }

  CUpti_Profiler_Host_Object *object() const
  {
    return host_;
  }

private:
  CUpti_Profiler_Host_Object *host_ = nullptr;
};

std::vector<const char *> c_names(const std::vector<std::string> &metrics)
{
  std::vector<const char *> v;
  for (const std::string &m : metrics)
    v.push_back(m.c_str());
  return v;
}

/* Build the config image for `metrics`, naming the first unknown metric. */
pascal_status build_config(host_config *h, const std::string &chip, const uint8_t *avail,
                           const std::vector<std::string> &metrics, std::vector<uint8_t> *image,
                           pascal_error *err)
{
  pascal_status st = h->init(chip, avail, err);
  if (st != PASCAL_OK)
    return st;
  for (const std::string &m : metrics) {
    const char *one[1] = {m.c_str()};
    host_config probe;
    if ((st = probe.init(chip, avail, err)) != PASCAL_OK)
      return st;
    if (probe.add(one, 1) != CUPTI_SUCCESS)
      return pascal_error_set(err, PASCAL_ENOTFOUND, "metric", "metric %s not available on %s",
                              m.c_str(), chip.c_str());
  }
  std::vector<const char *> names = c_names(metrics);
  CUptiResult r = h->add(names.data(), names.size());
  if (r != CUPTI_SUCCESS)
    return cupti_fail(err, "cuptiProfilerHostConfigAddMetrics", r);
  return h->image(image, err);
}

/* CUPTI's profiler is process-wide state, and this is its mirror: the first
 * session of a process initializes it, nothing deinitializes it before the
 * process exits. NVIDIA's range-profiling sample initializes once; the agent
 * opens the backend twice per process (describe, then the jobs) and again
 * after a kernel fault, and deinitializing and initializing again in one
 * process is neither documented nor what ran on hardware. A failed
 * initialization is tried again by the next open. */
pascal_status profiler_initialize(pascal_error *err)
{
  static std::mutex mu;
  static bool initialized = false;
  const std::lock_guard<std::mutex> lock(mu);
  if (initialized)
    return PASCAL_OK;
  auto ip = CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
  const CUptiResult r = cuptiProfilerInitialize(&ip);
  if (r != CUPTI_SUCCESS)
    return cupti_fail(err, "cuptiProfilerInitialize", r);
  initialized = true;
  return PASCAL_OK;
}

using cu_ctx_get_current_fn = CUresult (*)(CUcontext *);

/* The current driver context, without linking libcuda (the runtime loads it). */
pascal_status current_context(CUcontext *out, pascal_error *err)
{
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  cudaError_t e =
      cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &q);
  if (e != cudaSuccess || fn == nullptr || q != cudaDriverEntryPointSuccess)
    return pascal_error_set(err, PASCAL_ENOTFOUND, "device",
                            "cannot resolve cuCtxGetCurrent from the driver: %s",
                            cudaGetErrorString(e));
  CUcontext ctx = nullptr;
  if (reinterpret_cast<cu_ctx_get_current_fn>(fn)(&ctx) != CUDA_SUCCESS || ctx == nullptr)
    return pascal_error_set(err, PASCAL_ENOTFOUND, "device", "no current CUDA context");
  *out = ctx;
  return PASCAL_OK;
}

} // namespace

struct pcu_cupti_session::config {
  std::vector<std::string> metrics;
  host_config host;
  std::vector<uint8_t> image;
};

pcu_cupti_session::pcu_cupti_session() = default;

pascal_status pcu_cupti_metric_known(const std::string &chip, const uint8_t *availability,
                                     const char *metric, bool *out, pascal_error *err)
{
  host_config h;
  pascal_status st = h.init(chip, availability, err);
  if (st != PASCAL_OK)
    return st;
  const char *one[1] = {metric};
  *out = h.add(one, 1) == CUPTI_SUCCESS;
  return PASCAL_OK;
}

pascal_status pcu_cupti_pass_count(const std::string &chip, const uint8_t *availability,
                                   const std::vector<std::string> &metrics, size_t *out,
                                   pascal_error *err)
{
  host_config h;
  std::vector<uint8_t> image;
  pascal_status st = build_config(&h, chip, availability, metrics, &image, err);
  if (st != PASCAL_OK)
    return st;
  auto p = CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
  p.configImageSize = image.size();
  p.pConfigImage = image.data();
  CUptiResult r = cuptiProfilerHostGetNumOfPasses(&p);
  if (r != CUPTI_SUCCESS)
    return cupti_fail(err, "cuptiProfilerHostGetNumOfPasses", r);
  *out = p.numOfPasses;
  return PASCAL_OK;
}

pascal_status pcu_cupti_session::open(int device, pcu_cupti_session **out, pascal_error *err)
{
  pcu_cupti_session *s = new pcu_cupti_session();
  pascal_status st = PASCAL_OK;
  CUcontext ctx = nullptr;
  CUptiResult r;

  if ((st = profiler_initialize(err)) != PASCAL_OK)
    goto fail;
  {
    auto cp = CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
    cp.deviceIndex = (size_t)device;
    if ((r = cuptiDeviceGetChipName(&cp)) != CUPTI_SUCCESS) {
      st = cupti_fail(err, "cuptiDeviceGetChipName", r);
      goto fail;
    }
    s->chip_ = cp.pChipName;
  }
  if ((st = current_context(&ctx, err)) != PASCAL_OK)
    goto fail;
  {
    auto ap = CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
    ap.ctx = ctx;
    if ((r = cuptiProfilerGetCounterAvailability(&ap)) != CUPTI_SUCCESS) {
      st = cupti_fail(err, "cuptiProfilerGetCounterAvailability", r);
      goto fail;
    }
    s->avail_.assign(ap.counterAvailabilityImageSize, 0);
    ap.pCounterAvailabilityImage = s->avail_.data();
    if ((r = cuptiProfilerGetCounterAvailability(&ap)) != CUPTI_SUCCESS) {
      st = cupti_fail(err, "cuptiProfilerGetCounterAvailability", r);
      goto fail;
    }
  }
  s->context_ = ctx;
  *out = s;
  return PASCAL_OK;
fail:
  delete s;
  return st;
}

pcu_cupti_session::~pcu_cupti_session() = default;

pascal_status pcu_cupti_session::measure(const std::vector<std::string> &metrics,
                                         pcu_cupti_step prepare, pcu_cupti_step launch, void *ctx,
                                         std::vector<double> *values, pascal_error *err)
{
  pascal_status st = PASCAL_OK;
  if (!config_ || config_->metrics != metrics) {
    std::unique_ptr<config> c(new config());
    c->metrics = metrics;
    if ((st = build_config(&c->host, chip_, avail_.data(), metrics, &c->image, err)) != PASCAL_OK)
      return st;
    config_ = std::move(c);
  }
  const std::vector<uint8_t> &image = config_->image;
  std::vector<uint8_t> counters;
  std::vector<const char *> names = c_names(metrics);
  CUptiResult r;

  auto ep = CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params);
  ep.ctx = static_cast<CUcontext>(context_);
  if ((r = cuptiRangeProfilerEnable(&ep)) != CUPTI_SUCCESS) {
    /* After measurements that worked, say so: the lifecycle, not the
     * permission or the chip, is then what failed. */
    const std::string call = "cuptiRangeProfilerEnable (after " + std::to_string(measured_) +
                             " measurement(s) of this session)";
    return cupti_fail(err, measured_ ? call.c_str() : "cuptiRangeProfilerEnable", r);
  }
  CUpti_RangeProfiler_Object *rp = ep.pRangeProfilerObject;
  const enabled_profiler keep(rp); /* disabled on every way out */

  auto sp = CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
  sp.pRangeProfilerObject = rp;
  sp.pMetricNames = names.data();
  sp.numMetrics = names.size();
  sp.maxNumOfRanges = 1;
  sp.maxNumRangeTreeNodes = 1;
  if ((r = cuptiRangeProfilerGetCounterDataSize(&sp)) != CUPTI_SUCCESS)
    return cupti_fail(err, "cuptiRangeProfilerGetCounterDataSize", r);
  counters.assign(sp.counterDataSize, 0);
  auto ci = CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
  ci.pRangeProfilerObject = rp;
  ci.counterDataSize = counters.size();
  ci.pCounterData = counters.data();
  if ((r = cuptiRangeProfilerCounterDataImageInitialize(&ci)) != CUPTI_SUCCESS)
    return cupti_fail(err, "cuptiRangeProfilerCounterDataImageInitialize", r);

  auto cp = CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
  cp.pRangeProfilerObject = rp;
  cp.configSize = image.size();
  cp.pConfig = image.data();
  cp.counterDataImageSize = counters.size();
  cp.pCounterDataImage = counters.data();
  cp.range = CUPTI_UserRange;
  cp.replayMode = CUPTI_UserReplay;
  cp.maxRangesPerPass = 1;
  cp.numNestingLevels = 1;
  cp.minNestingLevel = 1;
  cp.passIndex = 0;
  cp.targetNestingLevel = 1;
  if ((r = cuptiRangeProfilerSetConfig(&cp)) != CUPTI_SUCCESS)
    return cupti_fail(err, "cuptiRangeProfilerSetConfig", r);

  /* Invariant: one user range per pass, enclosing exactly one launch; the
   * prepare step (L2 flush) runs and completes before the range opens. */
  for (int pass = 0;; ++pass) {
    if (pass >= 64)
      return pascal_error_set(err, PASCAL_ERANGE, "cupti", "more than 64 replay passes needed");
    if ((st = prepare(ctx, err)) != PASCAL_OK)
      return st;
    const cudaError_t fe = cudaDeviceSynchronize();
    if (fe != cudaSuccess)
      return pascal_error_set(err, PASCAL_EINVAL, "device", "L2 flush failed: %s",
                              cudaGetErrorString(fe));
    auto stp = CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params);
    stp.pRangeProfilerObject = rp;
    if ((r = cuptiRangeProfilerStart(&stp)) != CUPTI_SUCCESS)
      return cupti_fail(err, "cuptiRangeProfilerStart", r);
    auto pp = CUPTI_PARAMS(CUpti_RangeProfiler_PushRange_Params);
    pp.pRangeProfilerObject = rp;
    pp.pRangeName = "pascal";
    auto tp = CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
    tp.pRangeProfilerObject = rp;
    if ((r = cuptiRangeProfilerPushRange(&pp)) != CUPTI_SUCCESS) {
      cuptiRangeProfilerStop(&tp); /* stopped before `keep` disables it */
      return cupti_fail(err, "cuptiRangeProfilerPushRange", r);
    }
    pascal_status lst = launch(ctx, err);
    cudaError_t ce = cudaDeviceSynchronize();
    auto op = CUPTI_PARAMS(CUpti_RangeProfiler_PopRange_Params);
    op.pRangeProfilerObject = rp;
    CUptiResult pr = cuptiRangeProfilerPopRange(&op);
    CUptiResult tr = cuptiRangeProfilerStop(&tp);
    if (lst != PASCAL_OK)
      return lst;
    if (ce != cudaSuccess)
      return pascal_error_set(err, PASCAL_EINVAL, "device", "measured kernel failed: %s",
                              cudaGetErrorString(ce));
    if (pr != CUPTI_SUCCESS)
      return cupti_fail(err, "cuptiRangeProfilerPopRange", pr);
    if (tr != CUPTI_SUCCESS)
      return cupti_fail(err, "cuptiRangeProfilerStop", tr);
    if (tp.isAllPassSubmitted)
      break;
  }

  auto dp = CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
  dp.pRangeProfilerObject = rp;
  if ((r = cuptiRangeProfilerDecodeData(&dp)) != CUPTI_SUCCESS)
    return cupti_fail(err, "cuptiRangeProfilerDecodeData", r);
  if (dp.numOfRangeDropped != 0)
    return pascal_error_set(err, PASCAL_ERANGE, "cupti", "%zu profiler range(s) dropped",
                            dp.numOfRangeDropped);

  values->assign(metrics.size(), 0.0);
  auto ev = CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
  ev.pHostObject = config_->host.object();
  ev.pCounterDataImage = counters.data();
  ev.counterDataImageSize = counters.size();
  ev.rangeIndex = 0;
  ev.ppMetricNames = names.data();
  ev.numMetrics = names.size();
  ev.pMetricValues = values->data();
  if ((r = cuptiProfilerHostEvaluateToGpuValues(&ev)) != CUPTI_SUCCESS)
    return cupti_fail(err, "cuptiProfilerHostEvaluateToGpuValues", r);
  ++measured_;
  return PASCAL_OK;
}
