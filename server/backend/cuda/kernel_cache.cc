#include "backend/cuda/kernel_cache.h"

#include <fcntl.h>
#include <nvrtc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "backend/cuda/cuda_status.h"
#include "backend/cuda/driver_api.h"
#include "spdlog/spdlog.h"

namespace arrayd {
namespace cuda {
namespace {

// Frees an NVRTC program on every path.
class ProgramGuard {
 public:
  explicit ProgramGuard(nvrtcProgram p) : p_(p) {}
  ~ProgramGuard() { nvrtcDestroyProgram(&p_); }
  ProgramGuard(const ProgramGuard&) = delete;
  ProgramGuard& operator=(const ProgramGuard&) = delete;

 private:
  nvrtcProgram p_;
};

// 64-bit FNV-1a, twice with different offsets: a 128-bit file name. Files
// also hold their whole key, so a collision only costs a recompile.
std::string HexHash(const std::string& key) {
  uint64_t h1 = 1469598103934665603ULL, h2 = 0x9e3779b97f4a7c15ULL;
  for (unsigned char c : key) {
    h1 = (h1 ^ c) * 1099511628211ULL;
    h2 = (h2 ^ c) * 0x100000001b3ULL + 0x632be59bd9b4e019ULL;
  }
  return absl::StrFormat("%016x%016x", h1, h2);
}

constexpr char kFileMagic[] = "ARRAYD-CUBIN-1\n";

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  *out = ss.str();
  return static_cast<bool>(f) || f.eof();
}

// File layout: magic, 8-byte key length, key, CUBIN (the rest).
bool ParseCacheFile(const std::string& data, const std::string& key, std::string* cubin) {
  const size_t magic = sizeof(kFileMagic) - 1;
  if (data.size() < magic + 8 || data.compare(0, magic, kFileMagic) != 0) return false;
  uint64_t key_len;
  std::memcpy(&key_len, data.data() + magic, 8);
  if (key_len != key.size() || data.size() < magic + 8 + key_len + 1) return false;
  if (data.compare(magic + 8, key_len, key) != 0) return false;
  *cubin = data.substr(magic + 8 + key_len);
  return true;
}

// Best effort: creates `dir` and its parents.
void MakeDirs(const std::string& dir) {
  for (size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos == dir.size() || dir[pos] == '/') mkdir(dir.substr(0, pos).c_str(), 0755);
  }
}

// Writes via a temporary file and rename(2), so readers never see half a file.
void WriteCacheFile(const std::string& dir, const std::string& name, const std::string& key,
                    const std::string& cubin) {
  MakeDirs(dir);
  const std::string path = absl::StrCat(dir, "/", name);
  const std::string tmp =
      absl::StrCat(path, ".tmp.", getpid(), ".", reinterpret_cast<uintptr_t>(&key));
  std::string data = kFileMagic;
  uint64_t key_len = key.size();
  data.append(reinterpret_cast<const char*>(&key_len), 8);
  data += key;
  data += cubin;
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) {
      SPDLOG_DEBUG("kernel disk cache: cannot write {}", tmp);
      return;
    }
    f.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!f) {
      f.close();
      std::remove(tmp.c_str());
      return;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) std::remove(tmp.c_str());
}

}  // namespace

std::string ArchName(int cc_major, int cc_minor) { return absl::StrCat("sm_", cc_major, cc_minor); }

std::string NvrtcVersion() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "?";
  return absl::StrCat(major, ".", minor);
}

absl::StatusOr<std::string> CompileToCubin(const std::string& source, const std::string& arch) {
  nvrtcProgram prog;
  ARRAYD_NVRTC_RETURN_IF_ERROR(
      nvrtcCreateProgram(&prog, source.c_str(), "arrayd_kernel.cu", 0, nullptr, nullptr));
  ProgramGuard guard(prog);
  const std::string arch_opt = absl::StrCat("--gpu-architecture=", arch);
  // No fast math and no FMA contraction: results as close to NumPy's (and
  // the CPU backend's) as the device's math library allows.
  const char* options[] = {"-std=c++17", arch_opt.c_str(), "-default-device", "--fmad=false",
                           "-DARRAYD_NVRTC=1"};
  nvrtcResult compiled =
      nvrtcCompileProgram(prog, static_cast<int>(sizeof(options) / sizeof(options[0])), options);
  if (compiled != NVRTC_SUCCESS) {
    size_t log_size = 0;
    std::string log;
    if (nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 1) {
      log.resize(log_size);
      if (nvrtcGetProgramLog(prog, &log[0]) != NVRTC_SUCCESS) log.clear();
      while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    }
    return absl::InternalError(absl::StrCat("NVRTC could not compile a kernel for ", arch, ": ",
                                            nvrtcGetErrorString(compiled), "\n", log));
  }
  size_t size = 0;
  ARRAYD_NVRTC_RETURN_IF_ERROR(nvrtcGetCUBINSize(prog, &size));
  std::string cubin(size, '\0');
  ARRAYD_NVRTC_RETURN_IF_ERROR(nvrtcGetCUBIN(prog, &cubin[0]));
  return cubin;
}

std::string DefaultDiskCacheDir() {
  if (const char* dir = std::getenv("ARRAYD_KERNEL_CACHE"); dir != nullptr) return dir;
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return absl::StrCat(home, "/.cache/arrayd/kernels");
  }
  return "";
}

KernelCache::KernelCache(std::string arch, std::string disk_dir)
    : arch_(std::move(arch)), disk_dir_(std::move(disk_dir)) {}

absl::StatusOr<std::string> KernelCache::LoadOrCompile(const std::string& source) {
  // The key covers everything the CUBIN depends on.
  const std::string key = absl::StrCat(arch_, "\nnvrtc ", NvrtcVersion(), "\n", source);
  const std::string file = HexHash(key) + ".cubin";
  if (!disk_dir_.empty()) {
    std::string data, cubin;
    if (ReadFile(absl::StrCat(disk_dir_, "/", file), &data)) {
      if (ParseCacheFile(data, key, &cubin)) return cubin;
      SPDLOG_WARN("kernel disk cache: ignoring unreadable or stale {}/{}", disk_dir_, file);
    }
  }
  absl::StatusOr<std::string> cubin = CompileToCubin(source, arch_);
  if (cubin.ok() && !disk_dir_.empty()) WriteCacheFile(disk_dir_, file, key, *cubin);
  return cubin;
}

absl::StatusOr<CUfunction> KernelCache::Get(const std::string& source, const std::string& name) {
  std::shared_ptr<Entry> entry;
  {
    absl::MutexLock lock(&mu_);
    std::shared_ptr<Entry>& slot = entries_[source];
    if (slot == nullptr) slot = std::make_shared<Entry>();
    entry = slot;
  }
  absl::MutexLock lock(&entry->mu);  // held while compiling: others wait for this one
  if (!entry->done) {
    entry->done = true;
    absl::StatusOr<std::string> cubin = LoadOrCompile(source);
    if (!cubin.ok()) {
      // A failed compile stays failed: the same source would fail again.
      entry->status = cubin.status();
      SPDLOG_ERROR("kernel compile failed: {}", std::string(entry->status.message()));
      return entry->status;
    }
    ARRAYD_ASSIGN_OR_RETURN(const DriverApi* api, GetDriverApi());
    absl::Status loaded =
        ARRAYD_CUDA_STATUS_(DriverStatus, api->cuModuleLoadData(&entry->module, cubin->data()));
    if (!loaded.ok()) {
      entry->done = false;  // may be transient (out of memory): the next call retries
      return loaded;
    }
  }
  if (!entry->status.ok()) return entry->status;
  auto it = entry->functions.find(name);
  if (it != entry->functions.end()) return it->second;
  ARRAYD_ASSIGN_OR_RETURN(const DriverApi* api, GetDriverApi());
  CUfunction fn = nullptr;
  ARRAYD_CU_RETURN_IF_ERROR(api->cuModuleGetFunction(&fn, entry->module, name.c_str()));
  entry->functions.emplace(name, fn);
  return fn;
}

}  // namespace cuda
}  // namespace arrayd
