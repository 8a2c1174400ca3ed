#!/usr/bin/python3
"""test_sass_hmma.py - offline check (no GPU) that the compiler kept every
tensor-core instruction the kernels issue: the HMMA instructions of each
kernel in the sm_90 SASS of libpascal_kernels are counted and compared with
what the kernel's source issues per loop body. A 16x16x16 FP16 wmma with
FP32 accumulation is two HMMA.16816 instructions on sm_90 (two n = 8
halves); when only part of an accumulator feeds a result, the compiler drops
the other half, and the benchmarks then do half the work they are credited
with (docs/gpu.md "Tensor work counted in the SASS").

Expected per kernel (each loop that issues wmma runs with `#pragma unroll 1`,
so the static count is the per-iteration count):
  mma_chain (peaks.cu)           2 x PASCAL_PEAK_MMA_CHAINS (one round)
  open_scan_sync, open_scan_tma  2 (one wmma per step of m)
  attention_fwd                  2 x 2 x (T / 16)^2 (QK^T and PV of one K/V
                                 step, T = PASCAL_KERN_ATT_TILE: 64)
  gemm_128x128x64_staged         2 x (TK / 16) x 4 x 2 (the K = 64 step of
                                 a warp's 4 x 2 accumulators, from a stage
                                 buffer; the calibration's GEMM is its
                                 one-stage configuration)
  every other kernel             0

The kernels fill A and B with constants, so the two halves of an MMA have
the same operands and a compiler could also merge them into one HMMA; the
count catches that as well (the controls load theirs from memory).

Counting: `cuobjdump -sass` where the toolkit has it (lines with HMMA per
Function); otherwise the cubins are read from the objects' .nv_fatbin
sections and every 128-bit instruction whose opcode field (bits 0..11) is
0x23c (HMMA on sm_80/sm_90) is counted. Both ways are first checked on
control kernels compiled here (3 wmma with every element stored: 6; one
wmma with one element used: 1; none: 0); when both tools exist their counts
must agree. The decoder was also checked against the counts the review of
the GPU path took with cuobjdump at commit 9f21cfa: 20 HMMA in mma_chain and
31 in each open-scan kernel (4 x 5 and 31 wmma kept, one half each).

The same objects give the kernel inventory: every kernel in the sm_90 code
must be named in one pascal_kern_load() list (kernel_load.cuh), so that
pascal_kern_load_all loads all of them before the first timed launch.

Negative case, checked by hand: on the kernels of 9f21cfa (element 0 of
each accumulator only) this test fails (mma_chain 20, want 8; open scans 31,
want 2), and with only `#pragma unroll 1` added to them it still fails
(mma_chain 4, want 8; open scans 1, want 2): the count catches the removed
halves, not just the unrolling.

Usage: test_sass_hmma.py LIBPASCAL_KERNELS.a NVCC KERNELS_SOURCE_DIR
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

LIB, NVCC, KSRC = sys.argv[1], sys.argv[2], sys.argv[3]
SM = 90
HMMA_OPCODE = 0x23C
FAILS = []

CONTROL = r"""
#include <mma.h>
using namespace nvcuda;
/* Operands loaded from memory: the two n = 8 halves of an MMA then differ,
 * and no HMMA can be merged with another. */
__global__ void ctrl_three(const __half *in, float *out)
{
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c[3];
  wmma::load_matrix_sync(a, in, 16);
  wmma::load_matrix_sync(b, in + 256, 16);
  for (int j = 0; j < 3; ++j) {
    wmma::load_matrix_sync(c[j], out + 256 * j, 16, wmma::mem_row_major);
    wmma::mma_sync(c[j], a, b, c[j]);
    wmma::store_matrix_sync(out + 256 * j, c[j], 16, wmma::mem_row_major);
  }
}
__global__ void ctrl_half(const __half *in, float *out)
{
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::load_matrix_sync(a, in, 16);
  wmma::load_matrix_sync(b, in + 256, 16);
  wmma::load_matrix_sync(c, out, 16, wmma::mem_row_major);
  wmma::mma_sync(c, a, b, c);
  out[threadIdx.x] = c.x[0];
}
__global__ void ctrl_none(float *out) { out[threadIdx.x] *= 2.0f; }
"""


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


def define(header, name):
    with open(os.path.join(KSRC, header)) as f:
        m = re.search(r"#define\s+%s\s+(\d+)" % name, f.read())
    if not m:
        sys.exit("no #define %s in %s" % (name, header))
    return int(m.group(1))


def cubins(blob):
    """(sm, ELF bytes) of every CUDA ELF inside a fatbin section."""
    i = 0
    while True:
        i = blob.find(b"\x7fELF\x02\x01", i)
        if i < 0:
            return
        machine, = struct.unpack_from("<H", blob, i + 0x12)
        shoff, = struct.unpack_from("<Q", blob, i + 0x28)
        flags, = struct.unpack_from("<I", blob, i + 0x30)
        shentsize, shnum = struct.unpack_from("<HH", blob, i + 0x3A)
        if machine == 190:  # EM_CUDA
            yield (flags >> 8) & 0xFF, blob[i:i + shoff + shentsize * shnum]
        i += 4


def text_sections(elf):
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    hdr = [struct.unpack_from("<IIQQQQ", elf, shoff + k * shentsize) for k in range(shnum)]
    names = hdr[shstrndx][4]
    for name, _typ, _flags, _addr, off, size in hdr:
        s = elf[names + name:elf.index(b"\0", names + name)].decode()
        if s.startswith(".text."):
            yield s[len(".text."):], elf[off:off + size]


def decode_counts(objects, tmp):
    """{mangled kernel: HMMA count} of the sm_90 code, by opcode."""
    counts = {}
    for obj in objects:
        fb = os.path.join(tmp, "fatbin")
        subprocess.run(["objcopy", "-O", "binary", "--only-section=.nv_fatbin", obj, fb], check=True)
        with open(fb, "rb") as f:
            blob = f.read()
        for sm, elf in cubins(blob):
            if sm != SM:
                continue
            for name, code in text_sections(elf):
                ops = [struct.unpack_from("<Q", code, j)[0] & 0xFFF for j in range(0, len(code), 16)]
                counts[name] = ops.count(HMMA_OPCODE)
    return counts


def cuobjdump_counts(tool, objects):
    counts = {}
    for obj in objects:
        out = subprocess.run([tool, "-sass", "-arch", "sm_%d" % SM, obj], capture_output=True,
                             text=True).stdout
        fn = None
        for line in out.splitlines():
            m = re.search(r"Function : (\S+)", line)
            if m:
                fn = m.group(1)
                counts.setdefault(fn, 0)
            elif fn and re.search(r"\bHMMA\b", line):
                counts[fn] += 1
    return counts


def counters():
    tools = []
    cuobjdump = shutil.which("cuobjdump") or os.path.join(os.path.dirname(NVCC), "cuobjdump")
    if os.access(cuobjdump, os.X_OK):
        tools.append(("cuobjdump -sass", lambda objs, tmp: cuobjdump_counts(cuobjdump, objs)))
    tools.append(("opcode decoder", decode_counts))
    return tools


def count(objects, tmp):
    """Counts by every available tool, which must agree."""
    results = [(name, fn(objects, tmp)) for name, fn in counters()]
    for name, got in results[1:]:
        check(got == results[0][1], "%s and %s disagree: %r vs %r" % (results[0][0], name,
                                                                    results[0][1], got))
    return results[0][1]


def named(mangled, short):
    """The mangled name holds `short` as a whole identifier: after a length
    digit, and not continued by "_" or a digit (open_scan_tma is not
    open_scan_tma_x; what follows a name is E, I or a parameter's
    letter)."""
    return re.search(r"\d%s(?![_0-9])" % re.escape(short), mangled) is not None


def kernel(counts, short):
    hits = [k for k in counts if named(k, short)]
    check(len(hits) == 1, "one sm_%d kernel named %s, found %r" % (SM, short, hits))
    return counts[hits[0]] if hits else None


def main():
    with tempfile.TemporaryDirectory(prefix="pascal-sass-") as tmp:
        print("counting with:", ", ".join(n for n, _ in counters()))
        # Controls: the counting itself on kernels of known content.
        src = os.path.join(tmp, "control.cu")
        with open(src, "w") as f:
            f.write(CONTROL)
        obj = os.path.join(tmp, "control.o")
        subprocess.run([NVCC, "-c", "-O2", "-arch=sm_%d" % SM, src, "-o", obj], check=True)
        ctrl = count([obj], tmp)
        for short, want in (("ctrl_three", 6), ("ctrl_half", 1), ("ctrl_none", 0)):
            got = kernel(ctrl, short)
            check(got == want, "control %s: %r HMMA, want %d" % (short, got, want))

        # The project's kernels, from the library the backend links.
        subprocess.run(["ar", "x", os.path.abspath(LIB)], cwd=tmp, check=True)
        objects = sorted(os.path.join(tmp, o) for o in os.listdir(tmp) if o.endswith(".cu.o"))
        check(len(objects) >= 5, "CUDA objects in %s: %r" % (LIB, objects))
        counts = count(objects, tmp)
        chains = define("peak_kernels.h", "PASCAL_PEAK_MMA_CHAINS")
        tk = define("pascal_kernels.h", "PASCAL_KERN_GEMM_TILE_K")
        att = define("pascal_kernels.h", "PASCAL_KERN_ATT_TILE")
        want = {
            "mma_chain": 2 * chains,
            "open_scan_sync": 2,
            "open_scan_tma": 2,
            "gemm_128x128x64_staged": 2 * (tk // 16) * 4 * 2,
            "attention_fwd": 2 * 2 * (att // 16) ** 2,
        }
        for short, n in want.items():
            got = kernel(counts, short)
            print("%-18s %3s HMMA in sm_%d SASS, issued per loop body %d" % (short, got, SM, n))
            check(got == n, "%s: %r HMMA in the sm_%d SASS, but the kernel issues %d: the "
                  "compiler removed tensor work (an accumulator element feeds no result) or a "
                  "wmma loop lost its `#pragma unroll 1`" % (short, got, SM, n))
        others = {k: v for k, v in counts.items() if not any(named(k, s) for s in want)}
        check(len(others) >= 5, "the other kernels were found: %r" % sorted(others))
        check(all(v == 0 for v in others.values()), "HMMA in kernels that issue none: %r" % others)
        # Every kernel is loaded before the first timed launch: each one in
        # the SASS is named in a pascal_kern_load() list (kernel_load.cuh).
        listed = set()
        for src in sorted(os.listdir(KSRC)):
            if src.endswith(".cu"):
                with open(os.path.join(KSRC, src)) as f:
                    for args in re.findall(r"return pascal_kern_load\(([^)]*)\)", f.read()):
                        listed |= {a.strip() for a in args.split(",")}
        for k in counts:
            name = next((n for n in listed if re.search(r"\d%s[EI]" % re.escape(n), k)), None)
            check(name is not None, "kernel %s is in no pascal_kern_load() list" % k)
        check(len(listed) == len(counts), "load lists name %d kernels, the SASS holds %d"
              % (len(listed), len(counts)))
    print("%d failure(s)" % len(FAILS) if FAILS else "OK")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
