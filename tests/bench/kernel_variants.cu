// Kernel experiments for the two CuPy rows arrayd misses by a few percent:
// float32 sum of 2^28 (against CUB's DeviceReduce, what CuPy calls) and
// 2^28 float32 normals (against cuRAND's XORWOW and Philox host API). Each
// variant is timed with CUDA events, median of 20 runs. Not a test; the
// numbers go to tests/bench/RESULTS.md.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -I/usr/local/cuda/include/cccl \
//     tests/bench/kernel_variants.cu -lcurand -o build/bin/kernel_variants
#include <cuda_runtime.h>
#include <curand.h>

#include <algorithm>
#include <cstdio>
#include <cub/device/device_reduce.cuh>
#include <functional>
#include <vector>

#define CHECK(x)                                                              \
  do {                                                                        \
    auto e_ = (x);                                                            \
    if (e_ != 0) {                                                            \
      std::printf("%s failed: %d at line %d\n", #x, (int)e_, __LINE__);       \
      std::exit(1);                                                           \
    }                                                                         \
  } while (0)

static float MedianMs(const std::function<void()>& fn) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  fn();
  cudaDeviceSynchronize();
  std::vector<float> t;
  for (int i = 0; i < 20; ++i) {
    cudaEventRecord(a);
    fn();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// ---- sum -------------------------------------------------------------------

__device__ float BlockSum(float v) {
  __shared__ float warp[8];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) warp[threadIdx.x >> 5] = v;
  __syncthreads();
  v = threadIdx.x < 8 ? warp[threadIdx.x] : 0.f;
  if (threadIdx.x < 32) {
    for (int o = 4; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  }
  return v;
}

// arrayd's pattern today: grid-stride over float4 chunks, four loads in
// flight spaced a grid apart.
__global__ void __launch_bounds__(256) SumStrided(const float4* in, long long chunks,
                                                  float* partial) {
  const long long step = (long long)gridDim.x * blockDim.x;
  long long c = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  float a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  for (; c + 3 * step < chunks; c += 4 * step) {
    float4 x[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) x[u] = in[c + u * step];
    a0 += x[0].x + x[0].y + x[0].z + x[0].w;
    a1 += x[1].x + x[1].y + x[1].z + x[1].w;
    a2 += x[2].x + x[2].y + x[2].z + x[2].w;
    a3 += x[3].x + x[3].y + x[3].z + x[3].w;
  }
  for (; c < chunks; c += step) a0 += in[c].x + in[c].y + in[c].z + in[c].w;
  const float s = BlockSum((a0 + a1) + (a2 + a3));
  if (threadIdx.x == 0) partial[blockIdx.x] = s;
}

// Each block owns a contiguous run of tiles (U float4 per thread per tile).
template <int U>
__global__ void __launch_bounds__(256) SumTiled(const float4* in, long long chunks,
                                                float* partial) {
  const long long tile = (long long)U * blockDim.x;
  const long long tiles = chunks / tile;
  const long long t0 = tiles * blockIdx.x / gridDim.x, t1 = tiles * (blockIdx.x + 1) / gridDim.x;
  float acc[U] = {};
  for (long long t = t0; t < t1; ++t) {
    float4 x[U];
#pragma unroll
    for (int u = 0; u < U; ++u) x[u] = in[t * tile + u * blockDim.x + threadIdx.x];
#pragma unroll
    for (int u = 0; u < U; ++u) acc[u] += x[u].x + x[u].y + x[u].z + x[u].w;
  }
  for (long long c = tiles * tile + blockIdx.x * (long long)blockDim.x + threadIdx.x; c < chunks;
       c += (long long)gridDim.x * blockDim.x) {
    acc[0] += in[c].x + in[c].y + in[c].z + in[c].w;
  }
  float s = 0;
#pragma unroll
  for (int u = 0; u < U; ++u) s += acc[u];
  s = BlockSum(s);
  if (threadIdx.x == 0) partial[blockIdx.x] = s;
}

__global__ void Finish(const float* partial, int n, float* out) {
  float v = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) v += partial[i];
  v = BlockSum(v);
  if (threadIdx.x == 0) *out = v;
}

// ---- normals -----------------------------------------------------------------

struct Philox {
  unsigned v[4];
  template <int R>
  __device__ __forceinline__ void Run(unsigned long long counter, unsigned long long key) {
    unsigned c0 = (unsigned)counter, c1 = (unsigned)(counter >> 32), c2 = 0x6a09e667u,
             c3 = 0xbb67ae85u, k0 = (unsigned)key, k1 = (unsigned)(key >> 32);
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const unsigned long long p0 = 0xD2511F53ull * c0, p1 = 0xCD9E8D57ull * c2;
      const unsigned n0 = (unsigned)(p1 >> 32) ^ c1 ^ k0, n2 = (unsigned)(p0 >> 32) ^ c3 ^ k1;
      c0 = n0;
      c1 = (unsigned)p1;
      c2 = n2;
      c3 = (unsigned)p0;
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    v[0] = c0, v[1] = c1, v[2] = c2, v[3] = c3;
  }
};

// kFast: x * rsqrt(x) for the radius instead of an IEEE sqrtf; kFastLog:
// the hardware log2 (clamped: it can be slightly positive near u = 1).
template <bool kFast, bool kFastLog = false>
__device__ __forceinline__ void BoxMuller(unsigned a, unsigned b, float* x, float* y) {
  const float u = 1.0f - __uint2float_rn(a >> 8) * (1.0f / 16777216.0f);
  const float t = __uint2float_rn(b >> 8) * (1.0f / 16777216.0f);
  const float l = kFastLog ? fmaxf(0.f, -1.3862943611198906f * __log2f(u)) : -2.0f * logf(u);
  const float radius = kFast ? (l > 0.f ? l * rsqrtf(l) : 0.f) : sqrtf(l);
  float s, c;
  __sincosf(__fmul_rn(6.2831853071795865f, t) - 3.1415926535897932f, &s, &c);
  *x = radius * c;
  *y = radius * s;
}

// One Philox block (four values) per thread, as arrayd does today.
template <int R, bool kFast>
__global__ void __launch_bounds__(256) NormalOne(float4* out, long long blocks,
                                                 unsigned long long key) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < blocks;
       i += (long long)gridDim.x * blockDim.x) {
    Philox p;
    p.Run<R>(i, key);
    float4 r;
    BoxMuller<kFast>(p.v[0], p.v[1], &r.x, &r.y);
    BoxMuller<kFast>(p.v[2], p.v[3], &r.z, &r.w);
    out[i] = r;
  }
}

// Two blocks per thread, i and i + half: two independent chains in flight.
template <bool kFast, bool kFastLog = false>
__global__ void __launch_bounds__(256) NormalTwo(float4* out, long long blocks,
                                                 unsigned long long key) {
  const long long half = blocks / 2;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < half;
       i += (long long)gridDim.x * blockDim.x) {
    Philox p, q;
    p.Run<10>(i, key);
    q.Run<10>(i + half, key);
    float4 r, s;
    BoxMuller<kFast, kFastLog>(p.v[0], p.v[1], &r.x, &r.y);
    BoxMuller<kFast, kFastLog>(p.v[2], p.v[3], &r.z, &r.w);
    BoxMuller<kFast, kFastLog>(q.v[0], q.v[1], &s.x, &s.y);
    BoxMuller<kFast, kFastLog>(q.v[2], q.v[3], &s.z, &s.w);
    out[i] = r;
    out[i + half] = s;
  }
}

// Four blocks per thread, a quarter of the blocks apart.
template <bool kFast, bool kFastLog>
__global__ void __launch_bounds__(256) NormalFour(float4* out, long long blocks,
                                                  unsigned long long key) {
  const long long q = blocks / 4;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < q;
       i += (long long)gridDim.x * blockDim.x) {
    Philox p[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) p[j].Run<10>(i + j * q, key);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      float4 r;
      BoxMuller<kFast, kFastLog>(p[j].v[0], p[j].v[1], &r.x, &r.y);
      BoxMuller<kFast, kFastLog>(p[j].v[2], p[j].v[3], &r.z, &r.w);
      out[i + j * q] = r;
    }
  }
}

int main() {
  const long long n = 1LL << 28;
  float *x, *partial, *out;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&partial, 1 << 20));
  CHECK(cudaMalloc(&out, 64));
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const double gb = n * 4.0 / 1e9;

  // Normals first (they also fill x for the sums).
  const long long blocks = n / 4;
  const int grid = (int)((blocks + 255) / 256);
  auto report = [&](const char* name, float ms) {
    std::printf("%-44s %8.3f ms %8.1f GB/s %8.1f Gsamples/s\n", name, ms, gb / ms * 1e3,
                n / ms / 1e6);
  };
  report("normal philox-10, 1 block/thread (arrayd)",
         MedianMs([&] { NormalOne<10, false><<<grid, 256>>>((float4*)x, blocks, 42); }));
  report("normal philox-10, 1 block/thread, rsqrt",
         MedianMs([&] { NormalOne<10, true><<<grid, 256>>>((float4*)x, blocks, 42); }));
  report("normal philox-10, 2 blocks/thread",
         MedianMs([&] { NormalTwo<false><<<grid / 2, 256>>>((float4*)x, blocks, 42); }));
  report("normal philox-10, 2 blocks/thread, rsqrt",
         MedianMs([&] { NormalTwo<true><<<grid / 2, 256>>>((float4*)x, blocks, 42); }));
  report("normal philox-10, 2 blocks/thread, fast log2",
         MedianMs([&] { NormalTwo<false, true><<<grid / 2, 256>>>((float4*)x, blocks, 42); }));
  report("normal philox-10, 4 blocks/thread",
         MedianMs([&] { NormalFour<false, false><<<grid / 4, 256>>>((float4*)x, blocks, 42); }));
  report("normal philox-10, 4 blocks/thread, rsqrt, fast log2",
         MedianMs([&] { NormalFour<true, true><<<grid / 4, 256>>>((float4*)x, blocks, 42); }));
  report("normal philox-10, 2 blocks/thread, 2 waves of 8/SM",
         MedianMs([&] { NormalTwo<false><<<8 * sms, 256>>>((float4*)x, blocks, 42); }));
  report("normal philox-0 (transform and store only)",
         MedianMs([&] { NormalOne<0, false><<<grid, 256>>>((float4*)x, blocks, 42); }));
  report("normal philox-10, grid of 8 blocks/SM",
         MedianMs([&] { NormalOne<10, false><<<8 * sms, 256>>>((float4*)x, blocks, 42); }));
  for (auto type : {CURAND_RNG_PSEUDO_XORWOW, CURAND_RNG_PSEUDO_PHILOX4_32_10}) {
    curandGenerator_t g;
    CHECK(curandCreateGenerator(&g, type));
    CHECK(curandSetPseudoRandomGeneratorSeed(g, 42));
    report(type == CURAND_RNG_PSEUDO_XORWOW ? "normal cuRAND XORWOW" : "normal cuRAND Philox",
           MedianMs([&] { CHECK(curandGenerateNormal(g, x, n, 0.0f, 1.0f)); }));
    CHECK(curandDestroyGenerator(g));
  }
  std::printf("memset 1 GiB: %.3f ms\n", MedianMs([&] { cudaMemsetAsync(x, 0, n * 4); }));

  // Sums of 2^28 float32.
  CHECK(cudaMemset(x, 0, n * sizeof(float)));
  const long long chunks = n / 4;
  for (int per_sm : {4, 8}) {
    const int g = per_sm * sms;
    std::printf("-- %d blocks per SM\n", per_sm);
    report("sum grid-stride x4 (arrayd)", MedianMs([&] {
             SumStrided<<<g, 256>>>((const float4*)x, chunks, partial);
             Finish<<<1, 256>>>(partial, g, out);
           }));
    report("sum tiled x4", MedianMs([&] {
             SumTiled<4><<<g, 256>>>((const float4*)x, chunks, partial);
             Finish<<<1, 256>>>(partial, g, out);
           }));
    report("sum tiled x8", MedianMs([&] {
             SumTiled<8><<<g, 256>>>((const float4*)x, chunks, partial);
             Finish<<<1, 256>>>(partial, g, out);
           }));
  }
  report("sum grid-stride x4 alone, 8/SM (no finish)",
         MedianMs([&] { SumStrided<<<8 * sms, 256>>>((const float4*)x, chunks, partial); }));
  size_t temp_bytes = 0;
  CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, x, out, n));
  void* temp;
  CHECK(cudaMalloc(&temp, temp_bytes));
  report("sum CUB DeviceReduce::Sum",
         MedianMs([&] { cub::DeviceReduce::Sum(temp, temp_bytes, x, out, n); }));
  CHECK(cudaDeviceSynchronize());
  return 0;
}
