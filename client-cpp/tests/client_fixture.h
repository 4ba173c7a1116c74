// The C++ client's test fixture: one in-process server (CPU backend) per
// test suite, a fresh Client (session) per test, and Values<T>() to read an
// Array back.
#ifndef ARRAYD_CLIENT_TESTS_CLIENT_FIXTURE_H_
#define ARRAYD_CLIENT_TESTS_CLIENT_FIXTURE_H_

#include <memory>
#include <vector>

#include "arrayd/client.h"
#include "gtest/gtest.h"
#include "test_server.h"

namespace arrayd {

class SessionTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = arrayd_test::TestServer::Start().release();
    ASSERT_NE(server_, nullptr);
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    auto client = Client::Connect(server_->address(), "client_test");
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
  }

  static inline arrayd_test::TestServer* server_ = nullptr;
  std::unique_ptr<Client> client_;
};

template <typename T>
std::vector<T> Values(const Array& a) {
  absl::StatusOr<std::vector<T>> v = a.ToVector<T>();
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : std::vector<T>();
}

}  // namespace arrayd

#endif  // ARRAYD_CLIENT_TESTS_CLIENT_FIXTURE_H_
