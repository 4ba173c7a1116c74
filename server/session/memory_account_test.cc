#include "session/memory_account.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace arrayd {
namespace {

constexpr uint64_t kChunk = MemoryAccount::kChunk;

TEST(MemoryAccountTest, EachLimitHolds) {
  auto server = std::make_shared<MemoryAccount>("the server's memory cap", 100 * kChunk);
  auto tenant = std::make_shared<MemoryAccount>("tenant 't''s quota", 60 * kChunk, server);
  auto a = std::make_shared<MemoryAccount>("the session's quota", 50 * kChunk, tenant);
  auto b = std::make_shared<MemoryAccount>("the session's quota", 0, tenant);
  EXPECT_TRUE(a->Charge(40 * kChunk).ok());
  absl::Status over = a->Charge(11 * kChunk);
  EXPECT_EQ(over.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(over.message().find("the session's quota"), absl::string_view::npos);
  over = b->Charge(30 * kChunk + 5);  // 70 in the tenant
  EXPECT_NE(over.message().find("tenant 't''s quota"), absl::string_view::npos);
  // The message names the allocation, not the chunk asked of the tenant.
  EXPECT_NE(over.message().find(absl::StrCat("allocating ", 30 * kChunk + 5, " bytes")),
            absl::string_view::npos)
      << over;
  EXPECT_TRUE(b->Charge(19 * kChunk).ok());
  EXPECT_EQ(a->used() + b->used(), 59 * kChunk);
  EXPECT_LE(tenant->used(), 60 * kChunk);
  a->Release(40 * kChunk);
  EXPECT_TRUE(b->Charge(30 * kChunk).ok());  // a's bytes came back to the tenant
}

TEST(MemoryAccountTest, ParentsAreChargedInChunksAndGetEverythingBack) {
  auto tenant = std::make_shared<MemoryAccount>("tenant", 0);
  {
    auto session = std::make_shared<MemoryAccount>("session", 0, tenant);
    for (int i = 0; i < 1000; ++i) ASSERT_TRUE(session->Charge(4096).ok());
    EXPECT_EQ(session->used(), 1000u * 4096);
    // Ahead by less than a chunk of credit.
    EXPECT_GE(tenant->used(), session->used());
    EXPECT_LE(tenant->used(), session->used() + 2 * kChunk);
    for (int i = 0; i < 1000; ++i) session->Release(4096);
    EXPECT_EQ(session->used(), 0u);
    EXPECT_LE(tenant->used(), 2 * kChunk);
  }
  EXPECT_EQ(tenant->used(), 0u);  // the credit returns with the account
}

TEST(MemoryAccountTest, NearTheParentsLimitOnlyWhatIsNeeded) {
  auto tenant = std::make_shared<MemoryAccount>("tenant", kChunk / 2);
  auto session = std::make_shared<MemoryAccount>("session", 0, tenant);
  EXPECT_TRUE(session->Charge(kChunk / 4).ok());  // a whole chunk would not fit
  EXPECT_TRUE(session->Charge(kChunk / 4).ok());
  EXPECT_FALSE(session->Charge(1).ok());
  EXPECT_EQ(session->used(), kChunk / 2);
}

}  // namespace
}  // namespace arrayd
