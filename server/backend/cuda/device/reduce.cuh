// Device code of the CUDA backend's generated kernels (NVRTC): reductions
// along collapsed axes (ReduceBody in kernel_source.h). ReduceArgs is the
// kernels' one by-value parameter (host mirror: 8-byte words in field
// order); BlockReduce (a block per output), ThreadReduce (a thread per
// output) and FinishReduce (combines the partials of split outputs) are the
// three strategies the host chooses between (cuda_reduce.cc). Every kernel
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
  const char* in;
  char* out;
  char* partial;
  long long m;
  long long k;
  long long kshape[KD], kin[KD], kout[KD];
  long long rshape[RD], rin[RD];
};

// Tree reduction of one value per thread of the block; thread 0 gets the
// result. Every thread must call it.
template <typename Op>
__device__ __forceinline__ typename Op::Acc BlockCombine(typename Op::Acc acc) {
  typedef typename Op::Acc Acc;
  __shared__ __align__(16) unsigned char smem[256 * sizeof(Acc)];
  Acc* s = reinterpret_cast<Acc*>(smem);
  s[threadIdx.x] = acc;
  __syncthreads();
  for (unsigned w = blockDim.x / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w) s[threadIdx.x] = Op::Combine(s[threadIdx.x], s[threadIdx.x + w]);
    __syncthreads();
  }
  Acc r = s[0];
  __syncthreads();  // s is reused by the next call
  return r;
}

template <typename Op, int KD, int RD>
__device__ __forceinline__ void BlockReduce(const ReduceArgs<KD, RD>& a) {
  typedef typename Op::Acc Acc;
  for (long long m = blockIdx.x; m < a.m; m += gridDim.x) {
    const char* base = a.in + Offset<KD>(m, a.kshape, a.kin);
    // Four independent accumulators keep four loads in flight per thread,
    // which a bandwidth-bound reduction needs to approach the memory's speed.
    Acc acc = Op::Identity(), acc1 = Op::Identity(), acc2 = Op::Identity(), acc3 = Op::Identity();
    const long long step = (long long)gridDim.y * blockDim.x;
    long long k = blockIdx.y * (long long)blockDim.x + threadIdx.x;
    typedef typename Op::In In;
    const int V = 16 / sizeof(In) > 0 ? 16 / sizeof(In) : 1;
    if (RD == 1 && V > 1 && a.rin[0] == (long long)sizeof(In) &&
        (reinterpret_cast<unsigned long long>(base) & 15) == 0) {
      // Contiguous: 16-byte vector loads, four in flight per thread.
      typedef Vec<In, V> VecT;
      const VecT* vbase = reinterpret_cast<const VecT*>(base);
      const long long chunks = a.k / V;
      long long c = k;
      for (; c + 3 * step < chunks; c += 4 * step) {
        VecT x[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) x[u] = vbase[c + u * step];
#pragma unroll
        for (int u = 0; u < 4; ++u) {
          Acc& r = u == 0 ? acc : u == 1 ? acc1 : u == 2 ? acc2 : acc3;
#pragma unroll
          for (int j = 0; j < V; ++j) {
            r = Op::Combine(
                r, Op::Load(reinterpret_cast<const char*>(&x[u].v[j]), (c + u * step) * V + j));
          }
        }
      }
      for (; c < chunks; c += step) {
        const VecT x0 = vbase[c];
#pragma unroll
        for (int j = 0; j < V; ++j) {
          acc = Op::Combine(acc, Op::Load(reinterpret_cast<const char*>(&x0.v[j]), c * V + j));
        }
      }
      k = chunks * V + k;  // the last a.k % V elements, one per thread
    }
    for (; k + 3 * step < a.k; k += 4 * step) {
      const Acc v0 = Op::Load(base + Offset<RD>(k, a.rshape, a.rin), k);
      const Acc v1 = Op::Load(base + Offset<RD>(k + step, a.rshape, a.rin), k + step);
      const Acc v2 = Op::Load(base + Offset<RD>(k + 2 * step, a.rshape, a.rin), k + 2 * step);
      const Acc v3 = Op::Load(base + Offset<RD>(k + 3 * step, a.rshape, a.rin), k + 3 * step);
      acc = Op::Combine(acc, v0);
      acc1 = Op::Combine(acc1, v1);
      acc2 = Op::Combine(acc2, v2);
      acc3 = Op::Combine(acc3, v3);
    }
    for (; k < a.k; k += step) {
      acc = Op::Combine(acc, Op::Load(base + Offset<RD>(k, a.rshape, a.rin), k));
    }
    acc = Op::Combine(Op::Combine(acc, acc1), Op::Combine(acc2, acc3));
    acc = BlockCombine<Op>(acc);
    if (threadIdx.x == 0) {
      if (gridDim.y == 1) {
        Op::Store(a.out + Offset<KD>(m, a.kshape, a.kout), acc);
      } else {
        reinterpret_cast<Acc*>(a.partial)[m * gridDim.y + blockIdx.y] = acc;
      }
    }
  }
}

template <typename Op, int KD, int RD>
__device__ __forceinline__ void ThreadReduce(const ReduceArgs<KD, RD>& a) {
  typedef typename Op::Acc Acc;
  for (long long m = blockIdx.x * (long long)blockDim.x + threadIdx.x; m < a.m;
       m += (long long)gridDim.x * blockDim.x) {
    const char* base = a.in + Offset<KD>(m, a.kshape, a.kin);
    Acc acc = Op::Identity();
    for (long long k = blockIdx.y; k < a.k; k += gridDim.y) {
      acc = Op::Combine(acc, Op::Load(base + Offset<RD>(k, a.rshape, a.rin), k));
    }
    if (gridDim.y == 1) {
      Op::Store(a.out + Offset<KD>(m, a.kshape, a.kout), acc);
    } else {
      reinterpret_cast<Acc*>(a.partial)[m * gridDim.y + blockIdx.y] = acc;
    }
  }
}

// a.k is the number of partials per output here.
template <typename Op, int KD, int RD>
__device__ __forceinline__ void FinishReduce(const ReduceArgs<KD, RD>& a) {
  typedef typename Op::Acc Acc;
  const Acc* partial = reinterpret_cast<const Acc*>(a.partial);
  for (long long m = blockIdx.x; m < a.m; m += gridDim.x) {
    Acc acc = Op::Identity();
    for (long long j = threadIdx.x; j < a.k; j += blockDim.x) {
      acc = Op::Combine(acc, partial[m * a.k + j]);
    }
    acc = BlockCombine<Op>(acc);
    if (threadIdx.x == 0) Op::Store(a.out + Offset<KD>(m, a.kshape, a.kout), acc);
  }
}

// The Op of a reduction, by kind (ReduceBody in kernel_source.h picks one):
// In is the input element type, Acc the per-thread state; Identity, Load
// (element k of the reduced ones at p), Combine and Store (to the output
// element at p). T: input type, A: accumulator type, O: output type.

// sum (F = AddOp, identity 0) and prod (F = MultiplyOp, identity 1).
template <typename T, typename A, typename O, typename F, int kIdentity>
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
    r.v = Cast<A>(*reinterpret_cast<const T*>(p));
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
template <typename T, typename A, typename O, typename F>
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
    r.v = Cast<A>(*reinterpret_cast<const T*>(p));
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
