// Device code of the CUDA backend's generated kernels (NVRTC): scatter
// (the last write wins, as in a sequential loop) and nonzero (count per
// chunk, then write in order), the checked take (bounds checked on the
// device). Gather is an elementwise kernel over FlatOffset (layout.cuh). See ScatterBody and
// NonzeroBody in kernel_source.h for the kernels' parameters.
#ifndef ARRAYD_BACKEND_CUDA_DEVICE_INDEXING_CUH_
#define ARRAYD_BACKEND_CUDA_DEVICE_INDEXING_CUH_

#include "backend/cuda/device/layout.cuh"
#include "kernels/functors.h"

namespace arrayd {
namespace kernels {
namespace gen {

// Sum over the block (every thread gets it); every thread must call it.
__device__ __forceinline__ long long BlockSumLL(long long v) {
  __shared__ long long warp_sums[32];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = v;
  __syncthreads();
  long long total = 0;
  for (unsigned w = 0; w < (blockDim.x + 31) / 32; ++w) total += warp_sums[w];
  __syncthreads();
  return total;
}

// Target element of index position i of a scatter (idx: int64, negative
// ones from the end of `size` elements), or -1 when out of range: then the
// first such index is recorded (error[0] = check, error[1] = the index, as
// the take kernel) where `record`.
template <int ND>
__device__ __forceinline__ long long ScatterTarget(const char* idx, long long i,
                                                   const Strided<2, ND>& s, long long size,
                                                   bool record, unsigned long long* error,
                                                   unsigned long long check) {
  const long long raw =
      *reinterpret_cast<const long long*>(idx + Offset<ND>(i, s.shape, s.stride[0]));
  const long long flat = raw < 0 ? raw + size : raw;
  if (flat >= 0 && flat < size) return flat;
  if (record && atomicCAS(error, 0ULL, check) == 0ULL) error[1] = (unsigned long long)raw;
  return -1;
}

// Scatter of `n` values to the flat positions idx, checked here
// (ScatterTarget): pass 0 records the last position k writing each target
// element (atomicMax into `winner`, W: int, or long long for 2^31 positions
// or more) and the first index out of range; pass 1 writes the values of
// those positions only, so that the last write wins as in a sequential
// loop, and writes nothing once an index error is pending. `winner` null:
// one pass, no duplicates possible.
template <typename S, typename D, typename W, int ND>
__device__ __forceinline__ void ScatterPass(const char* idx, const char* vals, long long n,
                                            const Strided<2, ND>& s, const FlatLayout& t,
                                            long long size, W* winner, int pass,
                                            unsigned long long* error, unsigned long long check) {
  if (pass == 1 && winner != nullptr &&
      *reinterpret_cast<volatile unsigned long long*>(error) != 0) {
    return;
  }
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const long long flat =
        ScatterTarget<ND>(idx, i, s, size, pass == 0 || winner == nullptr, error, check);
    if (flat < 0) continue;
    if (pass == 0 && winner != nullptr) {
      atomicMax(winner + flat, static_cast<W>(i));
    } else if (winner == nullptr || winner[flat] == static_cast<W>(i)) {
      *reinterpret_cast<D*>(t.base + FlatOffset(t, flat)) =
          Cast<D>(*reinterpret_cast<const S*>(vals + Offset<ND>(i, s.shape, s.stride[1])));
    }
  }
}

// Scatter of values of at most 4 bytes (D) in two passes that each touch
// memory once: pass 0, per position i, checks the index as ScatterPass and
// keeps the largest (i + 1) << 32 | the value's bits for its target element
// (one 64-bit atomicMax: the last write wins, with its value); pass 1, per
// target element (`size`, in order: coalesced), stores the value kept, if
// any, unless an index error is pending. `packed` is zeroed first.
template <typename S, typename D, int ND>
__device__ __forceinline__ void ScatterPacked(const char* idx, const char* vals, long long n,
                                              const Strided<2, ND>& s, const FlatLayout& t,
                                              long long size, unsigned long long* packed, int pass,
                                              unsigned long long* error, unsigned long long check) {
  static_assert(sizeof(D) <= 4, "the value shares a 64-bit word with its position");
  if (pass == 1) {
    if (*reinterpret_cast<volatile unsigned long long*>(error) != 0) return;
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < size;
         k += (long long)gridDim.x * blockDim.x) {
      const unsigned long long w = packed[k];
      if (w == 0) continue;
      const unsigned int bits = static_cast<unsigned int>(w & 0xffffffffull);
      D v;
      memcpy(&v, &bits, sizeof(D));
      *reinterpret_cast<D*>(t.base + FlatOffset(t, k)) = v;
    }
    return;
  }
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const long long flat = ScatterTarget<ND>(idx, i, s, size, true, error, check);
    if (flat < 0) continue;
    const D v = Cast<D>(*reinterpret_cast<const S*>(vals + Offset<ND>(i, s.shape, s.stride[1])));
    unsigned int bits = 0;
    memcpy(&bits, &v, sizeof(D));
    atomicMax(packed + flat, (static_cast<unsigned long long>(i + 1) << 32) | bits);
  }
}

// Counts into `length` bins: out[bin_of(i)] += 1 (unsigned long long) or
// += w[i] (double) for i < n, skipping bins outside [0, length); w's
// stride in elements. With `shared` (counts only, length <= S) each block
// counts in shared memory, in 32-bit counters (a block counts fewer than
// 2^32 elements: the host launches enough blocks) and, where the bins are
// few, in one copy per group of warps (fewer threads contend for a popular
// bin), and adds its counts to out once.
template <int S, typename BinOf>
__device__ __forceinline__ void CountBins(BinOf bin_of, const double* w, long long ws, long long n,
                                          long long length, char* out, int shared) {
  __shared__ unsigned int local[2 * S];
  const int warps = blockDim.x / 32;
  int copies = 1;
  if (shared) {
    while (copies * 2 <= warps && copies * 2 * length <= 2 * S) copies *= 2;
    for (long long j = threadIdx.x; j < copies * length; j += blockDim.x) local[j] = 0;
    __syncthreads();
  }
  unsigned int* mine = local + (threadIdx.x / 32) % copies * length;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const long long b = bin_of(i);
    if (b < 0 || b >= length) continue;
    if (w != nullptr) {
      atomicAdd(reinterpret_cast<double*>(out) + b, w[i * ws]);
    } else if (shared) {
      atomicAdd(mine + b, 1u);
    } else {
      atomicAdd(reinterpret_cast<unsigned long long*>(out) + b, 1ull);
    }
  }
  if (shared) {
    __syncthreads();
    for (long long j = threadIdx.x; j < length; j += blockDim.x) {
      unsigned long long sum = 0;
      for (int c = 0; c < copies; ++c) sum += local[c * length + j];
      if (sum != 0) atomicAdd(reinterpret_cast<unsigned long long*>(out) + j, sum);
    }
  }
}

// bincount: the bins are the int64 values of x (stride in elements).
template <int S>
__device__ __forceinline__ void Bincount(const long long* x, long long xs, const double* w,
                                         long long ws, long long n, long long length, char* out,
                                         int shared) {
  CountBins<S>([&](long long i) { return x[i * xs]; }, w, ws, n, length, out, shared);
}

// histogram: the bins of the values of x (`xs` bytes apart) by `ne` sorted
// edges (HistogramBinGuessed, kernels/functors.h).
template <typename T, int S>
__device__ __forceinline__ void Histogram(const char* x, long long xs, const char* edges,
                                          long long ne, long long es, const double* w, long long ws,
                                          long long n, char* out, int shared) {
  const double scale = HistogramScale<T>(edges, ne, es);
  CountBins<S>(
      [&](long long i) {
        return HistogramBinGuessed<T>(edges, ne, es, scale,
                                      *reinterpret_cast<const T*>(x + i * xs));
      },
      w, ws, n, ne - 1, out, shared);
}

// An element of `B` bytes, copied as one value.
template <int B>
struct Bytes {
  unsigned char v[B];
};
template <>
struct alignas(16) Bytes<16> {
  unsigned long long v[2];
};

// Take along an axis, the bounds checked here: x is (outer, n, inner) with
// byte strides s_outer, s_axis, s_inner; out the C-contiguous (outer, m,
// inner) result; idx m int64 (negative: from the end). An index outside
// [-n, n) writes zero and records the first such one in error[0] (the
// launch's check id) and error[1] (the index), which the stream reads at
// its next sync.
template <int B>
__device__ __forceinline__ void TakeChecked(const char* x, long long n, long long inner,
                                            long long m, long long total, long long s_outer,
                                            long long s_axis, long long s_inner,
                                            const long long* idx, char* out,
                                            unsigned long long* error, unsigned long long check) {
  Bytes<B>* dst = reinterpret_cast<Bytes<B>*>(out);
  for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < total;
       k += (long long)gridDim.x * blockDim.x) {
    const long long i = inner == 1 ? 0 : k % inner;
    const long long q = inner == 1 ? k : k / inner;
    const long long j = m == total ? q : q % m;
    const long long o = m == total ? 0 : q / m;
    long long v = idx[j];
    if (v < 0) v += n;
    if (v < 0 || v >= n) {
      if (atomicCAS(error, 0ULL, check) == 0ULL) error[1] = (unsigned long long)idx[j];
      dst[k] = Bytes<B>();
      continue;
    }
    dst[k] = *reinterpret_cast<const Bytes<B>*>(x + o * s_outer + v * s_axis + i * s_inner);
  }
}

// out = idx + n where negative; one outside [-n, n) writes 0 and sets the
// check word (check, the index) (WrapIndex).
__device__ __forceinline__ void WrapIndex(const long long* idx, long long m, long long n,
                                          long long* out, unsigned long long* error,
                                          unsigned long long check) {
  for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < m;
       k += (long long)gridDim.x * blockDim.x) {
    const long long v = idx[k];
    if (v < -n || v >= n) {
      if (atomicCAS(error, 0ULL, check) == 0ULL) error[1] = (unsigned long long)v;
      out[k] = 0;
    } else {
      out[k] = v < 0 ? v + n : v;
    }
  }
}

// A positive LAPACK-style info code sets the check word (CheckInfo).
__device__ __forceinline__ void InfoCheck(const int* info, long long n, unsigned long long* error,
                                          unsigned long long check) {
  for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < n;
       k += (long long)gridDim.x * blockDim.x) {
    if (info[k] > 0 && atomicCAS(error, 0ULL, check) == 0ULL) {
      error[1] = (unsigned long long)info[k];
    }
  }
}

// Ordered selection by chunks (nonzero, label's roots): block b counts the
// positions of [b * chunk, (b + 1) * chunk) of n where pred holds into
// counts[b] ...
template <typename Pred>
__device__ __forceinline__ void ChunkCount(long long n, long long chunk, const Pred& pred,
                                           long long* counts) {
  const long long begin = blockIdx.x * chunk;
  const long long end = begin + chunk < n ? begin + chunk : n;
  long long c = 0;
  for (long long i = begin + threadIdx.x; i < end; i += blockDim.x) c += pred(i) ? 1 : 0;
  c = BlockSumLL(c);
  if (threadIdx.x == 0) counts[blockIdx.x] = c;
}

// ... then calls fn(i, rank) at each of them, rank its place among all of
// them in order; returns the number up to the end of this chunk.
template <typename Pred, typename Fn>
__device__ __forceinline__ long long ChunkRanks(long long n, long long chunk,
                                                const long long* counts, const Pred& pred,
                                                const Fn& fn) {
  __shared__ long long warp_counts[32];
  long long base = 0;
  for (long long j = threadIdx.x; j < blockIdx.x; j += blockDim.x) base += counts[j];
  base = BlockSumLL(base);
  const long long begin = blockIdx.x * chunk;
  const long long end = begin + chunk < n ? begin + chunk : n;
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const unsigned warps = (blockDim.x + 31) / 32;
  for (long long t0 = begin; t0 < end; t0 += blockDim.x) {
    const long long i = t0 + threadIdx.x;
    const bool f = i < end && pred(i);
    const unsigned ballot = __ballot_sync(0xffffffffu, f);
    if (lane == 0) warp_counts[warp] = __popc(ballot);
    __syncthreads();
    long long before = base, total = base;
    for (unsigned w = 0; w < warps; ++w) {
      if (w < warp) before += warp_counts[w];
      total += warp_counts[w];
    }
    before += __popc(ballot & ((1u << lane) - 1u));
    if (f) fn(i, before);
    __syncthreads();
    base = total;
  }
  return base;
}

// Nonzero: the flat positions of the true elements, in order.
template <int ND>
__device__ __forceinline__ void NonzeroCount(const char* mask, long long n, long long chunk,
                                             const Strided<1, ND>& s, long long* counts) {
  ChunkCount(
      n, chunk,
      [&](long long i) {
        return *reinterpret_cast<const bool*>(mask + Offset<ND>(i, s.shape, s.stride[0]));
      },
      counts);
}

template <int ND>
__device__ __forceinline__ void NonzeroWrite(const char* mask, long long n, long long chunk,
                                             const Strided<1, ND>& s, const long long* counts,
                                             long long* out, long long out_n) {
  ChunkRanks(
      n, chunk, counts,
      [&](long long i) {
        return *reinterpret_cast<const bool*>(mask + Offset<ND>(i, s.shape, s.stride[0]));
      },
      [&](long long i, long long rank) {
        if (rank < out_n) out[rank] = i;
      });
}

}  // namespace gen
}  // namespace kernels
}  // namespace arrayd

#endif  // ARRAYD_BACKEND_CUDA_DEVICE_INDEXING_CUH_
