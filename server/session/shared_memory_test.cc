#include "session/shared_memory.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>

#include "backend/cpu/cpu_backend.h"
#include "gtest/gtest.h"

namespace arrayd {
namespace {

// The CPU stream, counting the pin/unpin hints that a GPU stream acts on.
class CountingStream : public Stream {
 public:
  explicit CountingStream(std::unique_ptr<Stream> base) : base_(std::move(base)) {}
  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(size_t n) override {
    return base_->Allocate(n);
  }
  absl::Status CopyFromHost(const void* src, const View& dst) override {
    return base_->CopyFromHost(src, dst);
  }
  absl::Status CopyToHost(const View& src, void* dst) override {
    return base_->CopyToHost(src, dst);
  }
  absl::Status Fill(const View& out, const Scalar& value) override {
    return base_->Fill(out, value);
  }
  absl::Status Iota(const View& out, const Scalar& start, const Scalar& step) override {
    return base_->Iota(out, start, step);
  }
  absl::Status Copy(const View& src, const View& dst) override { return base_->Copy(src, dst); }
  absl::Status Unary(kernels::UnaryOp op, const View& in, const View& out) override {
    return base_->Unary(op, in, out);
  }
  absl::Status Binary(kernels::BinaryOp op, const View& a, const View& b,
                      const View& out) override {
    return base_->Binary(op, a, b, out);
  }
  absl::Status Reduce(kernels::ReduceOp op, const View& in, absl::Span<const int> axes,
                      const View& out) override {
    return base_->Reduce(op, in, axes, out);
  }
  absl::Status ArgReduce(kernels::ArgReduceOp op, const View& in, int axis,
                         const View& out) override {
    return base_->ArgReduce(op, in, axis, out);
  }
  absl::Status RegisterHostMemory(void* /*data*/, size_t /*n*/) override {
    ++registered;
    return absl::OkStatus();
  }
  void UnregisterHostMemory(void* /*data*/) override { ++unregistered; }
  absl::Status Synchronize() override {
    ++synchronized;
    return base_->Synchronize();
  }

  int registered = 0;
  int unregistered = 0;
  int synchronized = 0;

 private:
  std::unique_ptr<Stream> base_;
};

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
