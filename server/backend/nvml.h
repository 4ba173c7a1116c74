// GPU memory and utilization from NVML (libnvidia-ml), loaded at run time
// as libcuda is: a server without the NVIDIA driver just has no such numbers.
#ifndef ARRAYD_BACKEND_NVML_H_
#define ARRAYD_BACKEND_NVML_H_

#include <cstdint>
#include <string>
#include <vector>

namespace arrayd {

struct GpuUsage {
  int index = 0;
  std::string name;
  uint64_t memory_used = 0, memory_total = 0;  // bytes, all processes
  unsigned utilization_percent = 0;           // of the last sample period
};

// Every GPU NVML sees; empty without NVML. Thread-safe.
std::vector<GpuUsage> ReadGpuUsage();

}  // namespace arrayd

#endif  // ARRAYD_BACKEND_NVML_H_
