// Device code of the CUDA backend's generated kernels (NVRTC): reductions
// along collapsed axes (ReduceBody in kernel_source.h), of an array
// (ArraySource, ReduceArgs) or of a fused chain's value computed in
// registers (FusedSource, FusedReduceArgs). The args struct is the
// kernels' one by-value parameter (host mirror: 8-byte words in field
// order); BlockReduce (a block per output), WarpReduce (a warp per
// output), ThreadReduce (a thread per output) and FinishReduce (combines
// the partials of split outputs) are the strategies the host chooses
// between (cuda_reduce.cc). Every kernel
// runs with 256 threads per block (kBlockSize).
#ifndef ARRAYD_BACKEND_CUDA_DEVICE_REDUCE_CUH_
#define ARRAYD_BACKEND_CUDA_DEVICE_REDUCE_CUH_

#include "backend/cuda/device/layout.cuh"
#include "kernels/functors.h"

namespace arrayd {
namespace kernels {
namespace gen {

template <int KD, int RD>
struct ReduceArgs {
  static constexpr int kKD = KD;
  const char* in;
  char* out;
  char* partial;
  long long m;
  long long k;
  long long kshape[KD], kin[KD], kout[KD];
  long long rshape[RD], rin[RD];
};

// The parameters of a fused reduction (FusedSource): NL leaves with their
// own strides, and the layout of the value the unfused ops would have
// reduced (`vector`: its reduced elements are one contiguous run; `kvalue`:
// its kept strides), which picks the combining order, so that the result
// is the unfused one bit for bit. The fields before the leaves are
// ReduceArgs'.
template <int NL, int KD, int RD>
struct FusedReduceArgs {
  static constexpr int kKD = KD;
  const char* in[NL];
  char* out;
  char* partial;
  long long m;
  long long k;
  long long kshape[KD], kin[NL][KD], kout[KD];
  long long rshape[RD], rin[NL][RD];
  long long kvalue[KD];
  long long vector;
};

// Where a reduction's elements come from: Source::Row(a, m) is output m's
// row of reduced elements, with Get(k) (element k as the Op's Acc),
// Chunk(c, x) (elements c*V .. c*V+V-1, V = 16 / sizeof(Op::In)) and
// Vector() (whether the row is read in 16-byte chunks: the combining order
// of a contiguous row, which both sources keep).

// An array in memory (ReduceArgs).
template <typename Op, int KD, int RD>
struct ArraySource {
  typedef ReduceArgs<KD, RD> Args;
  typedef typename Op::In In;
  typedef typename Op::Acc Acc;
  struct Row {
    const char* base;
    const Args* a;
    __device__ __forceinline__ bool Vector() const {
      return RD == 1 && a->rin[0] == (long long)sizeof(In) &&
             (reinterpret_cast<unsigned long long>(base) & 15) == 0;
    }
    __device__ __forceinline__ Acc Get(long long k) const {
      return Op::Load(base + Offset<RD>(k, a->rshape, a->rin), k);
    }
    template <int V>
    __device__ __forceinline__ void Chunk(long long c, Acc (&x)[V]) const {
      const Vec<In, V> v = reinterpret_cast<const Vec<In, V>*>(base)[c];
#pragma unroll
      for (int j = 0; j < V; ++j)
        x[j] = Op::Load(reinterpret_cast<const char*>(&v.v[j]), c * V + j);
    }
  };
  static __device__ __forceinline__ Row At(const Args& a, long long m) {
    Row r;
    r.base = a.in + Offset<KD>(m, a.kshape, a.kin);
    r.a = &a;
    return r;
  }
};

// A fused chain's value (FusedReduceArgs): Value::At(p) computes the
// element (the reduction's In) from pointers to the leaves' elements.
template <typename Op, typename Value, int NL, int KD, int RD>
struct FusedSource {
  typedef FusedReduceArgs<NL, KD, RD> Args;
  typedef typename Op::In In;
  typedef typename Op::Acc Acc;
  struct Row {
    const char* base[NL];
    const Args* a;
    bool vector;
    __device__ __forceinline__ bool Vector() const { return vector; }
    __device__ __forceinline__ Acc Get(long long k) const {
      const char* p[NL];
#pragma unroll
      for (int l = 0; l < NL; ++l) p[l] = base[l];
      long long rest = k;
#pragma unroll
      for (int d = RD - 1; d >= 1; --d) {
        const long long q = rest / a->rshape[d];
        const long long idx = rest - q * a->rshape[d];
        rest = q;
#pragma unroll
        for (int l = 0; l < NL; ++l) p[l] += idx * a->rin[l][d];
      }
#pragma unroll
      for (int l = 0; l < NL; ++l) p[l] += rest * a->rin[l][0];
      const In v = Value::At(p);
      return Op::Load(reinterpret_cast<const char*>(&v), k);
    }
    template <int V>
    __device__ __forceinline__ void Chunk(long long c, Acc (&x)[V]) const {
#pragma unroll
      for (int j = 0; j < V; ++j) x[j] = Get(c * V + j);
    }
  };
  static __device__ __forceinline__ Row At(const Args& a, long long m) {
    Row r;
    long long value_offset = 0, rest = m;
#pragma unroll
    for (int l = 0; l < NL; ++l) r.base[l] = a.in[l];
#pragma unroll
    for (int d = KD - 1; d >= 0; --d) {
      const long long q = d > 0 ? rest / a.kshape[d] : 0;
      const long long idx = d > 0 ? rest - q * a.kshape[d] : rest;
      rest = q;
      value_offset += idx * a.kvalue[d];
#pragma unroll
      for (int l = 0; l < NL; ++l) r.base[l] += idx * a.kin[l][d];
    }
    r.a = &a;
    // The unfused value is a fresh (256-byte aligned) allocation.
    r.vector = a.vector && (value_offset & 15) == 0;
    return r;
  }
};

// `v` of the lane `offset` lanes up in the warp (__shfl_down_sync), moved
// as 4-byte words: any Acc struct.
template <typename T>
__device__ __forceinline__ T ShuffleDown(const T& v, unsigned offset) {
  constexpr int W = (sizeof(T) + 3) / 4;
  unsigned w[W];
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int i = 0; i < W; ++i) w[i] = __shfl_down_sync(0xffffffffu, w[i], offset);
  T r;
  memcpy(&r, w, sizeof(T));
  return r;
}

// Tree reduction of one value per thread of the block (256 threads); thread
// 0 gets the result. Every thread must call it. Each warp combines its
// lanes by shuffles, then warp 0 combines the warps' values.
// The warp's 32 values combined by shuffles; lane 0 gets the result.
template <typename Op>
__device__ __forceinline__ typename Op::Acc WarpCombine(typename Op::Acc acc) {
#pragma unroll
  for (unsigned o = 16; o > 0; o >>= 1) acc = Op::Combine(acc, ShuffleDown(acc, o));
  return acc;
}

template <typename Op>
__device__ __forceinline__ typename Op::Acc BlockCombine(typename Op::Acc acc) {
  typedef typename Op::Acc Acc;
  __shared__ __align__(16) unsigned char smem[32 * sizeof(Acc)];
  Acc* s = reinterpret_cast<Acc*>(smem);
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  acc = WarpCombine<Op>(acc);
  if (lane == 0) s[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    acc = lane < (blockDim.x >> 5) ? s[lane] : Op::Identity();
#pragma unroll
    for (unsigned o = 16; o > 0; o >>= 1) acc = Op::Combine(acc, ShuffleDown(acc, o));
  }
  __syncthreads();  // s is reused by the next call
  return acc;
}

// Output m's result, or its split's partial when gridDim.y > 1.
template <typename Op, typename Args>
__device__ __forceinline__ void StoreResult(const Args& a, long long m, typename Op::Acc acc) {
  if (gridDim.y == 1) {
    Op::Store(a.out + Offset<Args::kKD>(m, a.kshape, a.kout), acc);
  } else {
    reinterpret_cast<typename Op::Acc*>(a.partial)[m * gridDim.y + blockIdx.y] = acc;
  }
}

// This thread's share of a row of k elements: elements first, first +
// step, ... (in 16-byte chunks where the row is contiguous), combined.
template <typename Op, typename Row>
__device__ __forceinline__ typename Op::Acc RowShare(const Row& row, long long first,
                                                     long long step, long long total) {
  typedef typename Op::Acc Acc;
  typedef typename Op::In In;
  // Four independent accumulators keep four loads in flight per thread,
  // which a bandwidth-bound reduction needs to approach the memory's speed.
  Acc acc = Op::Identity(), acc1 = Op::Identity(), acc2 = Op::Identity(), acc3 = Op::Identity();
  long long k = first;
  const int V = 16 / sizeof(In) > 0 ? 16 / sizeof(In) : 1;
  if (V > 1 && row.Vector()) {
    // Contiguous: 16-byte chunks, four in flight per thread.
    const long long chunks = total / V;
    long long c = k;
    for (; c + 3 * step < chunks; c += 4 * step) {
      Acc x[4][V];
#pragma unroll
      for (int u = 0; u < 4; ++u) row.Chunk(c + u * step, x[u]);
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        Acc& r = u == 0 ? acc : u == 1 ? acc1 : u == 2 ? acc2 : acc3;
#pragma unroll
        for (int j = 0; j < V; ++j) r = Op::Combine(r, x[u][j]);
      }
    }
    for (; c < chunks; c += step) {
      Acc x[V];
      row.Chunk(c, x);
#pragma unroll
      for (int j = 0; j < V; ++j) acc = Op::Combine(acc, x[j]);
    }
    k = chunks * V + k;  // the last total % V elements, one per thread
  }
  for (; k + 3 * step < total; k += 4 * step) {
    const Acc v0 = row.Get(k);
    const Acc v1 = row.Get(k + step);
    const Acc v2 = row.Get(k + 2 * step);
    const Acc v3 = row.Get(k + 3 * step);
    acc = Op::Combine(acc, v0);
    acc1 = Op::Combine(acc1, v1);
    acc2 = Op::Combine(acc2, v2);
    acc3 = Op::Combine(acc3, v3);
  }
  for (; k < total; k += step) acc = Op::Combine(acc, row.Get(k));
  return Op::Combine(Op::Combine(acc, acc1), Op::Combine(acc2, acc3));
}

// A block per output (split over gridDim.y blocks).
template <typename Op, typename Src, typename Args>
__device__ __forceinline__ void BlockReduce(const Args& a) {
  for (long long m = blockIdx.x; m < a.m; m += gridDim.x) {
    const typename Src::Row row = Src::At(a, m);
    const long long step = (long long)gridDim.y * blockDim.x;
    typename Op::Acc acc =
        RowShare<Op>(row, blockIdx.y * (long long)blockDim.x + threadIdx.x, step, a.k);
    acc = BlockCombine<Op>(acc);
    if (threadIdx.x == 0) StoreResult<Op>(a, m, acc);
  }
}

// A warp per output (many rows of a few thousand elements: no block-wide
// combine per row); never split (gridDim.y is 1).
template <typename Op, typename Src, typename Args>
__device__ __forceinline__ void WarpReduce(const Args& a) {
  const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
  const unsigned lane = threadIdx.x & 31;
  for (long long m = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; m < a.m; m += warps) {
    const typename Src::Row row = Src::At(a, m);
    const typename Op::Acc acc = WarpCombine<Op>(RowShare<Op>(row, lane, 32, a.k));
    if (lane == 0) StoreResult<Op>(a, m, acc);
  }
}

template <typename Op, typename Src, typename Args>
__device__ __forceinline__ void ThreadReduce(const Args& a) {
  typedef typename Op::Acc Acc;
  for (long long m = blockIdx.x * (long long)blockDim.x + threadIdx.x; m < a.m;
       m += (long long)gridDim.x * blockDim.x) {
    const typename Src::Row row = Src::At(a, m);
    // Four accumulators: four loads in flight per thread (a column sum
    // reads one element per row).
    Acc acc = Op::Identity(), acc1 = Op::Identity(), acc2 = Op::Identity(), acc3 = Op::Identity();
    const long long step = gridDim.y;
    long long k = blockIdx.y;
    for (; k + 3 * step < a.k; k += 4 * step) {
      const Acc v0 = row.Get(k);
      const Acc v1 = row.Get(k + step);
      const Acc v2 = row.Get(k + 2 * step);
      const Acc v3 = row.Get(k + 3 * step);
      acc = Op::Combine(acc, v0);
      acc1 = Op::Combine(acc1, v1);
      acc2 = Op::Combine(acc2, v2);
      acc3 = Op::Combine(acc3, v3);
    }
    for (; k < a.k; k += step) acc = Op::Combine(acc, row.Get(k));
    StoreResult<Op>(a, m, Op::Combine(Op::Combine(acc, acc1), Op::Combine(acc2, acc3)));
  }
}

// a.k is the number of partials per output here; Src is not read.
template <typename Op, typename Src, typename Args>
__device__ __forceinline__ void FinishReduce(const Args& a) {
  typedef typename Op::Acc Acc;
  const Acc* partial = reinterpret_cast<const Acc*>(a.partial);
  for (long long m = blockIdx.x; m < a.m; m += gridDim.x) {
    Acc acc = Op::Identity();
    for (long long j = threadIdx.x; j < a.k; j += blockDim.x) {
      acc = Op::Combine(acc, partial[m * a.k + j]);
    }
    acc = BlockCombine<Op>(acc);
    if (threadIdx.x == 0) StoreResult<Op>(a, m, acc);  // gridDim.y is 1
  }
}

// The Op of a reduction, by kind (ReduceBody in kernel_source.h picks one):
// In is the input element type, Acc the per-thread state; Identity, Load
// (element k of the reduced ones at p), Combine and Store (to the output
// element at p). T: input type, R: the reduction's dtype (each element is
// cast to it as it is read, as if the input had been cast first), A:
// accumulator type, O: output type.

// sum (F = AddOp, identity 0) and prod (F = MultiplyOp, identity 1).
template <typename T, typename R, typename A, typename O, typename F, int kIdentity>
struct FoldReduceOp {
  typedef T In;
  struct Acc {
    A v;
  };
  static __device__ __forceinline__ Acc Identity() {
    Acc r;
    r.v = Cast<A>(kIdentity);
    return r;
  }
  static __device__ __forceinline__ Acc Load(const char* p, long long) {
    Acc r;
    r.v = Cast<A>(Cast<R>(*reinterpret_cast<const T*>(p)));
    return r;
  }
  static __device__ __forceinline__ Acc Combine(Acc a, Acc b) {
    Acc r;
    r.v = F()(a.v, b.v);
    return r;
  }
  static __device__ __forceinline__ void Store(char* p, Acc a) {
    *reinterpret_cast<O*>(p) = Cast<O>(a.v);
  }
};

// min (F = MinimumOp) and max (F = MaximumOp). `has` marks an accumulator
// that has seen an element (no identity for min/max); an empty reduction
// stores 0, as the CPU backend does.
template <typename T, typename R, typename A, typename O, typename F>
struct ExtremumReduceOp {
  typedef T In;
  struct Acc {
    A v;
    int has;
  };
  static __device__ __forceinline__ Acc Identity() {
    Acc r;
    r.v = Cast<A>(0);
    r.has = 0;
    return r;
  }
  static __device__ __forceinline__ Acc Load(const char* p, long long) {
    Acc r;
    r.v = Cast<A>(Cast<R>(*reinterpret_cast<const T*>(p)));
    r.has = 1;
    return r;
  }
  static __device__ __forceinline__ Acc Combine(Acc a, Acc b) {
    if (!a.has) return b;
    if (!b.has) return a;
    Acc r;
    r.v = F()(a.v, b.v);
    r.has = 1;
    return r;
  }
  static __device__ __forceinline__ void Store(char* p, Acc a) {
    *reinterpret_cast<O*>(p) = Cast<O>(a.v);
  }
};

// all (kAll) and any: a bool output.
template <typename T, bool kAll>
struct LogicalReduceOp {
  typedef T In;
  struct Acc {
    bool v;
  };
  static __device__ __forceinline__ Acc Identity() {
    Acc r;
    r.v = kAll;
    return r;
  }
  static __device__ __forceinline__ Acc Load(const char* p, long long) {
    Acc r;
    r.v = Cast<bool>(*reinterpret_cast<const T*>(p));
    return r;
  }
  static __device__ __forceinline__ Acc Combine(Acc a, Acc b) {
    Acc r;
    r.v = kAll ? (a.v && b.v) : (a.v || b.v);
    return r;
  }
  static __device__ __forceinline__ void Store(char* p, Acc a) {
    *reinterpret_cast<bool*>(p) = a.v;
  }
};

// argmin (Better = LessOp) and argmax (Better = GreaterOp): the first index
// of the extreme, and a NaN beats everything (NumPy stops at the first NaN);
// index order, not visiting order, breaks ties so that any combining order
// gives the CPU's answer. An int64 output.
template <typename T, typename Better>
struct ArgReduceOp {
  typedef T In;
  struct Acc {
    T v;
    long long i;
  };
  static __device__ __forceinline__ Acc Identity() {
    Acc r;
    r.v = Cast<T>(0);
    r.i = -1;
    return r;
  }
  static __device__ __forceinline__ Acc Load(const char* p, long long k) {
    Acc r;
    r.v = *reinterpret_cast<const T*>(p);
    r.i = k;
    return r;
  }
  static __device__ __forceinline__ Acc Combine(Acc a, Acc b) {
    if (a.i < 0) return b;
    if (b.i < 0) return a;
    const bool an = IsNan(a.v), bn = IsNan(b.v);
    if (an || bn) {
      if (an && bn) return a.i <= b.i ? a : b;
      return an ? a : b;
    }
    if (Better()(b.v, a.v)) return b;
    if (Better()(a.v, b.v)) return a;
    return a.i <= b.i ? a : b;
  }
  static __device__ __forceinline__ void Store(char* p, Acc a) {
    *reinterpret_cast<long long*>(p) = a.i < 0 ? 0 : a.i;
  }
};

}  // namespace gen
}  // namespace kernels
}  // namespace arrayd

#endif  // ARRAYD_BACKEND_CUDA_DEVICE_REDUCE_CUH_
