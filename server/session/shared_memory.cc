#include "session/shared_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status.h"

namespace arrayd {

SharedMemoryMap::~SharedMemoryMap() {
  for (auto& [path, segment] : segments_) Unmap(segment);
}

void SharedMemoryMap::Unmap(Segment& segment) {
  if (segment.data == nullptr) return;
  if (segment.registered) stream_->UnregisterHostMemory(segment.data);
  ::munmap(segment.data, segment.size);
  segment = Segment();
}

absl::Status SharedMemoryMap::Release(const std::string& path) {
  auto it = segments_.find(path);
  if (it == segments_.end()) return absl::OkStatus();
  ARRAYD_RETURN_IF_ERROR(stream_->Synchronize());
  Unmap(it->second);
  segments_.erase(it);
  return absl::OkStatus();
}

absl::StatusOr<char*> SharedMemoryMap::Map(const std::string& path, uint64_t min_size) {
  Segment& segment = segments_[path];
  if (segment.data != nullptr && segment.size >= min_size) return segment.data;
  if (!absl::StartsWith(path, "/dev/shm/arrayd-") || absl::StrContains(path, "/..") ||
      absl::StrContains(path.substr(9), "/")) {
    return ValueError(absl::StrCat("shared memory segment '", path,
                                   "' is not a /dev/shm/arrayd-* file"));
  }
  Unmap(segment);
  int fd = ::open(path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    return ValueError(absl::StrCat("cannot open shared memory '", path, "': ", std::strerror(errno)));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<uint64_t>(st.st_size) < min_size) {
    ::close(fd);
    return ValueError(absl::StrCat("shared memory '", path, "' is smaller than ", min_size,
                                   " bytes"));
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  void* data = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (data == MAP_FAILED) {
    return absl::InternalError(absl::StrCat("mmap of '", path, "': ", std::strerror(errno)));
  }
  segment.data = static_cast<char*>(data);
  segment.size = size;
  // Pinning is an optimization: a backend that cannot still copies.
  segment.registered = stream_->RegisterHostMemory(data, size).ok();
  return segment.data;
}

}  // namespace arrayd
