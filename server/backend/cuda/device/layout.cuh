// Device code of the CUDA backend's generated kernels (NVRTC): how kernels
// address their operands. Strided<N, ND> gives N operands' byte strides over
// ND collapsed dims (host mirror: words {shape[ND], stride[N][ND]}, see
// kernel_source.h), FlatLayout random access by C-order flat position (host
// mirror: FlatLayoutArgs), Vec the 16-byte vectors of contiguous kernels.
//
// Embedded into every NVRTC source at build time (embed_kernel_headers.cmake,
// in the order of ARRAYD_NVRTC_HEADERS); an include of another embedded
// header is removed there, so this file also reads as a normal header.
#ifndef ARRAYD_BACKEND_CUDA_DEVICE_LAYOUT_CUH_
#define ARRAYD_BACKEND_CUDA_DEVICE_LAYOUT_CUH_

#include "kernels/types.h"

namespace arrayd {
namespace kernels {
namespace gen {

template <int N, int ND>
struct Strided {
  long long shape[ND];
  long long stride[N][ND];
};

// `V` elements of T, loaded and stored as one aligned vector.
template <typename T, int V>
struct alignas(sizeof(T) * V) Vec {
  T v[V];
};

// Byte offset of element `i` (C order) of a strided layout.
template <int ND>
__device__ __forceinline__ long long Offset(long long i, const long long* shape,
                                            const long long* stride) {
  long long off = 0;
#pragma unroll
  for (int d = ND - 1; d >= 1; --d) {
    long long q = i / shape[d];
    off += (i - q * shape[d]) * stride[d];
    i = q;
  }
  return off + i * stride[0];
}

// Random access to an array by C-order flat position (collapsed dims).
struct FlatLayout {
  char* base;
  long long nd;
  long long shape[8];
  long long stride[8];
};

__device__ __forceinline__ long long FlatOffset(const FlatLayout& l, long long flat) {
  long long off = 0;
  for (int d = (int)l.nd - 1; d >= 1; --d) {
    const long long q = flat / l.shape[d];
    off += (flat - q * l.shape[d]) * l.stride[d];
    flat = q;
  }
  return l.nd > 0 ? off + flat * l.stride[0] : 0;
}

}  // namespace gen
}  // namespace kernels
}  // namespace arrayd

#endif  // ARRAYD_BACKEND_CUDA_DEVICE_LAYOUT_CUH_
