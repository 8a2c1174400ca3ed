/*
 * c_boundary.h - no C++ exception crosses the cuda backend's C interface
 * (backend.h, cuda_probe.h): pascal-agent is C, and an exception unwinding
 * into C frames is undefined behaviour (in practice std::terminate, which
 * would lose the job's lease without a word). Every extern "C" entry point
 * runs its body through pcu_c_boundary(), which turns std::bad_alloc into
 * PASCAL_ENOMEM and any other exception into an error naming the call.
 */
#ifndef PASCAL_CUDA_C_BOUNDARY_H
#define PASCAL_CUDA_C_BOUNDARY_H

#include <exception>
#include <new>

#include "pascal/error.h"

template <typename Body>
pascal_status pcu_c_boundary(const char *what, pascal_error *err, Body &&body) noexcept
{
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return pascal_error_set(err, PASCAL_ENOMEM, "", "%s: out of memory", what);
  } catch (const std::exception &e) {
    return pascal_error_set(err, PASCAL_EINVAL, "", "%s: internal error: %s", what, e.what());
  } catch (...) {
    return pascal_error_set(err, PASCAL_EINVAL, "", "%s: internal error (unknown exception)", what);
  }
}

#endif
