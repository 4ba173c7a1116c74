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
#include "backend/backend.h"

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

// A user module loaded on the device (RawModule): its CUmodule, the
// symbols of its name expressions, and its functions as looked up.
// Thread-safe.
class CudaModule : public KernelModule {
 public:
  CudaModule(CUmodule module, absl::flat_hash_map<std::string, std::string> lowered,
             std::string log)
      : KernelModule(std::move(log)), module_(module), lowered_(std::move(lowered)) {}
  // Kernel `name`: a symbol, or one of the name expressions it was
  // compiled with. NOT_FOUND (a ValueError-like message) when there is none.
  absl::StatusOr<CUfunction> Function(const std::string& name);

 private:
  const CUmodule module_;
  const absl::flat_hash_map<std::string, std::string> lowered_;  // expression -> symbol
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, CUfunction> functions_ ABSL_GUARDED_BY(mu_);
};

// A user module as compiled: its image (CUBIN, or NUL-terminated PTX for a
// virtual architecture), the symbol of each name expression, and NVRTC's
// messages (warnings).
struct CompiledModule {
  std::string image;
  absl::flat_hash_map<std::string, std::string> lowered;
  std::string log;
};

// Compiles a user module for `arch`. Relocatable device code (-dc, -rdc=true:
// dynamic parallelism) is linked with the toolkit's libcudadevrt.a.
// CompileError with NVRTC's log.
absl::StatusOr<CompiledModule> CompileUserModule(const KernelModuleSpec& spec,
                                                 const std::string& arch);

// Compiled kernels of one device. Thread-safe. Modules are never unloaded.
class KernelCache {
 public:
  // `arch` as ArchName; `disk_dir` empty: no disk cache.
  KernelCache(std::string arch, std::string disk_dir);

  // The function `name` of `source`, compiling and loading the module on
  // first use. The calling thread must have the device's context current
  // (cudaSetDevice). Concurrent calls for one source compile it once.
  absl::StatusOr<CUfunction> Get(const std::string& source, const std::string& name);

  // The user module of `spec`: from memory when any session loaded it
  // before, else from the disk cache, else compiled; `origin` says which
  // (and a log line names it, with the session-independent module hash).
  absl::StatusOr<std::shared_ptr<CudaModule>> GetUserModule(const KernelModuleSpec& spec,
                                                            ModuleOrigin* origin);

 private:
  struct UserEntry {
    absl::Mutex mu;
    bool done ABSL_GUARDED_BY(mu) = false;
    absl::Status status ABSL_GUARDED_BY(mu);
    std::shared_ptr<CudaModule> module ABSL_GUARDED_BY(mu);
  };

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
  absl::flat_hash_map<std::string, std::shared_ptr<UserEntry>> user_entries_ ABSL_GUARDED_BY(mu_);
};

}  // namespace cuda
}  // namespace arrayd

#endif  // ARRAYD_BACKEND_CUDA_KERNEL_CACHE_H_
