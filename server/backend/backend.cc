#include "backend/backend.h"

#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status.h"
#include "backend/cpu/cpu_backend.h"
#ifdef ARRAYD_WITH_CUDA
#include "backend/cuda/cuda_backend.h"
#endif

namespace arrayd {

absl::Status Stream::CheckInfo(const View& info, absl::string_view /*op*/,
                               absl::string_view message) {
  std::vector<int32_t> host(static_cast<size_t>(info.size()));
  if (info.dtype != DType::kInt32 || !info.IsCContiguous()) {
    return absl::InternalError("check info: not a C-contiguous int32 array");
  }
  if (host.empty()) return absl::OkStatus();
  ARRAYD_RETURN_IF_ERROR(CopyToHost(info, host.data()));
  for (int32_t i : host) {
    if (i > 0) return LinAlgError(message);
  }
  return absl::OkStatus();
}

std::vector<std::string> CompiledBackends() {
  std::vector<std::string> out = {"cpu"};
#ifdef ARRAYD_WITH_CUDA
  out.push_back("cuda");
#endif
  return out;
}

absl::StatusOr<std::unique_ptr<Backend>> CreateBackend(const std::string& name, std::string* why) {
  if (name == "cpu") {
    *why = "asked for with --backend cpu";
    return cpu::CreateCpuBackend();
  }
  if (name == "cuda" || name == "auto") {
#ifdef ARRAYD_WITH_CUDA
    std::string reason;
    int gpus = cuda::VisibleGpuCount(&reason);
    if (gpus > 0) {
      *why = name == "cuda" ? "asked for with --backend cuda"
                            : absl::StrCat(gpus, " CUDA GPU(s) visible");
      return cuda::CreateCudaBackend(0);
    }
    if (name == "cuda") return absl::UnavailableError(absl::StrCat("no CUDA GPU: ", reason));
    *why = absl::StrCat("no CUDA GPU visible (", reason, "), using the CPU");
#else
    if (name == "cuda") return absl::UnimplementedError("this arrayd was built without CUDA");
    *why = "no GPU backend compiled in, using the CPU";
#endif
    return cpu::CreateCpuBackend();
  }
  if (name == "hip") return absl::UnimplementedError("this arrayd was built without HIP");
  return absl::InvalidArgumentError(
      absl::StrCat("unknown backend '", name, "' (expected auto, cpu, cuda or hip)"));
}

}  // namespace arrayd
