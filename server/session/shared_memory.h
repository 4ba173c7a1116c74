// Shared memory segments of a same-host client: memfds it hands over on the
// same-host socket (SCM_RIGHTS), mapped once per session and registered
// with the backend, so that bulk copies between a client's numpy arrays and
// the device skip gRPC and, on a GPU, run at DMA speed (the server "pins it
// once and moves data by offset").
//
// Only descriptors the client sent are ever mapped (no path is opened: a
// session cannot name another's memory, whatever its user), and only
// memfds sealed against shrinking (F_SEAL_SHRINK): a client that truncates
// its segment cannot make the server's copy fault (SIGBUS), nor can a full
// /dev/shm, which a memfd does not use.
#ifndef ARRAYD_SESSION_SHARED_MEMORY_H_
#define ARRAYD_SESSION_SHARED_MEMORY_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "backend/backend.h"

namespace arrayd {

// Thread-safe: Attach runs on the connection's reader, Map and Release on
// the session's executor.
class SharedMemoryMap {
 public:
  // A session holds at most this many segments (each one a descriptor).
  static constexpr size_t kMaxSegments = 64;

  explicit SharedMemoryMap(Stream* stream) : stream_(stream) {}
  ~SharedMemoryMap();
  SharedMemoryMap(const SharedMemoryMap&) = delete;
  SharedMemoryMap& operator=(const SharedMemoryMap&) = delete;

  // Takes `fd`, a segment the client sent under `name`, and checks it: a
  // regular file sealed against shrinking, no larger than `max_bytes`. On
  // an error the descriptor is closed and nothing is attached (ValueError:
  // a name in use, too many segments, a file that is not such a memfd).
  absl::Status Attach(const std::string& name, int fd, uint64_t max_bytes);

  // The mapping of segment `name`, which must hold at least `min_size`
  // bytes (mapped and pinned on first use). ValueError for a name that is
  // not attached or a segment too small.
  absl::StatusOr<char*> Map(const std::string& name, uint64_t min_size);

  // Forgets segment `name`: waits for the stream (no copy may still use
  // the memory), unregisters, unmaps and closes it. A name that is not
  // attached is fine (OK, nothing to do). An error of the stream is
  // returned and the segment stays.
  absl::Status Release(const std::string& name);

 private:
  struct Segment {
    int fd = -1;
    uint64_t size = 0;
    char* data = nullptr;
    bool registered = false;
  };
  void Close(Segment& segment);

  Stream* stream_;
  absl::Mutex mu_;
  std::map<std::string, Segment> segments_ ABSL_GUARDED_BY(mu_);
};

}  // namespace arrayd

#endif  // ARRAYD_SESSION_SHARED_MEMORY_H_
