#include "session/shared_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/status.h"

namespace arrayd {

SharedMemoryMap::~SharedMemoryMap() {
  absl::MutexLock lock(&mu_);
  for (auto& [name, segment] : segments_) Close(segment);
}

void SharedMemoryMap::Close(Segment& segment) {
  if (segment.data != nullptr) {
    if (segment.registered) stream_->UnregisterHostMemory(segment.data);
    ::munmap(segment.data, segment.size);
  }
  if (segment.fd >= 0) ::close(segment.fd);
  segment = Segment();
}

absl::Status SharedMemoryMap::Attach(const std::string& name, int fd, uint64_t max_bytes) {
  Segment segment;
  segment.fd = fd;
  auto refuse = [&](std::string why) {
    Close(segment);
    return ValueError(absl::StrCat("shared memory segment '", name, "': ", why));
  };
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return refuse("not a regular file");
  const int seals = ::fcntl(fd, F_GET_SEALS);
  if (seals < 0 || (seals & F_SEAL_SHRINK) == 0) {
    return refuse("must be a memfd sealed against shrinking (F_SEAL_SHRINK)");
  }
  segment.size = static_cast<uint64_t>(st.st_size);
  if (segment.size > max_bytes) {
    return refuse(absl::StrCat(segment.size, " bytes, more than the limit of ", max_bytes));
  }
  absl::MutexLock lock(&mu_);
  if (segments_.count(name) > 0) return refuse("the name is in use");
  if (segments_.size() >= kMaxSegments) {
    return refuse(absl::StrCat("a session holds at most ", kMaxSegments, " segments"));
  }
  segments_.emplace(name, segment);
  return absl::OkStatus();
}

absl::StatusOr<char*> SharedMemoryMap::Map(const std::string& name, uint64_t min_size) {
  absl::MutexLock lock(&mu_);
  auto it = segments_.find(name);
  if (it == segments_.end()) {
    return ValueError(absl::StrCat("no shared memory segment '", name,
                                   "' is attached to this session (segments come as file "
                                   "descriptors over the same-host socket)"));
  }
  Segment& segment = it->second;
  if (segment.size < min_size) {
    return ValueError(absl::StrCat("shared memory segment '", name, "' holds ", segment.size,
                                   " bytes, fewer than the ", min_size, " needed"));
  }
  if (segment.data == nullptr && segment.size > 0) {
    // The seal keeps every page of this size: the mapping cannot fault.
    void* data =
        ::mmap(nullptr, segment.size, PROT_READ | PROT_WRITE, MAP_SHARED, segment.fd, 0);
    if (data == MAP_FAILED) {
      return ValueError(absl::StrCat("cannot map shared memory segment '", name,
                                     "': ", std::strerror(errno)));
    }
    ::close(segment.fd);
    segment.fd = -1;
    segment.data = static_cast<char*>(data);
    // Pinning is an optimization: a backend that cannot still copies.
    segment.registered = stream_->RegisterHostMemory(data, segment.size).ok();
  }
  return segment.data;
}

absl::Status SharedMemoryMap::Release(const std::string& name) {
  {
    absl::MutexLock lock(&mu_);
    if (segments_.count(name) == 0) return absl::OkStatus();
  }
  ARRAYD_RETURN_IF_ERROR(stream_->Synchronize());
  absl::MutexLock lock(&mu_);
  auto it = segments_.find(name);
  if (it == segments_.end()) return absl::OkStatus();
  Close(it->second);
  segments_.erase(it);
  return absl::OkStatus();
}

}  // namespace arrayd
