// The CPU backend's host memory: each stream keeps its freed large blocks
// for its own next allocations of the same size class, and gives them back
// on FreeCachedBlocks; small blocks and other streams are not served from
// them.
#include <cstdint>
#include <memory>
#include <vector>

#include "backend/cpu/cpu_backend.h"
#include "gtest/gtest.h"

namespace arrayd {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

TEST(CpuMemoryTest, FreedLargeBlocksServeTheSameStream) {
  std::unique_ptr<Backend> backend = cpu::CreateCpuBackend(uint64_t{1} << 30);
  std::unique_ptr<Stream> stream = *backend->CreateStream();
  std::unique_ptr<Stream> other = *backend->CreateStream();
  void* first = nullptr;
  {
    std::shared_ptr<Buffer> b = *stream->Allocate(4 * kMiB);
    first = b->data();
  }
  uint64_t blocks = 0, bytes = 0, in_use = 0, cached = 0;
  stream->CachedBlocks(&blocks, &bytes);
  EXPECT_EQ(blocks, 1u);
  EXPECT_GE(bytes, 4 * kMiB);
  backend->PoolBytes(&in_use, &cached);
  EXPECT_EQ(in_use, 0u);
  EXPECT_EQ(cached, bytes);

  // Another stream (another session) never gets the block.
  std::shared_ptr<Buffer> theirs = *other->Allocate(4 * kMiB);
  EXPECT_NE(theirs->data(), first);
  // The same size class (4 MiB - 1000 rounds up to 4 MiB) reuses it.
  std::shared_ptr<Buffer> again = *stream->Allocate(4 * kMiB - 1000);
  EXPECT_EQ(again->data(), first);
  EXPECT_EQ(again->nbytes(), 4 * kMiB - 1000);
  again.reset();

  ASSERT_TRUE(stream->FreeCachedBlocks().ok());
  stream->CachedBlocks(&blocks, &bytes);
  EXPECT_EQ(blocks, 0u);
  EXPECT_EQ(bytes, 0u);
}

TEST(CpuMemoryTest, TheNewestBlockPushesOutOlderOnesOverTheStreamsCap) {
  // A stream keeps at most 1 GiB: a loop's 640 MiB temporary, freed
  // after an earlier 768 MiB one, takes its place (untouched pages: cheap).
  std::unique_ptr<Backend> backend = cpu::CreateCpuBackend(uint64_t{16} << 30);
  std::unique_ptr<Stream> stream = *backend->CreateStream();
  { std::shared_ptr<Buffer> b = *stream->Allocate(768 * kMiB); }
  void* newest = nullptr;
  {
    std::shared_ptr<Buffer> b = *stream->Allocate(640 * kMiB);
    newest = b->data();
  }
  uint64_t blocks = 0, bytes = 0;
  stream->CachedBlocks(&blocks, &bytes);
  EXPECT_EQ(blocks, 1u);
  EXPECT_EQ(bytes, 640 * kMiB);
  std::shared_ptr<Buffer> again = *stream->Allocate(640 * kMiB);
  EXPECT_EQ(again->data(), newest);
}

TEST(CpuMemoryTest, SmallBlocksAreNotCached) {
  std::unique_ptr<Backend> backend = cpu::CreateCpuBackend(uint64_t{1} << 30);
  std::unique_ptr<Stream> stream = *backend->CreateStream();
  { std::shared_ptr<Buffer> b = *stream->Allocate(4096); }
  uint64_t blocks = 1, bytes = 1;
  stream->CachedBlocks(&blocks, &bytes);
  EXPECT_EQ(blocks, 0u);
  EXPECT_EQ(bytes, 0u);
}

TEST(CpuMemoryTest, BuffersOutliveTheirStream) {
  std::unique_ptr<Backend> backend = cpu::CreateCpuBackend(uint64_t{1} << 30);
  std::unique_ptr<Stream> stream = *backend->CreateStream();
  std::shared_ptr<Buffer> b = *stream->Allocate(2 * kMiB);
  stream.reset();
  static_cast<char*>(b->data())[2 * kMiB - 1] = 1;
  b.reset();  // the pool goes with its last buffer
  uint64_t in_use = 1, cached = 1;
  backend->PoolBytes(&in_use, &cached);
  EXPECT_EQ(in_use, 0u);
  EXPECT_EQ(cached, 0u);
}

TEST(CpuMemoryTest, AllStreamsTogetherCacheASixteenthOfTheLimit) {
  // 64 MiB: at most 4 MiB cached in all, whichever streams free.
  std::unique_ptr<Backend> backend = cpu::CreateCpuBackend(64 * kMiB);
  std::vector<std::unique_ptr<Stream>> streams;
  std::vector<std::shared_ptr<Buffer>> buffers;
  for (int i = 0; i < 4; ++i) {
    streams.push_back(*backend->CreateStream());
    for (int k = 0; k < 2; ++k) buffers.push_back(*streams.back()->Allocate(kMiB));
  }
  buffers.clear();  // 8 MiB freed
  uint64_t in_use = 1, cached = 0;
  backend->PoolBytes(&in_use, &cached);
  EXPECT_EQ(in_use, 0u);
  EXPECT_EQ(cached, 4 * kMiB);
  uint64_t sum = 0;
  for (auto& s : streams) {
    uint64_t blocks = 0, bytes = 0;
    s->CachedBlocks(&blocks, &bytes);
    sum += bytes;
  }
  EXPECT_EQ(sum, cached);
  // What the streams give back, another may keep, up to the cap.
  for (auto& s : streams) ASSERT_TRUE(s->FreeCachedBlocks().ok());
  { std::shared_ptr<Buffer> b = *streams[3]->Allocate(4 * kMiB); }
  { std::shared_ptr<Buffer> b = *streams[2]->Allocate(kMiB); }
  backend->PoolBytes(&in_use, &cached);
  EXPECT_EQ(cached, 4 * kMiB);
  uint64_t blocks = 0, bytes = 0;
  streams[2]->CachedBlocks(&blocks, &bytes);
  EXPECT_EQ(bytes, 0u);
}

}  // namespace
}  // namespace arrayd
