// Shared memory segments of a same-host client (/dev/shm/arrayd-*): mapped
// once per session and registered with the backend, so that bulk copies
// between a client's numpy arrays and the device skip gRPC and, on a GPU,
// run at DMA speed (the server "pins it once and moves data by offset").
#ifndef ARRAYD_SESSION_SHARED_MEMORY_H_
#define ARRAYD_SESSION_SHARED_MEMORY_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "backend/backend.h"

namespace arrayd {

// Not thread-safe: used by one session's executor.
class SharedMemoryMap {
 public:
  explicit SharedMemoryMap(Stream* stream) : stream_(stream) {}
  ~SharedMemoryMap();
  SharedMemoryMap(const SharedMemoryMap&) = delete;
  SharedMemoryMap& operator=(const SharedMemoryMap&) = delete;

  // The mapping of segment `path` holding at least `min_size` bytes,
  // mapping (or re-mapping a grown segment) when needed. Only paths
  // /dev/shm/arrayd-* are accepted (ValueError otherwise).
  absl::StatusOr<char*> Map(const std::string& path, uint64_t min_size);

  // Forgets segment `path`: waits for the stream (no copy may still use
  // the memory), unregisters and unmaps it. A path that is not mapped is
  // fine (OK, nothing to do). An error of the stream is returned and the
  // segment stays mapped. The client may unlink the file at once: the
  // server never maps a path again unless an op names it.
  absl::Status Release(const std::string& path);

 private:
  struct Segment {
    char* data = nullptr;
    uint64_t size = 0;
    bool registered = false;
  };
  void Unmap(Segment& segment);

  Stream* stream_;
  std::map<std::string, Segment> segments_;
};

}  // namespace arrayd

#endif  // ARRAYD_SESSION_SHARED_MEMORY_H_
