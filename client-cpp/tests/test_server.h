// An in-process arrayd server (CPU backend) for the client's tests. Kept in
// its own translation unit: the server's arrayd::DType and the client's
// arrayd::DType are different types and cannot meet in one file.
#ifndef ARRAYD_CLIENT_TESTS_TEST_SERVER_H_
#define ARRAYD_CLIENT_TESTS_TEST_SERVER_H_

#include <memory>
#include <string>

namespace arrayd_test {

class TestServer {
 public:
  // Listens on a fresh unix socket in /tmp; nullptr when the server cannot
  // start. With `token`, the server requires it (tenant "test").
  static std::unique_ptr<TestServer> Start(const std::string& token = "");
  ~TestServer();
  // "unix:/tmp/...".
  const std::string& address() const;

 private:
  struct Impl;
  explicit TestServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace arrayd_test

#endif  // ARRAYD_CLIENT_TESTS_TEST_SERVER_H_
