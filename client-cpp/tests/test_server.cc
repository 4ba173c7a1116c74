#include "test_server.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "backend/cpu/cpu_backend.h"
#include "grpcpp/grpcpp.h"
#include "ops/registry.h"
#include "rpc/service.h"

namespace arrayd_test {

struct TestServer::Impl {
  std::string path;
  std::string address;
  std::unique_ptr<arrayd::Backend> backend;
  std::unique_ptr<arrayd::ArraydService> service;
  std::unique_ptr<grpc::Server> server;
};

std::unique_ptr<TestServer> TestServer::Start(const std::string& token) {
  static std::atomic<int> counter{0};
  auto impl = std::make_unique<Impl>();
  impl->path = absl::StrCat("/tmp/arrayd-client-test-", getpid(), "-", counter++, ".sock");
  std::remove(impl->path.c_str());
  impl->address = "unix:" + impl->path;
  impl->backend = arrayd::cpu::CreateCpuBackend();
  arrayd::ServiceOptions options;
  if (!token.empty()) options.tokens[token] = "test";
  impl->service = std::make_unique<arrayd::ArraydService>(
      impl->backend.get(), &arrayd::DefaultRegistry(), options);
  grpc::ServerBuilder builder;
  builder.AddListeningPort(impl->address, grpc::InsecureServerCredentials());
  builder.RegisterService(impl->service.get());
  builder.SetMaxReceiveMessageSize(256 << 20);
  builder.SetMaxSendMessageSize(256 << 20);
  impl->server = builder.BuildAndStart();
  if (!impl->server) return nullptr;
  return std::unique_ptr<TestServer>(new TestServer(std::move(impl)));
}

TestServer::TestServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

TestServer::~TestServer() {
  impl_->server->Shutdown();
  impl_->server->Wait();
  std::remove(impl_->path.c_str());
}

const std::string& TestServer::address() const { return impl_->address; }

}  // namespace arrayd_test
