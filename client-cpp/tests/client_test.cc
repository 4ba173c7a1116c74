// The C++ client against a real in-process server (CPU backend). Expected
// values are NumPy 2's (computed with NumPy and written here).
#include "arrayd/client.h"

#include <cmath>
#include <complex>
#include <numeric>
#include <string>
#include <vector>

#include "arrayd/v1/arrayd.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "client_fixture.h"
#include "test_server.h"

namespace arrayd {
namespace {

using ::testing::HasSubstr;

// One server for the whole suite; a fresh client (session) per test.
using ClientTest = SessionTest;

TEST(ClientConnectTest, NothingListeningIsUnavailable) {
  auto client = Client::Connect("unix:/tmp/arrayd-client-test-nobody-here.sock");
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), absl::StatusCode::kUnavailable);
}

TEST(ClientConnectTest, AServerWithTokensAdmitsOnlyItsTokens) {
  const std::string token = "client-test-token-0123456789";
  auto server = arrayd_test::TestServer::Start(token);
  ASSERT_NE(server, nullptr);
  auto none = Client::Connect(server->address());
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), absl::StatusCode::kUnauthenticated);
  ConnectOptions wrong;
  wrong.token = "not-the-token-0123456789";
  EXPECT_EQ(Client::Connect(server->address(), wrong).status().code(),
            absl::StatusCode::kUnauthenticated);
  ConnectOptions right;
  right.token = token;
  auto client = Client::Connect(server->address(), right);
  ASSERT_TRUE(client.ok()) << client.status();
  // Large enough for the Upload and Download RPCs, which carry it too.
  std::vector<double> big(300000, 2.5);
  Array x = (*client)->FromVector(big);
  absl::StatusOr<std::vector<double>> back = x.ToVector<double>();
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, big);
}

TEST_F(ClientTest, CapabilitiesListTheOpsTheClientUses) {
  const v1::Capabilities& caps = client_->Capabilities();
  EXPECT_EQ(caps.active_backend(), "cpu");
  EXPECT_GT(caps.max_inline_bytes(), 0u);
  std::vector<std::string> names;
  for (const auto& op : caps.ops()) names.push_back(op.name());
  for (const char* op : {"add", "subtract", "multiply", "true_divide", "sum", "reshape", "astype",
                         "zeros", "ones", "full", "arange", "upload"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), op), names.end()) << op;
  }
  EXPECT_NE(client_->session_id(), 0u);
}

TEST_F(ClientTest, ExamplePipelineGivesNumpysResult) {
  // np.arange(6).reshape(2, 3).astype(np.float32).sum(axis=1) == [3, 12]
  Array x = client_->Arange(6).Reshape({2, 3}).Astype(DType::kFloat32).Sum(1);
  EXPECT_EQ(x.dtype(), DType::kFloat32);
  EXPECT_EQ(x.shape(), Shape({2}));
  EXPECT_EQ(Values<float>(x), std::vector<float>({3, 12}));
  EXPECT_TRUE(client_->Synchronize().ok());
}

TEST_F(ClientTest, CreationOps) {
  Array z = client_->Zeros({2, 2}, DType::kInt16);
  Array o = client_->Ones({3});
  Array f = client_->Full({2}, 7);
  Array g = client_->Full({2}, 2.5, DType::kFloat32);
  EXPECT_EQ(Values<int16_t>(z), std::vector<int16_t>({0, 0, 0, 0}));
  EXPECT_EQ(o.dtype(), DType::kFloat64);
  EXPECT_EQ(Values<double>(o), std::vector<double>({1, 1, 1}));
  EXPECT_EQ(f.dtype(), DType::kInt64);
  EXPECT_EQ(Values<int64_t>(f), std::vector<int64_t>({7, 7}));
  EXPECT_EQ(Values<float>(g), std::vector<float>({2.5f, 2.5f}));
  // np.arange(2, 11, 3), np.arange(0, 1, 0.25), np.arange(5, 0, -2)
  EXPECT_EQ(Values<int64_t>(client_->Arange(2, 11, 3)), std::vector<int64_t>({2, 5, 8}));
  Array fa = client_->Arange(0, 1, 0.25);
  EXPECT_EQ(fa.dtype(), DType::kFloat64);
  EXPECT_EQ(Values<double>(fa), std::vector<double>({0, 0.25, 0.5, 0.75}));
  EXPECT_EQ(Values<int64_t>(client_->Arange(5, 0, -2)), std::vector<int64_t>({5, 3, 1}));
  EXPECT_EQ(client_->Arange(3, 1).shape(), Shape({0}));
  EXPECT_TRUE(client_->Synchronize().ok());
}

TEST_F(ClientTest, ArithmeticBroadcastsAndPromotesAsNumpy) {
  Array a = client_->FromVector<int32_t>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  Array b = client_->FromVector<double>({0.5, 2, -1});
  struct Case {
    Array result;
    DType dtype;
    std::vector<double> want;
  };
  std::vector<Case> cases = {
      {a + b, DType::kFloat64, {1.5, 4.0, 2.0, 4.5, 7.0, 5.0}},
      {a - b, DType::kFloat64, {0.5, 0.0, 4.0, 3.5, 3.0, 7.0}},
      {a * b, DType::kFloat64, {0.5, 4.0, -3.0, 2.0, 10.0, -6.0}},
      {a / b, DType::kFloat64, {2.0, 1.0, -3.0, 8.0, 2.5, -6.0}},
      {a / 2, DType::kFloat64, {0.5, 1.0, 1.5, 2.0, 2.5, 3.0}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(c.result.dtype(), c.dtype);
    EXPECT_EQ(c.result.shape(), Shape({2, 3}));
    EXPECT_EQ(Values<double>(c.result), c.want);
  }
  // Weak scalars keep the array's dtype (NEP 50).
  Array r = 10 - a;
  EXPECT_EQ(r.dtype(), DType::kInt32);
  EXPECT_EQ(Values<int32_t>(r), std::vector<int32_t>({9, 8, 7, 6, 5, 4}));
  EXPECT_EQ(Values<int32_t>(a * 3), std::vector<int32_t>({3, 6, 9, 12, 15, 18}));
  Array i8 = client_->FromVector<int8_t>({1, 2, 3});
  Array i8p = i8 + 1;
  EXPECT_EQ(i8p.dtype(), DType::kInt8);
  EXPECT_EQ(Values<int8_t>(i8p), std::vector<int8_t>({2, 3, 4}));
  Array q = i8 / client_->FromVector<int8_t>({2, 2, 2});
  EXPECT_EQ(q.dtype(), DType::kFloat64);
  EXPECT_EQ(Values<double>(q), std::vector<double>({0.5, 1.0, 1.5}));
  // int8 + 1000: NumPy's OverflowError, found by the client.
  Array overflow = i8 + 1000;
  EXPECT_EQ(overflow.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(std::string(overflow.status().message()), HasSubstr("out of bounds for int8"));
  EXPECT_FALSE(client_->Synchronize().ok());
  EXPECT_TRUE(client_->Synchronize().ok());
}

TEST_F(ClientTest, SumOverAxes) {
  Array a = client_->FromVector<int32_t>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  Array all = a.Sum();
  EXPECT_EQ(all.dtype(), DType::kInt64);  // NumPy's accumulator
  EXPECT_EQ(all.shape(), Shape({}));
  EXPECT_EQ(Values<int64_t>(all), std::vector<int64_t>({21}));
  EXPECT_EQ(Values<int64_t>(a.Sum(0)), std::vector<int64_t>({5, 7, 9}));
  Array kept = a.Sum(-1, /*keepdims=*/true);
  EXPECT_EQ(kept.shape(), Shape({2, 1}));
  EXPECT_EQ(Values<int64_t>(kept), std::vector<int64_t>({6, 15}));
  EXPECT_EQ(Values<int64_t>(a.Sum(std::vector<int64_t>{0, 1})), std::vector<int64_t>({21}));
  Array bad = a.Sum(2);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("axis 2 is out of bounds for array of dimension 2"));
  EXPECT_EQ(a.Sum(std::vector<int64_t>{0, -2}).status().code(), absl::StatusCode::kInvalidArgument);
  (void)client_->Synchronize();
}

TEST_F(ClientTest, ReshapeResolvesMinusOneAndChecksSize) {
  Array a = client_->Arange(12);
  Array r = a.Reshape({3, -1});
  EXPECT_EQ(r.shape(), Shape({3, 4}));
  EXPECT_EQ(Values<int64_t>(r.Sum(1)), std::vector<int64_t>({6, 22, 38}));
  Array bad = a.Reshape({5, -1});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("cannot reshape array of size 12 into shape (5, -1)"));
  // Ops on a refused array carry its error, and ToVector reports it.
  Array derived = bad + 1;
  EXPECT_EQ(derived.status(), bad.status());
  EXPECT_EQ(derived.ToVector<int64_t>().status(), bad.status());
  // Reported through ToVector: Synchronize does not repeat it.
  EXPECT_TRUE(client_->Synchronize().ok());
}

TEST_F(ClientTest, SmallUploadRoundTripsInline) {
  std::vector<int64_t> ints = {1, -2, 3, INT64_MAX, INT64_MIN, 0};
  EXPECT_EQ(Values<int64_t>(client_->FromVector(ints, Shape{3, 2})), ints);
  std::vector<uint16_t> u16 = {0, 1, 65535};
  EXPECT_EQ(Values<uint16_t>(client_->FromVector(u16)), u16);
  std::vector<bool> bools = {true, false, true};
  Array b = client_->FromVector(bools);
  EXPECT_EQ(b.dtype(), DType::kBool);
  EXPECT_EQ(Values<bool>(b), bools);
  std::vector<std::complex<float>> c = {{1, 2}, {-3, 0.5}};
  EXPECT_EQ(Values<std::complex<float>>(client_->FromVector(c)), c);
  Array empty = client_->FromVector(std::vector<float>{}, Shape{0, 3});
  EXPECT_EQ(Values<float>(empty), std::vector<float>());
  // Wrong element type.
  Array f = client_->FromVector<float>({1, 2});
  EXPECT_EQ(f.ToVector<double>().status().code(), absl::StatusCode::kInvalidArgument);
  // Wrong size.
  Array wrong = client_->FromVector<float>({1, 2, 3}, Shape{2, 2});
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kInvalidArgument);
  (void)client_->Synchronize();
}

TEST_F(ClientTest, LargeArraysUseUploadAndDownloadRpcs) {
  const uint64_t max_inline = client_->Capabilities().max_inline_bytes();
  const size_t n = max_inline / sizeof(double) * 3 + 17;  // > 1 MiB and not a chunk multiple
  ASSERT_GT(n * sizeof(double), size_t{1} << 20);
  std::vector<double> data(n);
  for (size_t i = 0; i < n; ++i) data[i] = static_cast<double>(i) * 0.5 - 7;
  Array x = client_->FromVector(data);
  ASSERT_TRUE(x.ok()) << x.status();
  // The round trip, and a result computed on the server from the upload.
  EXPECT_EQ(Values<double>(x), data);
  Array y = x * 2 + 1;
  std::vector<double> got = Values<double>(y);
  ASSERT_EQ(got.size(), n);
  bool same = true;
  for (size_t i = 0; i < n; ++i) same = same && got[i] == data[i] * 2 + 1;
  EXPECT_TRUE(same);
  double want_sum = 0;
  for (double v : data) want_sum += v;
  std::vector<double> sum = Values<double>(x.Sum());
  ASSERT_EQ(sum.size(), 1u);
  EXPECT_NEAR(sum[0], want_sum, 1e-6 * std::abs(want_sum));
  EXPECT_TRUE(client_->Synchronize().ok());
}

TEST_F(ClientTest, ClientFoundShapeMismatchIsInvalidArgumentAndSessionStaysUsable) {
  Array a = client_->Ones({2, 3});
  Array b = client_->Ones({4});
  Array c = a + b;
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(c.status().message(), "add: operands could not be broadcast together with shapes (2, 3) (4,)");
  absl::Status sync = client_->Synchronize();
  EXPECT_EQ(sync, c.status());
  EXPECT_EQ(sync.GetPayload(kErrorKindPayload).value_or(absl::Cord()), "ValueError");
  EXPECT_TRUE(client_->Synchronize().ok());
  EXPECT_EQ(Values<double>((a + 1).Sum()), std::vector<double>({12}));
}

TEST_F(ClientTest, ServerFoundErrorIsDeferredAndSessionStaysUsable) {
  Array a = client_->Ones({2, 3});
  Array b = client_->Ones({4});
  // Bypass the client's check: the server must refuse the op itself.
  Array c = client_->RawOp("add", {a, b}, {}, DType::kFloat64, {2, 3});
  ASSERT_TRUE(c.ok());  // recorded; the error comes at the sync
  Array d = c * 2;      // depends on the poisoned result
  absl::Status sync = client_->Synchronize();
  EXPECT_EQ(sync.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(sync.message()), HasSubstr("add: "));
  EXPECT_THAT(std::string(sync.message()), HasSubstr("could not be broadcast together"));
  EXPECT_EQ(sync.GetPayload(kErrorKindPayload).value_or(absl::Cord()), "ValueError");
  // Reported once.
  EXPECT_TRUE(client_->Synchronize().ok());
  // The poisoned handles report the error when fetched.
  absl::Status fetched = d.ToVector<double>().status();
  EXPECT_EQ(fetched.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(fetched.message()), HasSubstr("could not be broadcast together"));
  // The session still works.
  EXPECT_EQ(Values<double>(a.Sum()), std::vector<double>({6}));
  // An unknown op is NOT_FOUND.
  Array e = client_->RawOp("no_such_op", {a}, {}, DType::kFloat64, {2, 3});
  EXPECT_EQ(client_->Synchronize().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(client_->Synchronize().ok());
}

TEST_F(ClientTest, FirstErrorInOpOrderWins) {
  Array a = client_->Ones({2});
  Array server_bad = client_->RawOp("add", {a, client_->Ones({3})}, {}, DType::kFloat64, {2});
  Array client_bad = a.Reshape({3});  // refused by the client, after the server's error
  absl::Status sync = client_->Synchronize();
  EXPECT_THAT(std::string(sync.message()), HasSubstr("could not be broadcast"));
  EXPECT_TRUE(client_->Synchronize().ok());
}

TEST_F(ClientTest, ManyOpsAreBatchedAndFreed) {
  Array acc = client_->Zeros({4}, DType::kInt64);
  for (int i = 0; i < 3 * Client::kMaxBatchOps; ++i) acc = acc + 1;  // old arrays are freed
  EXPECT_EQ(Values<int64_t>(acc), std::vector<int64_t>(4, 3 * Client::kMaxBatchOps));
  EXPECT_TRUE(client_->Synchronize().ok());
}

TEST_F(ClientTest, SessionsDoNotSeeEachOthersArrays) {
  Array secret = client_->FromVector<int64_t>({42, 43});
  ASSERT_TRUE(client_->Synchronize().ok());
  const uint64_t handle = secret.handle();
  ASSERT_NE(handle, 0u);

  auto other = Client::Connect(server_->address(), "other");
  ASSERT_TRUE(other.ok()) << other.status();
  ASSERT_NE((*other)->session_id(), client_->session_id());

  // Client B names A's handle number in its own session, on the op stream
  // and through Download: the handle is unknown there.
  auto channel = grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials());
  auto stub = v1::Arrayd::NewStub(channel);
  grpc::ClientContext context;
  auto stream = stub->OpStream(&context);
  v1::ClientMessage open;
  open.mutable_open()->set_client_name("raw");
  ASSERT_TRUE(stream->Write(open));
  v1::ServerMessage opened;
  ASSERT_TRUE(stream->Read(&opened));
  const uint64_t raw_session = opened.opened().session_id();
  v1::ClientMessage message;
  v1::Op* op = message.add_ops();
  op->set_name("copy");
  op->add_inputs(handle);
  op->add_outputs(1000);
  message.mutable_sync()->set_sync_id(1);
  message.mutable_sync()->add_fetch(handle);
  message.mutable_sync()->add_fetch(1000);
  ASSERT_TRUE(stream->Write(message));
  v1::ServerMessage reply;
  ASSERT_TRUE(stream->Read(&reply));
  ASSERT_EQ(reply.sync().fetched_size(), 2);
  for (const v1::Fetched& f : reply.sync().fetched()) {
    EXPECT_TRUE(f.has_error());
    EXPECT_TRUE(f.data().empty());
  }
  EXPECT_EQ(reply.sync().fetched(0).error().code(), static_cast<uint32_t>(grpc::StatusCode::NOT_FOUND));
  EXPECT_EQ(reply.sync().fetched(1).error().code(), static_cast<uint32_t>(grpc::StatusCode::NOT_FOUND));

  grpc::ClientContext download_context;
  v1::DownloadRequest request;
  request.set_session_id(raw_session);
  request.set_handle(handle);
  auto reader = stub->Download(&download_context, request);
  v1::DownloadChunk chunk;
  std::string leaked;
  while (reader->Read(&chunk)) leaked += chunk.data();
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_TRUE(leaked.empty());
  stream->WritesDone();
  while (stream->Read(&reply)) {
  }
  EXPECT_TRUE(stream->Finish().ok());

  // And through the client API: B's arrays and A's arrays do not mix.
  Array mine = (*other)->Ones({2}, DType::kInt64);
  Array mixed = mine + secret;
  EXPECT_EQ(mixed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(mixed.status().message()), HasSubstr("different arrayd sessions"));
  // A's data is intact.
  EXPECT_EQ(Values<int64_t>(secret), std::vector<int64_t>({42, 43}));
}

TEST_F(ClientTest, ArraysOutliveTheirClientHarmlessly) {
  Array a = client_->Ones({2});
  client_.reset();  // closes the session
  Array b = a + 1;
  EXPECT_EQ(b.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(a.ToVector<double>().ok());
}

}  // namespace
}  // namespace arrayd
