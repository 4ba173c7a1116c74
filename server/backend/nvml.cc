#include "backend/nvml.h"

#include <dlfcn.h>

namespace arrayd {
namespace {

// The few NVML calls used, by their C signatures (nvml.h is not needed).
struct NvmlMemory {
  unsigned long long total, free, used;
};
struct NvmlUtilization {
  unsigned int gpu, memory;
};
using Device = void*;
struct Nvml {
  int (*init)() = nullptr;
  int (*count)(unsigned int*) = nullptr;
  int (*handle)(unsigned int, Device*) = nullptr;
  int (*memory)(Device, NvmlMemory*) = nullptr;
  int (*utilization)(Device, NvmlUtilization*) = nullptr;
  int (*name)(Device, char*, unsigned int) = nullptr;
  bool ok = false;
};

const Nvml& Load() {
  static const Nvml nvml = [] {
    Nvml n;
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) return n;
    n.init = reinterpret_cast<int (*)()>(dlsym(lib, "nvmlInit_v2"));
    n.count = reinterpret_cast<int (*)(unsigned int*)>(dlsym(lib, "nvmlDeviceGetCount_v2"));
    n.handle = reinterpret_cast<int (*)(unsigned int, Device*)>(
        dlsym(lib, "nvmlDeviceGetHandleByIndex_v2"));
    n.memory = reinterpret_cast<int (*)(Device, NvmlMemory*)>(
        dlsym(lib, "nvmlDeviceGetMemoryInfo"));
    n.utilization = reinterpret_cast<int (*)(Device, NvmlUtilization*)>(
        dlsym(lib, "nvmlDeviceGetUtilizationRates"));
    n.name = reinterpret_cast<int (*)(Device, char*, unsigned int)>(
        dlsym(lib, "nvmlDeviceGetName"));
    n.ok = n.init && n.count && n.handle && n.memory && n.utilization && n.name &&
           n.init() == 0;
    return n;
  }();
  return nvml;
}

}  // namespace

std::vector<GpuUsage> ReadGpuUsage() {
  const Nvml& nvml = Load();
  std::vector<GpuUsage> out;
  unsigned int count = 0;
  if (!nvml.ok || nvml.count(&count) != 0) return out;
  for (unsigned int i = 0; i < count; ++i) {
    Device d = nullptr;
    if (nvml.handle(i, &d) != 0) continue;
    GpuUsage u;
    u.index = static_cast<int>(i);
    char name[96] = {};
    if (nvml.name(d, name, sizeof(name)) == 0) u.name = name;
    NvmlMemory m{};
    if (nvml.memory(d, &m) == 0) {
      u.memory_used = m.used;
      u.memory_total = m.total;
    }
    NvmlUtilization util{};
    if (nvml.utilization(d, &util) == 0) u.utilization_percent = util.gpu;
    out.push_back(u);
  }
  return out;
}

}  // namespace arrayd
