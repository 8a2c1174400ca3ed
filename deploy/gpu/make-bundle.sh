#!/bin/bash
# make-bundle.sh - assemble the relocatable GPU-host bundle from a build tree:
#
#   OUT/bin/  pascald, pascal-agent, pascal, the GPU test programs, measure.sh
#   OUT/lib/  the cuda backend library and every runtime library the programs
#             need that a minimal Linux with only glibc, libstdc++ and the
#             NVIDIA driver lacks (libjansson, libmicrohttpd, libsqlite3,
#             libcurl and its TLS/HTTP2 stack, the CUDA runtime, CUPTI and
#             libnvperf_host.so, the one NVIDIA perf library CUPTI loads at
#             run time: libnvperf_target.so, 5.3 MB, is named by neither)
#   OUT/share/ the plans and sim profiles measure.sh uses
#   OUT.tar.gz the same folder as one archive (17 MB for sm_90): the file a GPU
#             window carries (docs/gpu.md). Its size plus the repository's
#             tracked files must stay under 48 MiB, a margin below the 64 MiB
#             a window carries in all; checked here and by tests/bundle.
#
# Programs find lib/ through an $ORIGIN-relative DT_RPATH (not RUNPATH: an
# executable's RPATH also serves the libraries' own dependencies and CUPTI's
# dlopen), set with patchelf, so the folder runs from anywhere with an empty
# LD_LIBRARY_PATH on any x86-64 Linux with the same or a newer glibc (build
# on the oldest glibc you deploy to; Debian 12 has 2.36). Libraries of glibc
# itself are never copied: they only work with the libc they came with.
#
# Usage: deploy/gpu/make-bundle.sh BUILD_DIR OUT_DIR   (docs/gpu.md)
set -euo pipefail

# Libraries the target system provides (glibc, the C++ runtime, the driver).
ALLOW='^(linux-vdso\.so\.1|ld-linux-x86-64\.so\.2|libc\.so\.6|libm\.so\.6|libdl\.so\.2|librt\.so\.1|libpthread\.so\.0|libresolv\.so\.2|libutil\.so\.1|libstdc\+\+\.so\.6|libgcc_s\.so\.1|libcuda\.so\.1)$'
MAX_BYTES=$((64 * 1024 * 1024))
CARRY_MAX_BYTES=$((48 * 1024 * 1024))

die() { echo "make-bundle: $*" >&2; exit 1; }
[ $# -eq 2 ] || die "usage: make-bundle.sh BUILD_DIR OUT_DIR"
build=$(cd "$1" && pwd) || die "no build folder $1"
out=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
command -v patchelf >/dev/null || die "patchelf is needed (Debian: apt-get install patchelf; deploy/install-deps.sh installs it)"
for p in pascald pascal-agent pascal; do
  [ -x "$build/bin/$p" ] || die "$build/bin/$p is missing: build first"
done

tmp="$out.tmp.$$"
rm -rf "$tmp"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/lib" "$tmp/share"
cp "$build/bin/pascald" "$build/bin/pascal-agent" "$build/bin/pascal" "$tmp/bin/"
for t in gpu_kernels gpu_cuda_offline; do
  if [ -x "$build/tests/gpu/$t" ]; then cp "$build/tests/gpu/$t" "$tmp/bin/"; fi
done
cp "$src/deploy/gpu/measure.sh" "$tmp/bin/"
cp -r "$src/deploy/plans" "$src/deploy/profiles" "$tmp/share/"
backend=$(find "$build/calibrator/cuda" -maxdepth 1 -name 'libpascal_cuda_backend.so*' 2>/dev/null | head -n 1 || true)
if [ -n "$backend" ]; then cp -L "$backend" "$tmp/lib/"; fi

is_elf() { [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = "177ELF" ]; }

# The closure of the dynamic dependencies outside the allow-list.
changed=1
while [ "$changed" -eq 1 ]; do
  changed=0
  for f in "$tmp"/bin/* "$tmp"/lib/*; do
    is_elf "$f" || continue
    while read -r name path; do
      [[ "$name" =~ $ALLOW ]] && continue
      [ -e "$tmp/lib/$name" ] && continue
      [ -f "$path" ] || die "$(basename "$f") needs $name, which is not found on this machine"
      cp -L "$path" "$tmp/lib/$name"
      changed=1
    done < <(LD_LIBRARY_PATH= ldd "$f" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}')
  done
done
# CUPTI's host API loads libnvperf_host.so with dlopen (ldd misses it).
cupti=$(LD_LIBRARY_PATH= ldd "$tmp/lib/"libpascal_cuda_backend.so* 2>/dev/null | awk '$1 ~ /^libcupti/ {print $3}' || true)
if [ -n "$cupti" ]; then
  for l in libnvperf_host.so; do
    cand=$(ls "$(dirname "$(readlink -f "$cupti")")/$l" /usr/local/cuda/lib64/$l 2>/dev/null | head -n 1 || true)
    [ -n "$cand" ] || die "CUPTI needs $l at run time; not found next to $cupti"
    cp -L "$cand" "$tmp/lib/$l"
  done
fi

for f in "$tmp"/bin/*; do
  is_elf "$f" || continue
  strip --strip-unneeded "$f"
  patchelf --force-rpath --set-rpath '$ORIGIN/../lib' "$f"
done
for f in "$tmp"/lib/*; do
  strip --strip-unneeded "$f" 2>/dev/null || true
  patchelf --force-rpath --set-rpath '$ORIGIN' "$f"
done

size=$(du -sb "$tmp" | cut -f1)
[ "$size" -lt "$MAX_BYTES" ] || die "bundle is $size bytes, over the 64 MiB limit"
{
  echo "pascal-gpu-host bundle"
  echo "source: $(git -C "$src" describe --always --dirty 2>/dev/null || echo unknown)"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(ldd --version | head -n 1)"
  echo "cuda architectures: $(sed -n 's/^PASCAL_CUDA_ARCHITECTURES:[A-Z]*=//p' "$build/CMakeCache.txt")"
  echo "bytes: $size"
} > "$tmp/MANIFEST"
rm -rf "$out" "$out.tar.gz"
mv "$tmp" "$out"
trap - EXIT
tar -czf "$out.tar.gz.tmp" --owner=0 --group=0 --numeric-owner -C "$(dirname "$out")" "$(basename "$out")" &&
  mv "$out.tar.gz.tmp" "$out.tar.gz" || die "cannot write $out.tar.gz"
packed=$(stat -c %s "$out.tar.gz")
# What a window carries: the working tree (the tracked files) and the archive.
if tracked=$(git -C "$src" ls-files -z 2>/dev/null | (cd "$src" && xargs -0 stat -c %s 2>/dev/null) |
             awk '{s += $1} END {print s + 0}') && [ "$tracked" -gt 0 ]; then
  [ $((packed + tracked)) -lt "$CARRY_MAX_BYTES" ] ||
    die "$out.tar.gz ($packed bytes) and the tracked files ($tracked bytes) reach the 48 MiB margin"
fi
echo "make-bundle: $out ($((size / 1024 / 1024)) MiB), $out.tar.gz ($((packed / 1024 / 1024)) MiB)"
