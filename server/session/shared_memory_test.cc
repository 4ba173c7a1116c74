#include "session/shared_memory.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>

#include "backend/cpu/cpu_backend.h"
#include "gtest/gtest.h"
#include "session/counting_stream_testing.h"

namespace arrayd {
namespace {

class SharedMemoryMapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = "/dev/shm/arrayd-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, kSize), 0);
    ::close(fd);
  }
  void TearDown() override { ::unlink(path_.c_str()); }

  static constexpr uint64_t kSize = 1 << 16;
  std::unique_ptr<Backend> backend_ = cpu::CreateCpuBackend();
  CountingStream stream_{*backend_->CreateStream()};
  std::string path_;
};

TEST_F(SharedMemoryMapTest, MapsOnceAndRegistersOnce) {
  SharedMemoryMap map(&stream_);
  auto a = map.Map(path_, kSize);
  ASSERT_TRUE(a.ok()) << a.status();
  auto b = map.Map(path_, 100);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(stream_.registered, 1);
}

TEST_F(SharedMemoryMapTest, ReleaseUnregistersAndALaterMapSeesTheFile) {
  {
    SharedMemoryMap map(&stream_);
    auto a = map.Map(path_, kSize);
    ASSERT_TRUE(a.ok()) << a.status();
    std::memcpy(*a, "before", 7);
    ASSERT_TRUE(map.Release(path_).ok());
    EXPECT_EQ(stream_.unregistered, 1);
    EXPECT_GE(stream_.synchronized, 1);
    auto b = map.Map(path_, kSize);  // mapped afresh: the file's bytes
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_STREQ(*b, "before");
    EXPECT_EQ(stream_.registered, 2);
  }
  EXPECT_EQ(stream_.unregistered, 2);  // the destructor unmaps the rest
}

TEST_F(SharedMemoryMapTest, ReleaseOfAnUnmappedPathIsANoOp) {
  SharedMemoryMap map(&stream_);
  EXPECT_TRUE(map.Release("/dev/shm/arrayd-never-mapped").ok());
  EXPECT_TRUE(map.Release("/etc/passwd").ok());
  EXPECT_EQ(stream_.unregistered, 0);
}

TEST_F(SharedMemoryMapTest, ReleaseAfterTheClientUnlinkedTheFile) {
  SharedMemoryMap map(&stream_);
  ASSERT_TRUE(map.Map(path_, kSize).ok());
  ASSERT_EQ(::unlink(path_.c_str()), 0);  // the client removes it first
  EXPECT_TRUE(map.Release(path_).ok());
  EXPECT_FALSE(map.Map(path_, kSize).ok());  // gone: not mapped again
}

}  // namespace
}  // namespace arrayd
