#include "session/shared_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "backend/cpu/cpu_backend.h"
#include "gtest/gtest.h"
#include "session/counting_stream_testing.h"

namespace arrayd {
namespace {

constexpr uint64_t kSize = 1 << 16;
constexpr uint64_t kMaxBytes = uint64_t{1} << 40;

// A memfd of `size` bytes, sealed against shrinking when `seal`.
int Memfd(uint64_t size, bool seal = true) {
  int fd = ::memfd_create("arrayd-test", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(size)) != 0) return -1;
  if (seal && ::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) != 0) return -1;
  return fd;
}

class SharedMemoryMapTest : public ::testing::Test {
 protected:
  std::unique_ptr<Backend> backend_ = cpu::CreateCpuBackend();
  CountingStream stream_{*backend_->CreateStream()};
};

TEST_F(SharedMemoryMapTest, MapsOnceAndRegistersOnce) {
  SharedMemoryMap map(&stream_);
  ASSERT_TRUE(map.Attach("a", Memfd(kSize), kMaxBytes).ok());
  auto a = map.Map("a", kSize);
  ASSERT_TRUE(a.ok()) << a.status();
  auto b = map.Map("a", 100);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(stream_.registered, 1);
}

TEST_F(SharedMemoryMapTest, SharesTheClientsBytes) {
  SharedMemoryMap map(&stream_);
  int fd = Memfd(kSize);
  void* client = ::mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ASSERT_NE(client, MAP_FAILED);
  ASSERT_TRUE(map.Attach("a", ::dup(fd), kMaxBytes).ok());
  std::memcpy(client, "client", 7);
  auto server = map.Map("a", kSize);
  ASSERT_TRUE(server.ok());
  EXPECT_STREQ(*server, "client");
  // The seal holds: the client cannot shrink what the server maps.
  EXPECT_NE(::ftruncate(fd, 0), 0);
  ::munmap(client, kSize);
  ::close(fd);
}

TEST_F(SharedMemoryMapTest, RefusesWhatIsNotASealedMemfd) {
  SharedMemoryMap map(&stream_);
  EXPECT_EQ(map.Attach("unsealed", Memfd(kSize, false), kMaxBytes).code(),
            absl::StatusCode::kInvalidArgument);
  std::FILE* file = std::tmpfile();  // a regular file has no seals
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(map.Attach("file", ::dup(::fileno(file)), kMaxBytes).code(),
            absl::StatusCode::kInvalidArgument);
  std::fclose(file);
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  EXPECT_FALSE(map.Attach("pipe", pipe_fds[0], kMaxBytes).ok());
  ::close(pipe_fds[1]);
  EXPECT_FALSE(map.Attach("big", Memfd(kSize), kSize - 1).ok());
  EXPECT_FALSE(map.Map("unsealed", 1).ok());  // nothing was attached
  EXPECT_EQ(stream_.registered, 0);
}

TEST_F(SharedMemoryMapTest, NamesAreTheSessionsOwn) {
  SharedMemoryMap map(&stream_);
  ASSERT_TRUE(map.Attach("a", Memfd(kSize), kMaxBytes).ok());
  EXPECT_FALSE(map.Attach("a", Memfd(kSize), kMaxBytes).ok());  // in use
  // Paths mean nothing: only attached names are mapped.
  EXPECT_EQ(map.Map("/dev/shm/arrayd-other", 1).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(map.Map("a", kSize + 1).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(SharedMemoryMapTest, BoundsTheSegmentsOfASession) {
  SharedMemoryMap map(&stream_);
  for (size_t i = 0; i < SharedMemoryMap::kMaxSegments; ++i) {
    ASSERT_TRUE(map.Attach(std::to_string(i), Memfd(4096), kMaxBytes).ok());
  }
  EXPECT_FALSE(map.Attach("one more", Memfd(4096), kMaxBytes).ok());
  ASSERT_TRUE(map.Release("0").ok());
  EXPECT_TRUE(map.Attach("one more", Memfd(4096), kMaxBytes).ok());
}

TEST_F(SharedMemoryMapTest, ReleaseUnregistersAndForgets) {
  {
    SharedMemoryMap map(&stream_);
    ASSERT_TRUE(map.Attach("a", Memfd(kSize), kMaxBytes).ok());
    ASSERT_TRUE(map.Attach("b", Memfd(kSize), kMaxBytes).ok());
    ASSERT_TRUE(map.Map("a", kSize).ok());
    ASSERT_TRUE(map.Map("b", kSize).ok());
    ASSERT_TRUE(map.Release("a").ok());
    EXPECT_EQ(stream_.unregistered, 1);
    EXPECT_GE(stream_.synchronized, 1);
    EXPECT_FALSE(map.Map("a", 1).ok());
    EXPECT_TRUE(map.Release("never attached").ok());
  }
  EXPECT_EQ(stream_.unregistered, 2);  // the destructor unmaps the rest
}

}  // namespace
}  // namespace arrayd
