/*
 * cupti_session.h - the CUPTI Range Profiler + Profiler Host API of CUDA 13,
 * reduced to what PASCAL needs: read a few counters over one user range that
 * encloses one kernel launch (user replay: the launch is repeated once per
 * pass, each pass preceded by an L2 flush outside the range).
 * Internal to the cuda backend (C++).
 */
#ifndef PASCAL_CUDA_CUPTI_SESSION_H
#define PASCAL_CUDA_CUPTI_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include <memory>
#include <string>
#include <vector>

#include "pascal/error.h"

/* Whether the Profiler Host API of this CUPTI knows `metric` for `chip`
 * (availability: counter-availability image of a live device, or NULL for the
 * chip's full metric list). Works without a GPU or driver. ENOTFOUND when
 * CUPTI does not support the chip at all. */
pascal_status pcu_cupti_metric_known(const std::string &chip, const uint8_t *availability,
                                     const char *metric, bool *out, pascal_error *err);

/* Number of replay passes the metrics need on `chip` (offline as above). */
pascal_status pcu_cupti_pass_count(const std::string &chip, const uint8_t *availability,
                                   const std::vector<std::string> &metrics, size_t *out,
                                   pascal_error *err);

/* One step of a measured run: returns PASCAL_OK or fills err. */
typedef pascal_status (*pcu_cupti_step)(void *ctx, pascal_error *err);

/* A profiling session on the current CUDA context of one device. Each
 * measure() enables a range profiler on that context and disables it before
 * returning. */
class pcu_cupti_session {
public:
  /* Initializes the profiler (the first open of the process does; it stays
   * initialized until the process exits) and reads the chip name and the counter
   * availability of the device's primary context (which the caller made
   * current, and which measure() profiles). Permission problems give
   * PASCAL_EREFUSED with a message saying how to allow profiling. */
  static pascal_status open(int device, pcu_cupti_session **out, pascal_error *err);
  ~pcu_cupti_session();

  const std::string &chip() const
  {
    return chip_;
  }
  const uint8_t *availability() const
  {
    return avail_.data();
  }

  /* Run prepare (outside the range) and launch (inside it) once per pass
   * until all passes of `metrics` are submitted, then evaluate the range:
   * values[i] is metrics[i] summed over the launch. */
  pascal_status measure(const std::vector<std::string> &metrics, pcu_cupti_step prepare,
                        pcu_cupti_step launch, void *ctx, std::vector<double> *values,
                        pascal_error *err);

  /* The config of the last metric list measured, reused while the list is
   * unchanged (every job of a calibration reads the same counter). */
  struct config;

private:
  pcu_cupti_session();
  std::unique_ptr<config> config_;
  std::string chip_;
  std::vector<uint8_t> avail_;
  void *context_ = nullptr; /* CUcontext measured */
  uint64_t measured_ = 0;   /* measurements completed, for error messages */
};

#endif
