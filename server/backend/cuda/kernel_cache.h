// JIT compilation of generated sources with NVRTC, and the two caches of
// its results: compiled functions in memory (shared by every session: one
// compile per kernel for the whole server) and CUBIN files on disk (shared
// by every server process of the machine and kept across restarts).
#ifndef ARRAYD_BACKEND_CUDA_KERNEL_CACHE_H_
#define ARRAYD_BACKEND_CUDA_KERNEL_CACHE_H_

#include <cuda.h>

#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace arrayd {
namespace cuda {

// "sm_90" for compute capability 9.0.
std::string ArchName(int cc_major, int cc_minor);

// Compiles `source` for `arch` ("sm_90") to CUBIN with NVRTC. Needs no GPU.
// INTERNAL with NVRTC's log when the source does not compile.
absl::StatusOr<std::string> CompileToCubin(const std::string& source, const std::string& arch);

// NVRTC's version as "major.minor".
std::string NvrtcVersion();

// The disk cache folder: $ARRAYD_KERNEL_CACHE, else $HOME/.cache/arrayd/kernels;
// empty when neither can be determined (disk cache off).
std::string DefaultDiskCacheDir();

// Compiled kernels of one device. Thread-safe. Modules are never unloaded.
class KernelCache {
 public:
  // `arch` as ArchName; `disk_dir` empty: no disk cache.
  KernelCache(std::string arch, std::string disk_dir);

  // The function `name` of `source`, compiling and loading the module on
  // first use. The calling thread must have the device's context current
  // (cudaSetDevice). Concurrent calls for one source compile it once.
  absl::StatusOr<CUfunction> Get(const std::string& source, const std::string& name);

 private:
  struct Entry {
    absl::Mutex mu;
    bool done ABSL_GUARDED_BY(mu) = false;
    absl::Status status ABSL_GUARDED_BY(mu);
    CUmodule module ABSL_GUARDED_BY(mu) = nullptr;
    absl::flat_hash_map<std::string, CUfunction> functions ABSL_GUARDED_BY(mu);
  };

  absl::StatusOr<std::string> LoadOrCompile(const std::string& source);

  const std::string arch_;
  const std::string disk_dir_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<Entry>> entries_ ABSL_GUARDED_BY(mu_);
};

}  // namespace cuda
}  // namespace arrayd

#endif  // ARRAYD_BACKEND_CUDA_KERNEL_CACHE_H_
