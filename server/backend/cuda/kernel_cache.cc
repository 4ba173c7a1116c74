#include "backend/cuda/kernel_cache.h"

#include <fcntl.h>
#include <nvrtc.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "backend/cuda/cuda_status.h"
#include "backend/cuda/driver_api.h"
#include "common/metrics.h"
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

// Held while one server process compiles a kernel for the disk cache:
// another process that misses the same file waits here, then finds it on
// disk, instead of compiling it too (test workers, each with a server,
// compiled every kernel once each: 12 compiles of a second or more on a
// cold cache). flock(2) is released when its holder exits, so a crashed
// compile blocks no one; without a lock file (read-only cache) it is a
// no-op. The lock files (empty) stay: removing one while another process
// waits on it would let a third take a fresh one beside it.
class DiskCompileLock {
 public:
  DiskCompileLock(const std::string& dir, const std::string& name) {
    if (dir.empty()) return;
    MakeDirs(dir);
    fd_ = open(absl::StrCat(dir, "/", name, ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ >= 0) {
      while (flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
      }
    }
  }
  ~DiskCompileLock() {
    if (fd_ >= 0) close(fd_);  // releases the lock
  }
  DiskCompileLock(const DiskCompileLock&) = delete;
  DiskCompileLock& operator=(const DiskCompileLock&) = delete;

 private:
  int fd_ = -1;
};

// NVRTC's log of `prog`, without its trailing NULs and newlines.
std::string ProgramLog(nvrtcProgram prog) {
  size_t log_size = 0;
  std::string log;
  if (nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 1) {
    log.resize(log_size);
    if (nvrtcGetProgramLog(prog, &log[0]) != NVRTC_SUCCESS) log.clear();
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  }
  return log;
}

// A user module in the disk cache: the symbols of its name expressions,
// NVRTC's log, then its image (CUBIN, or NUL-terminated PTX for a virtual
// -arch).
void PutString(std::string* out, const std::string& s) {
  uint32_t n = static_cast<uint32_t>(s.size());
  out->append(reinterpret_cast<const char*>(&n), 4);
  *out += s;
}
bool GetString(const std::string& in, size_t* pos, std::string* s) {
  uint32_t n = 0;
  if (in.size() < *pos + 4) return false;
  std::memcpy(&n, in.data() + *pos, 4);
  *pos += 4;
  if (in.size() < *pos + n) return false;
  *s = in.substr(*pos, n);
  *pos += n;
  return true;
}
std::string PackModule(const CompiledModule& m) {
  std::string out;
  PutString(&out, std::to_string(m.lowered.size()));
  for (const auto& [expr, symbol] : m.lowered) {
    PutString(&out, expr);
    PutString(&out, symbol);
  }
  PutString(&out, m.log);
  out += m.image;
  return out;
}
bool UnpackModule(const std::string& blob, CompiledModule* m) {
  size_t pos = 0;
  std::string count;
  if (!GetString(blob, &pos, &count)) return false;
  const long n = std::strtol(count.c_str(), nullptr, 10);
  for (long i = 0; i < n; ++i) {
    std::string expr, symbol;
    if (!GetString(blob, &pos, &expr) || !GetString(blob, &pos, &symbol)) return false;
    m->lowered[expr] = symbol;
  }
  if (!GetString(blob, &pos, &m->log)) return false;
  m->image = blob.substr(pos);
  return !m->image.empty();
}

// A compile for the metrics: one more, and its time.
void CountCompile(std::chrono::steady_clock::time_point start) {
  Metrics().kernel_compiles.fetch_add(1);
  Metrics().kernel_compile_ns.fetch_add(static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count()));
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
    return absl::InternalError(absl::StrCat("NVRTC could not compile a kernel for ", arch, ": ",
                                            nvrtcGetErrorString(compiled), "\n", ProgramLog(prog)));
  }
  size_t size = 0;
  ARRAYD_NVRTC_RETURN_IF_ERROR(nvrtcGetCUBINSize(prog, &size));
  std::string cubin(size, '\0');
  ARRAYD_NVRTC_RETURN_IF_ERROR(nvrtcGetCUBIN(prog, &cubin[0]));
  return cubin;
}

namespace {

// The CUDA toolkit's folder, as CuPy finds it: $ARRAYD_CUDA_INCLUDE's parent,
// $CUDA_PATH, $CUDA_HOME, /usr/local/cuda; the first whose include/ has
// cuda_fp16.h; empty when none has.
std::string CudaToolkitDir() {
  std::vector<std::string> dirs;
  if (const char* d = std::getenv("ARRAYD_CUDA_INCLUDE")) dirs.push_back(absl::StrCat(d, "/.."));
  for (const char* var : {"CUDA_PATH", "CUDA_HOME"}) {
    if (const char* d = std::getenv(var)) dirs.emplace_back(d);
  }
  dirs.emplace_back("/usr/local/cuda");
  for (const std::string& d : dirs) {
    if (access(absl::StrCat(d, "/include/cuda_fp16.h").c_str(), R_OK) == 0) return d;
  }
  return "";
}

// The include folders user code compiles with: the toolkit's headers
// (cuda_fp16.h, cuComplex.h, ...) and CCCL's (cub/, thrust/, cuda/std/),
// which CUDA 13 keeps in include/cccl.
std::vector<std::string> UserIncludeDirs() {
  const std::string toolkit = CudaToolkitDir();
  if (toolkit.empty()) return {};
  std::vector<std::string> dirs = {absl::StrCat(toolkit, "/include")};
  const std::string cccl = absl::StrCat(toolkit, "/include/cccl");
  if (access(absl::StrCat(cccl, "/cub").c_str(), R_OK) == 0) dirs.push_back(cccl);
  return dirs;
}

// Relocatable device code (-dc, -rdc=true): it needs a link step.
bool IsRelocatable(const std::vector<std::string>& options) {
  for (const std::string& o : options) {
    if (o == "-dc" || o == "--device-c" || o == "-rdc=true" ||
        o == "--relocatable-device-code=true")
      return true;
  }
  return false;
}

// Links relocatable CUBIN `image` with the toolkit's device runtime
// (libcudadevrt.a: device-side launches), giving a loadable CUBIN.
absl::StatusOr<std::string> LinkWithDeviceRuntime(const std::string& image) {
  const std::string toolkit = CudaToolkitDir();
  std::string devrt;
  for (const char* lib : {"/lib64/libcudadevrt.a", "/lib/libcudadevrt.a",
                          "/targets/x86_64-linux/lib/libcudadevrt.a"}) {
    if (!toolkit.empty() && access(absl::StrCat(toolkit, lib).c_str(), R_OK) == 0) {
      devrt = absl::StrCat(toolkit, lib);
      break;
    }
  }
  if (devrt.empty()) {
    return CompileError(
        "relocatable device code (-dc, -rdc=true) is linked with the CUDA toolkit's "
        "libcudadevrt.a, and this server's machine has none (set CUDA_PATH to the toolkit)");
  }
  ARRAYD_ASSIGN_OR_RETURN(const DriverApi* api, GetDriverApi());
  char error_log[8192] = {0};
  CUjit_option keys[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {error_log, reinterpret_cast<void*>(static_cast<uintptr_t>(sizeof(error_log)))};
  CUlinkState link = nullptr;
  ARRAYD_CU_RETURN_IF_ERROR(api->cuLinkCreate(2, keys, values, &link));
  std::string out;
  CUresult err = api->cuLinkAddData(link, CU_JIT_INPUT_CUBIN, const_cast<char*>(image.data()),
                                    image.size(), "kernel.cubin", 0, nullptr, nullptr);
  if (err == CUDA_SUCCESS) {
    err = api->cuLinkAddFile(link, CU_JIT_INPUT_LIBRARY, devrt.c_str(), 0, nullptr, nullptr);
  }
  void* cubin = nullptr;
  size_t size = 0;
  if (err == CUDA_SUCCESS) err = api->cuLinkComplete(link, &cubin, &size);
  if (err == CUDA_SUCCESS) out.assign(static_cast<const char*>(cubin), size);
  api->cuLinkDestroy(link);  // frees `cubin` too: copied above
  if (err != CUDA_SUCCESS) {
    const char* name = "CUDA_ERROR_?";
    api->cuGetErrorName(err, &name);
    return CompileError(
        absl::StrCat("linking with libcudadevrt.a failed: ", name, "\n", error_log));
  }
  return out;
}

}  // namespace

absl::StatusOr<CompiledModule> CompileUserModule(const KernelModuleSpec& spec,
                                                 const std::string& arch) {
  nvrtcProgram prog;
  ARRAYD_NVRTC_RETURN_IF_ERROR(
      nvrtcCreateProgram(&prog, spec.source.c_str(), "kernel.cu", 0, nullptr, nullptr));
  ProgramGuard guard(prog);
  for (const std::string& e : spec.name_expressions) {
    ARRAYD_NVRTC_RETURN_IF_ERROR(nvrtcAddNameExpression(prog, e.c_str()));
  }
  // The user's options as given; the device's architecture unless they
  // name one (a virtual one, compute_XX, gives PTX for the driver to JIT).
  std::vector<std::string> options = spec.options;
  const bool has_arch = std::any_of(options.begin(), options.end(), [](const std::string& o) {
    return absl::StartsWith(o, "-arch") || absl::StartsWith(o, "--gpu-architecture");
  });
  if (!has_arch) options.push_back(absl::StrCat("--gpu-architecture=", arch));
  static const std::vector<std::string> includes = UserIncludeDirs();
  for (const std::string& dir : includes) options.push_back(absl::StrCat("--include-path=", dir));
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());
  nvrtcResult compiled = nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
  if (compiled != NVRTC_SUCCESS) {
    return CompileError(absl::StrCat(nvrtcGetErrorString(compiled), "\n", ProgramLog(prog)));
  }
  CompiledModule m;
  m.log = ProgramLog(prog);
  for (const std::string& e : spec.name_expressions) {
    const char* symbol = nullptr;
    ARRAYD_NVRTC_RETURN_IF_ERROR(nvrtcGetLoweredName(prog, e.c_str(), &symbol));
    m.lowered[e] = symbol;
  }
  size_t size = 0;
  if (nvrtcGetCUBINSize(prog, &size) == NVRTC_SUCCESS && size > 0) {
    m.image.resize(size);
    ARRAYD_NVRTC_RETURN_IF_ERROR(nvrtcGetCUBIN(prog, &m.image[0]));
    if (IsRelocatable(spec.options)) {
      ARRAYD_ASSIGN_OR_RETURN(m.image, LinkWithDeviceRuntime(m.image));
    }
    return m;
  }
  ARRAYD_NVRTC_RETURN_IF_ERROR(nvrtcGetPTXSize(prog, &size));
  m.image.resize(size);  // NUL-terminated, as cuModuleLoadData wants PTX
  ARRAYD_NVRTC_RETURN_IF_ERROR(nvrtcGetPTX(prog, &m.image[0]));
  return m;
}

absl::StatusOr<CUfunction> CudaModule::Function(const std::string& name) {
  absl::MutexLock lock(&mu_);
  auto it = functions_.find(name);
  if (it != functions_.end()) return it->second;
  auto lowered = lowered_.find(name);
  const std::string& symbol = lowered != lowered_.end() ? lowered->second : name;
  ARRAYD_ASSIGN_OR_RETURN(const DriverApi* api, GetDriverApi());
  CUfunction fn = nullptr;
  CUresult err = api->cuModuleGetFunction(&fn, module_, symbol.c_str());
  if (err == CUDA_ERROR_NOT_FOUND) {
    return absl::NotFoundError(absl::StrCat(
        "CUDA_ERROR_NOT_FOUND: named symbol not found: the module has no kernel '", name,
        "' (a C++ function needs extern \"C\", a template its name_expressions)"));
  }
  ARRAYD_CU_RETURN_IF_ERROR(err);
  functions_.emplace(name, fn);
  return fn;
}

absl::StatusOr<std::shared_ptr<CudaModule>> KernelCache::GetUserModule(const KernelModuleSpec& spec,
                                                                       ModuleOrigin* origin) {
  // The key covers everything the image depends on (a given image: itself;
  // the disk cache is for what was compiled here).
  const bool given = !spec.image.empty();
  const std::string key =
      given ? absl::StrCat("user image\n", spec.image)
            : absl::StrCat("user module 2\n", arch_, "\nnvrtc ", NvrtcVersion(), "\noptions ",
                           absl::StrJoin(spec.options, "\x1f"), "\nnames ",
                           absl::StrJoin(spec.name_expressions, "\x1f"), "\n", spec.source);
  const std::string hash = HexHash(key);
  std::shared_ptr<UserEntry> entry;
  {
    absl::MutexLock lock(&mu_);
    std::shared_ptr<UserEntry>& slot = user_entries_[key];
    if (slot == nullptr) slot = std::make_shared<UserEntry>();
    entry = slot;
  }
  absl::MutexLock lock(&entry->mu);  // held while compiling: others wait for this one
  if (entry->done) {
    *origin = ModuleOrigin::kMemoryCache;
    Metrics().kernel_memory_hits.fetch_add(1);
    if (entry->status.ok()) spdlog::info("user kernel module {}: memory cache hit", hash);
    if (!entry->status.ok()) return entry->status;
    return entry->module;
  }
  const auto start = std::chrono::steady_clock::now();
  CompiledModule m;
  std::string data, blob;
  const std::string path = absl::StrCat(disk_dir_, "/", hash, ".cubin");
  *origin = ModuleOrigin::kCompiled;
  std::optional<DiskCompileLock> disk_lock;  // held through the compile and the write
  if (given) {
    m.image = spec.image;
    // PTX is text that cuModuleLoadData reads up to its NUL.
    if (m.image.back() != '\0' && m.image.find('\0') == std::string::npos) m.image.push_back('\0');
  } else {
    // On disk, before the compile lock and under it, as LoadOrCompile.
    auto from_disk = [&] {
      m = CompiledModule();
      return !disk_dir_.empty() && ReadFile(path, &data) && ParseCacheFile(data, key, &blob) &&
             UnpackModule(blob, &m);
    };
    if (!from_disk()) disk_lock.emplace(disk_dir_, hash + ".cubin");
    if (!disk_lock.has_value() || from_disk()) {
      *origin = ModuleOrigin::kDiskCache;
      Metrics().kernel_disk_hits.fetch_add(1);
    }
  }
  if (*origin == ModuleOrigin::kCompiled && !given) {
    m = CompiledModule();
    absl::StatusOr<CompiledModule> compiled = CompileUserModule(spec, arch_);
    CountCompile(start);
    if (!compiled.ok()) {
      // The same source fails again: remembered in memory, not on disk.
      entry->done = true;
      entry->status = compiled.status();
      return entry->status;
    }
    m = *std::move(compiled);
    if (!disk_dir_.empty()) WriteCacheFile(disk_dir_, hash + ".cubin", key, PackModule(m));
  }
  ARRAYD_ASSIGN_OR_RETURN(const DriverApi* api, GetDriverApi());
  CUmodule module = nullptr;
  const CUresult err = api->cuModuleLoadData(&module, m.image.data());
  if (err != CUDA_SUCCESS && given) {
    // A bad file (not an image, another architecture's, newer PTX than the
    // driver's): the user's error, as CuPy's CUDADriverError names it.
    const char* name = "CUDA_ERROR_?";
    const char* text = "";
    api->cuGetErrorName(err, &name);
    api->cuGetErrorString(err, &text);
    entry->done = true;
    entry->status = absl::InvalidArgumentError(
        absl::StrCat(name, ": ", text, " (loading the module's compiled image)"));
    return entry->status;
  }
  ARRAYD_CU_RETURN_IF_ERROR(err);
  entry->module = std::make_shared<CudaModule>(module, std::move(m.lowered), std::move(m.log));
  entry->done = true;
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  spdlog::info("user kernel module {}: {} in {:.1f} ms", hash,
               given                                ? "loaded from its image"
               : *origin == ModuleOrigin::kCompiled ? "compiled"
                                                    : "disk cache hit",
               ms);
  return entry->module;
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
  // On disk: read before the lock (the common case, a hit) and again under
  // it (another server process may have compiled it meanwhile).
  auto from_disk = [&](bool warn) -> std::optional<std::string> {
    std::string data, cubin;
    if (disk_dir_.empty() || !ReadFile(absl::StrCat(disk_dir_, "/", file), &data)) return {};
    if (!ParseCacheFile(data, key, &cubin)) {
      if (warn)
        SPDLOG_WARN("kernel disk cache: ignoring unreadable or stale {}/{}", disk_dir_, file);
      return {};
    }
    Metrics().kernel_disk_hits.fetch_add(1);
    return cubin;
  };
  if (auto hit = from_disk(false)) return *std::move(hit);
  DiskCompileLock lock(disk_dir_, file);
  if (auto hit = from_disk(true)) return *std::move(hit);
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::string> cubin = CompileToCubin(source, arch_);
  CountCompile(start);
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
