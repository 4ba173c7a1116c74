// Queries of the session's device (arrayd.cuda.Device, runtime): what
// changes while the server runs. What does not (compute capability, SM
// count, ...) is in Capabilities.devices.
#include <cstdint>

#include "common/status.h"
#include "ops/registry.h"

namespace arrayd {
namespace {

// [free, total] bytes of the device's memory, as cudaMemGetInfo.
absl::Status RunDeviceMemory(OpContext& ctx) {
  uint64_t free = 0, total = 0;
  ARRAYD_RETURN_IF_ERROR(ctx.stream().MemoryInfo(&free, &total));
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(DType::kInt64, {2}));
  const int64_t host[2] = {static_cast<int64_t>(free), static_cast<int64_t>(total)};
  ARRAYD_RETURN_IF_ERROR(ctx.stream().CopyFromHost(host, out));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

}  // namespace

void RegisterDeviceOps(OpRegistry* r) {
  r->Register(OpFamily::kTransfer, "device_memory(*) -> out",
              "[free, total] bytes of the device's memory (cudaMemGetInfo).", RunDeviceMemory);
}

}  // namespace arrayd
