#!/bin/sh
# cuda_prefix.sh ROOT - the cuda backend (calibrator/cuda) names its
# internals pcu_ / PCU_: every pascal_ name its sources use is libpascal's
# or the agent's public API (core/include/pascal/, calibrator/backend.h),
# the kernels' launch API (kernels/*.h), or one of the backend's two
# exported entry points. Checked to fail with one internal name
# (pcu_fill_pick) spelled pascal_fill_pick again.
root=$(cd "${1:?usage: cuda_prefix.sh ROOT}" && pwd) || exit 1
cd "$root/calibrator/cuda" || exit 1
bad=""
for n in $(cat ./*.h ./*.cpp | grep -ohE '\bpascal_[a-z0-9_]+' | sort -u); do
  case "$n" in pascal_backend_cuda_ops | pascal_cuda_probe) continue ;; esac
  grep -qw "$n" "$root"/core/include/pascal/*.h "$root/calibrator/backend.h" "$root"/kernels/*.h ||
    bad="$bad $n"
done
for m in $(cat ./*.h ./*.cpp | grep -ohE '#define PASCAL_[A-Z0-9_]+' | awk '{print $2}' | sort -u); do
  case "$m" in PASCAL_CUDA_*_H) continue ;; esac # include guards
  bad="$bad $m"
done
if [ -n "$bad" ]; then
  echo "FAIL: internal names of the cuda backend with the public prefix (use pcu_/PCU_):$bad"
  exit 1
fi
echo "OK"
