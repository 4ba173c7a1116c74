#include "session/session.h"

#include <atomic>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "absl/synchronization/notification.h"
#include "backend/cpu/cpu_backend.h"
#include "gtest/gtest.h"
#include "session/counting_stream_testing.h"

namespace arrayd {
namespace {

v1::AttrValue I(int64_t v) { v1::AttrValue a; a.set_i(v); return a; }
v1::AttrValue F(double v) { v1::AttrValue a; a.set_f(v); return a; }
v1::AttrValue Ints(std::vector<int64_t> v) {
  v1::AttrValue a;
  for (int64_t x : v) a.mutable_ints()->add_values(x);
  return a;
}
v1::AttrValue Dt(DType d) { v1::AttrValue a; a.set_dtype(static_cast<v1::DType>(d)); return a; }

v1::Op MakeOp(const std::string& name, std::vector<uint64_t> in, std::vector<uint64_t> out,
              std::map<std::string, v1::AttrValue> attrs = {}) {
  v1::Op op;
  op.set_name(name);
  for (uint64_t h : in) op.add_inputs(h);
  for (uint64_t h : out) op.add_outputs(h);
  for (auto& [k, v] : attrs) (*op.mutable_attrs())[k] = v;
  return op;
}

class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override { session_ = MakeSession(SessionOptions{}); }

  std::unique_ptr<Session> MakeSession(SessionOptions options) {
    return std::make_unique<Session>(
        1, *backend_->CreateStream(), *backend_->CreateStream(), &DefaultRegistry(), options,
        [this](v1::ServerMessage m) { replies_.push_back(std::move(m)); });
  }

  // Runs `ops` then a sync fetching `fetch`; returns the sync reply.
  v1::SyncReply RunAndSync(std::vector<v1::Op> ops, std::vector<uint64_t> fetch = {},
                           std::vector<uint64_t> frees = {}) {
    v1::ClientMessage m;
    for (auto& op : ops) *m.add_ops() = op;
    for (uint64_t h : frees) m.add_frees(h);
    m.mutable_sync()->set_sync_id(++sync_id_);
    for (uint64_t h : fetch) m.mutable_sync()->add_fetch(h);
    session_->Run(m);
    EXPECT_FALSE(replies_.empty());
    return replies_.back().sync();
  }

  template <typename T>
  std::vector<T> Values(const v1::Fetched& f) {
    std::vector<T> out(f.data().size() / sizeof(T));
    std::memcpy(out.data(), f.data().data(), f.data().size());
    return out;
  }

  v1::Op Arange(uint64_t out, int64_t n, DType d = DType::kFloat64) {
    return MakeOp("arange", {}, {out}, {{"start", I(0)}, {"step", I(1)}, {"num", I(n)}, {"dtype", Dt(d)}});
  }

  std::unique_ptr<Backend> backend_ = cpu::CreateCpuBackend();
  std::vector<v1::ServerMessage> replies_;
  std::unique_ptr<Session> session_;
  uint64_t sync_id_ = 0;
};

TEST_F(SessionTest, OpsRunInOrderAndFetchReturnsData) {
  auto r = RunAndSync({Arange(1, 6), MakeOp("reshape", {1}, {2}, {{"shape", Ints({2, 3})}}),
                       MakeOp("sum", {2}, {3}, {{"axes", Ints({1})}})},
                      {3});
  ASSERT_EQ(r.fetched_size(), 1);
  EXPECT_TRUE(r.fetched(0).inline_());
  EXPECT_EQ(Values<double>(r.fetched(0)), (std::vector<double>{3, 12}));
  EXPECT_EQ(r.errors_size(), 0);
}

TEST_F(SessionTest, FailedOpIsReportedAtSyncWithItsName) {
  auto r = RunAndSync({Arange(1, 3), Arange(2, 4), MakeOp("add", {1, 2}, {3})});
  ASSERT_EQ(r.errors_size(), 1);
  EXPECT_EQ(r.errors(0).op(), "add");
  EXPECT_EQ(r.errors(0).op_index(), 2u);
  EXPECT_EQ(r.errors(0).kind(), "ValueError");
  EXPECT_NE(r.errors(0).message().find("could not be broadcast"), std::string::npos);
  // Reported once.
  EXPECT_EQ(RunAndSync({}).errors_size(), 0);
}

TEST_F(SessionTest, PoisonPropagatesToDependentsAndSessionStaysUsable) {
  auto r = RunAndSync({Arange(1, 3), Arange(2, 4), MakeOp("add", {1, 2}, {3}),
                       MakeOp("negative", {3}, {4}), Arange(5, 2)},
                      {4, 5});
  ASSERT_EQ(r.fetched_size(), 2);
  EXPECT_TRUE(r.fetched(0).has_error());
  EXPECT_EQ(r.fetched(0).error().op(), "add");
  EXPECT_FALSE(r.fetched(1).has_error());
  EXPECT_EQ(Values<double>(r.fetched(1)), (std::vector<double>{0, 1}));
  // The error surfaced through the fetch, so it is not repeated.
  EXPECT_EQ(r.errors_size(), 0);
}

TEST_F(SessionTest, FreedHandleIsNotFound) {
  RunAndSync({Arange(1, 3)}, {}, {1});
  auto r = RunAndSync({MakeOp("negative", {1}, {2})});
  ASSERT_EQ(r.errors_size(), 1);
  EXPECT_EQ(r.errors(0).code(), static_cast<uint32_t>(absl::StatusCode::kNotFound));
  EXPECT_NE(r.errors(0).message().find("unknown handle 1"), std::string::npos);
}

TEST_F(SessionTest, UnknownOpAndBadArityAreRefused) {
  auto r = RunAndSync({MakeOp("frobnicate", {}, {1}), Arange(2, 3), MakeOp("add", {2}, {3})});
  ASSERT_EQ(r.errors_size(), 2);
  EXPECT_EQ(r.errors(0).code(), static_cast<uint32_t>(absl::StatusCode::kNotFound));
  EXPECT_EQ(r.errors(1).kind(), "ValueError");
}

TEST_F(SessionTest, UnknownAttributeIsTypeError) {
  auto op = Arange(1, 3);
  (*op.mutable_attrs())["bogus"] = I(1);
  auto r = RunAndSync({op});
  ASSERT_EQ(r.errors_size(), 1);
  EXPECT_EQ(r.errors(0).kind(), "TypeError");
}

TEST_F(SessionTest, ExistingOutputIsWrittenInPlace) {
  auto r = RunAndSync({Arange(1, 3), Arange(2, 3), MakeOp("add", {1, 2}, {1})}, {1});
  EXPECT_EQ(Values<double>(r.fetched(0)), (std::vector<double>{0, 2, 4}));
}

TEST_F(SessionTest, InPlaceOutputRefusesUnsafeCastAndKeepsValues) {
  auto r = RunAndSync({Arange(1, 3, DType::kInt32), Arange(2, 3, DType::kFloat64),
                       MakeOp("add", {1, 2}, {1})},
                      {1});
  ASSERT_EQ(r.errors_size(), 1);
  EXPECT_EQ(r.errors(0).kind(), "TypeError");
  EXPECT_NE(r.errors(0).message().find("same_kind"), std::string::npos);
  EXPECT_EQ(Values<int32_t>(r.fetched(0)), (std::vector<int32_t>{0, 1, 2}));
}

TEST_F(SessionTest, WritingThroughASliceChangesTheBase) {
  v1::AttrValue index = Ints({1, 1, INT64_MIN, 2});  // x[1::2]
  auto r = RunAndSync({Arange(1, 5), MakeOp("slice", {1}, {2}, {{"index", index}}),
                       MakeOp("full", {}, {3}, {{"shape", Ints({})}, {"dtype", Dt(DType::kFloat64)}, {"value", F(9)}}),
                       MakeOp("setitem", {2, 3}, {}, {{"index", Ints({})}})},
                      {1});
  EXPECT_EQ(r.errors_size(), 0);
  EXPECT_EQ(Values<double>(r.fetched(0)), (std::vector<double>{0, 9, 2, 9, 4}));
}

TEST_F(SessionTest, QuotaExceededIsMemoryError) {
  SessionOptions options;
  options.quota_bytes = 1000;
  session_ = MakeSession(options);
  auto r = RunAndSync({Arange(1, 100), Arange(2, 100)}, {1, 2});
  EXPECT_FALSE(r.fetched(0).has_error());
  ASSERT_TRUE(r.fetched(1).has_error());
  EXPECT_EQ(r.fetched(1).error().kind(), "MemoryError");
  EXPECT_EQ(r.fetched(1).error().code(), static_cast<uint32_t>(absl::StatusCode::kResourceExhausted));
  // Freeing makes room again.
  r = RunAndSync({Arange(3, 100)}, {3}, {1});
  EXPECT_TRUE(r.fetched_size() == 1);
}

TEST_F(SessionTest, AFreedHandleGoesRightAfterTheMessagesLastUseOfIt) {
  // Two 800-byte temporaries under a 1000-byte quota: the first is freed
  // after the sum that reads it, before the second is made.
  SessionOptions options;
  options.quota_bytes = 1000;
  session_ = MakeSession(options);
  auto r = RunAndSync({Arange(1, 100), MakeOp("sum", {1}, {2}), Arange(3, 100),
                       MakeOp("sum", {3}, {4}), MakeOp("add", {2, 4}, {5})},
                      {5}, {1, 2, 3, 4});
  ASSERT_EQ(r.fetched_size(), 1);
  ASSERT_FALSE(r.fetched(0).has_error()) << r.fetched(0).error().message();
  EXPECT_EQ(Values<double>(r.fetched(0)), (std::vector<double>{9900}));
  EXPECT_EQ(r.errors_size(), 0);
  EXPECT_EQ(session_->num_arrays(), 1u);
}

TEST_F(SessionTest, LargeFetchIsStagedForDownload) {
  SessionOptions options;
  options.max_inline_bytes = 64;
  session_ = MakeSession(options);
  auto r = RunAndSync({Arange(1, 100)}, {1});
  ASSERT_EQ(r.fetched_size(), 1);
  EXPECT_FALSE(r.fetched(0).inline_());
  EXPECT_TRUE(r.fetched(0).data().empty());
  auto view = session_->DownloadView(1);
  ASSERT_TRUE(view.ok());
  std::string bytes;
  ASSERT_TRUE(session_->ReadBytes(*view, 8 * 10, 16, &bytes).ok());
  double v[2];
  std::memcpy(v, bytes.data(), 16);
  EXPECT_EQ(v[0], 10);
  EXPECT_EQ(v[1], 11);
}

TEST_F(SessionTest, ExecutorRunsQueuedMessages) {
  absl::Notification done;
  v1::ServerMessage reply;
  Session session(7, *backend_->CreateStream(), *backend_->CreateStream(), &DefaultRegistry(),
                  SessionOptions{}, [&](v1::ServerMessage m) {
                    reply = std::move(m);
                    done.Notify();
                  });
  v1::ClientMessage m;
  *m.add_ops() = Arange(1, 4);
  m.mutable_sync()->set_sync_id(42);
  m.mutable_sync()->add_fetch(1);
  session.Enqueue(m);
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(reply.sync().sync_id(), 42u);
  EXPECT_EQ(reply.sync().fetched(0).data().size(), 32u);
}

// Threads of this process now (Linux: /proc/self/status).
int ThreadCount() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  }
  return -1;
}

TEST_F(SessionTest, IdleSessionsHaveNoThread) {
  WorkerPool pool(2);
  SessionOptions options;
  options.workers = &pool;
  const int before = ThreadCount();
  std::vector<std::unique_ptr<Session>> sessions;
  for (int i = 0; i < 64; ++i) sessions.push_back(MakeSession(options));
  EXPECT_EQ(ThreadCount(), before);
  // And each still runs its messages, on the pool.
  std::atomic<int> replies{0};
  absl::Notification all;
  std::vector<std::unique_ptr<Session>> busy;
  for (int i = 0; i < 64; ++i) {
    busy.push_back(std::make_unique<Session>(
        100 + i, *backend_->CreateStream(), *backend_->CreateStream(), &DefaultRegistry(),
        options, [&](v1::ServerMessage) {
          if (++replies == 64) all.Notify();
        }));
    v1::ClientMessage m;
    *m.add_ops() = Arange(1, 1000);
    m.mutable_sync()->set_sync_id(1);
    busy.back()->Enqueue(m);
  }
  ASSERT_TRUE(all.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_EQ(ThreadCount(), before);
}

TEST_F(SessionTest, AFullQueueRefusesUntilHalfIsRunThenResumes) {
  WorkerPool pool(1);
  SessionOptions options;
  options.workers = &pool;
  options.max_queued_messages = 4;
  // The pool's one worker is held, so that the queue fills.
  absl::Notification hold, held;
  struct Holder : WorkerPool::Task {
    absl::Notification *hold, *held;
    void RunTurn() override {
      held->Notify();
      hold->WaitForNotification();
    }
  } holder;
  holder.hold = &hold;
  holder.held = &held;
  pool.Schedule(&holder);
  held.WaitForNotification();
  auto session = MakeSession(options);
  absl::Notification resumed;
  v1::ClientMessage m;
  *m.add_ops() = Arange(1, 4);
  EXPECT_TRUE(session->Enqueue(m));
  EXPECT_TRUE(session->Enqueue(m));
  EXPECT_TRUE(session->Enqueue(m));
  EXPECT_FALSE(session->Enqueue(m, [&] { resumed.Notify(); }));
  EXPECT_FALSE(resumed.HasBeenNotified());
  hold.Notify();
  EXPECT_TRUE(resumed.WaitForNotificationWithTimeout(absl::Seconds(10)));
}

TEST_F(SessionTest, StopDropsTheQueueFreesArraysAndCallsBack) {
  WorkerPool pool(2);
  SessionOptions options;
  options.workers = &pool;
  auto session = MakeSession(options);
  v1::ClientMessage m;
  *m.add_ops() = Arange(1, 1 << 16);
  session->Run(m);
  EXPECT_EQ(session->num_arrays(), 1u);
  absl::Notification stopped;
  session->Stop([&] { stopped.Notify(); });
  ASSERT_TRUE(stopped.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(session->num_arrays(), 0u);
  EXPECT_EQ(session->bytes_in_use(), 0u);
  // Later messages are dropped, and a second Stop calls back at once.
  EXPECT_TRUE(session->Enqueue(m));
  bool again = false;
  session->Stop([&] { again = true; });
  EXPECT_TRUE(again);
  EXPECT_EQ(session->num_arrays(), 0u);
}

TEST_F(SessionTest, ArraysOfOneSessionAreInvisibleToAnother) {
  RunAndSync({Arange(1, 3)});
  auto other = MakeSession(SessionOptions{});
  v1::ClientMessage m;
  m.mutable_sync()->set_sync_id(1);
  m.mutable_sync()->add_fetch(1);
  other->Run(m);
  ASSERT_TRUE(replies_.back().sync().fetched(0).has_error());
  EXPECT_EQ(replies_.back().sync().fetched(0).error().code(),
            static_cast<uint32_t>(absl::StatusCode::kNotFound));
}

// A sync waits on the device when ops ran since the last wait, and only
// then: a fetch's copy to the host is a wait; every message's ops are
// flushed to the device at its end (a message without ops has none).
TEST_F(SessionTest, SyncWaitsOnTheDeviceOnlyWhenOpsRanSinceTheLastWait) {
  SessionOptions options;
  options.max_inline_bytes = 64;  // larger fetches are staged, not copied
  auto counting = std::make_unique<CountingStream>(*backend_->CreateStream());
  CountingStream* stream = counting.get();
  session_ = std::make_unique<Session>(
      1, std::move(counting), *backend_->CreateStream(), &DefaultRegistry(), options,
      [this](v1::ServerMessage m) { replies_.push_back(std::move(m)); });

  RunAndSync({Arange(1, 4)});  // ops, no fetch: a wait
  EXPECT_EQ(stream->synchronized, 1);
  EXPECT_EQ(stream->flushes, 1);
  RunAndSync({});  // nothing ran since
  EXPECT_EQ(stream->synchronized, 1);
  auto r = RunAndSync({MakeOp("add", {1, 1}, {2})}, {2});  // the inline fetch waited
  EXPECT_EQ(Values<double>(r.fetched(0)), (std::vector<double>{0, 2, 4, 6}));
  EXPECT_EQ(stream->synchronized, 1);
  RunAndSync({Arange(3, 100)}, {3});  // a staged fetch copies nothing: a wait
  EXPECT_FALSE(replies_.back().sync().fetched(0).inline_());
  EXPECT_EQ(stream->synchronized, 2);
  RunAndSync({}, {2});  // an inline fetch with no ops before it
  EXPECT_EQ(stream->synchronized, 2);
  EXPECT_EQ(stream->flushes, 3);  // the messages with ops
}

TEST_F(SessionTest, UserKernelsNeedTheFlagAndACudaServer) {
  v1::AttrValue src;
  src.set_s("extern \"C\" __global__ void k() {}");
  v1::Op load = MakeOp("module_load", {}, {1, 2}, {{"module", I(1)}, {"source", src}});
  auto r = RunAndSync({load}, {1});
  ASSERT_EQ(r.fetched_size(), 1);
  EXPECT_EQ(r.fetched(0).error().code(), static_cast<uint32_t>(absl::StatusCode::kPermissionDenied));
  EXPECT_NE(r.fetched(0).error().message().find("--allow-user-kernels"), std::string::npos);
  SessionOptions options;
  options.allow_user_kernels = true;
  session_ = MakeSession(options);
  r = RunAndSync({load}, {1});
  EXPECT_EQ(r.fetched(0).error().kind(), "NotImplementedError");
  EXPECT_NE(r.fetched(0).error().message().find("CPU backend"), std::string::npos);
  // A launch of a module never loaded says so.
  r = RunAndSync({MakeOp("kernel_launch", {}, {},
                         {{"module", I(5)}, {"name", src}, {"grid", Ints({1})},
                          {"block", Ints({1})}, {"params", Ints({})}})});
  ASSERT_EQ(r.errors_size(), 1);
  EXPECT_NE(r.errors(0).message().find("module 5 was not loaded"), std::string::npos);
}

// A backend whose loads fault on misaligned addresses (a GPU) never sees a
// misaligned view: ops read aligned copies and write out= arrays through
// one; an op that writes its inputs (setitem) writes its copy, which goes
// back into the view.
TEST_F(SessionTest, MisalignedViewsReachAnAlignedOnlyBackendAsCopies) {
  auto counting = std::make_unique<CountingStream>(*backend_->CreateStream());
  counting->aligned_only = true;
  CountingStream* stream = counting.get();
  session_ = std::make_unique<Session>(
      1, std::move(counting), *backend_->CreateStream(), &DefaultRegistry(), SessionOptions{},
      [this](v1::ServerMessage m) { replies_.push_back(std::move(m)); });
  // bytes 4..27 of 0..31 as three float64 (misaligned by 4).
  std::vector<v1::Op> ops = {
      Arange(1, 32, DType::kUInt8),
      MakeOp("as_strided", {1}, {2}, {{"offset", I(4)}, {"shape", Ints({24})}, {"strides", Ints({1})}}),
      MakeOp("view", {2}, {3}, {{"dtype", Dt(DType::kFloat64)}}),
      MakeOp("add", {3, 3}, {4}),
      MakeOp("add", {3, 3}, {3}),  // out= the misaligned view itself
  };
  auto r = RunAndSync(ops, {4, 3, 1});
  ASSERT_EQ(r.fetched_size(), 3);
  for (const auto& f : r.fetched()) ASSERT_FALSE(f.has_error()) << f.error().message();
  std::vector<double> x(3);
  std::vector<unsigned char> bytes(32);
  for (int i = 0; i < 32; ++i) bytes[i] = static_cast<unsigned char>(i);
  std::memcpy(x.data(), bytes.data() + 4, 24);
  std::vector<double> twice = {x[0] * 2, x[1] * 2, x[2] * 2};
  EXPECT_EQ(Values<double>(r.fetched(0)), twice);
  EXPECT_EQ(Values<double>(r.fetched(1)), twice);  // written through the view
  std::vector<unsigned char> after = Values<unsigned char>(r.fetched(2));
  EXPECT_EQ(after[3], 3);
  EXPECT_EQ(after[28], 28);
  v1::Op fill = MakeOp("full", {}, {6}, {{"shape", Ints({})}, {"dtype", Dt(DType::kFloat64)},
                                          {"value", F(2.5)}});
  r = RunAndSync({fill, MakeOp("setitem", {3, 6}, {}, {{"index", Ints({})}})}, {3, 1});
  EXPECT_EQ(r.errors_size(), 0);
  EXPECT_EQ(Values<double>(r.fetched(0)), (std::vector<double>{2.5, 2.5, 2.5}));
  after = Values<unsigned char>(r.fetched(1));
  EXPECT_EQ(after[3], 3);  // bytes around the view are untouched
  EXPECT_EQ(after[28], 28);
  EXPECT_EQ(stream->misaligned_seen, 0);
  // The count is not vacuous: it sees a misaligned view.
  View odd = MakeContiguousView(*backend_->CreateStream().value()->Allocate(32),
                                DType::kFloat64, {2});
  odd.offset = 4;
  stream->See({&odd});
  EXPECT_EQ(stream->misaligned_seen, 1);
}

// ---- streams and events (arrayd.cuda.Stream, Event) ----

class StreamTest : public SessionTest {
 protected:
  void SetUp() override {
    SessionOptions options;
    options.backend = &counting_;
    session_ = std::make_unique<Session>(
        1, *counting_.CreateStream(), *backend_->CreateStream(), &DefaultRegistry(), options,
        [this](v1::ServerMessage m) { replies_.push_back(std::move(m)); });
  }
  static v1::Op On(uint64_t stream, v1::Op op) {
    op.set_stream(stream);
    return op;
  }
  void NewStream(uint64_t id, bool non_blocking = false) {
    v1::ClientMessage m;
    v1::StreamSpec* spec = m.add_new_streams();
    spec->set_id(id);
    spec->set_non_blocking(non_blocking);
    session_->Run(m);
  }
  v1::SyncReply SyncScope(v1::SyncScope scope, uint64_t target, bool query = false,
                          uint64_t elapsed_from = 0, std::vector<uint64_t> fetch = {}) {
    v1::ClientMessage m;
    v1::Sync* sync = m.mutable_sync();
    sync->set_sync_id(++sync_id_);
    sync->set_scope(scope);
    sync->set_target(target);
    sync->set_query(query);
    sync->set_elapsed_from(elapsed_from);
    for (uint64_t h : fetch) sync->add_fetch(h);
    session_->Run(m);
    return replies_.back().sync();
  }
  v1::Op Record(uint64_t event, bool timing = true) {
    v1::AttrValue t;
    t.set_b(timing);
    return MakeOp("event_record", {}, {}, {{"event", I(event)}, {"timing", t}});
  }

  CountingBackend counting_{backend_.get()};
};

TEST_F(StreamTest, OpsRunOnTheirStreamAndFetchThere) {
  NewStream(7);
  ASSERT_EQ(counting_.made.size(), 2u);
  RunAndSync({On(7, Arange(1, 4)), On(7, MakeOp("add", {1, 1}, {2}))});
  auto r = SyncScope(v1::SYNC_STREAM, 7, false, 0, {2});
  ASSERT_EQ(r.fetched_size(), 1);
  EXPECT_EQ(Values<double>(r.fetched(0)), (std::vector<double>{0, 2, 4, 6}));
  EXPECT_FALSE(r.has_error());
}

TEST_F(StreamTest, UnknownStreamPoisonsAndNamesTheStream) {
  auto r = RunAndSync({On(9, Arange(1, 4))}, {1});
  ASSERT_EQ(r.fetched_size(), 1);
  EXPECT_EQ(r.fetched(0).error().stream(), 9u);
  EXPECT_NE(r.fetched(0).error().message().find("unknown stream 9"), std::string::npos);
  r = SyncScope(v1::SYNC_STREAM, 9);
  EXPECT_TRUE(r.has_error());
  EXPECT_NE(r.error().message().find("unknown stream 9"), std::string::npos);
  // Stream 0 is the default; a second stream of one id is refused.
  NewStream(0);
  NewStream(3);
  NewStream(3);
  r = RunAndSync({});
  EXPECT_EQ(r.errors_size(), 2);
}

TEST_F(StreamTest, BlockingStreamsOrderWithTheDefaultStream) {
  NewStream(1);                      // blocking
  NewStream(2, /*non_blocking=*/true);
  CountingStream* s0 = counting_.made[0];
  CountingStream* s1 = counting_.made[1];
  CountingStream* s2 = counting_.made[2];
  RunAndSync({On(1, Arange(1, 4)), Arange(2, 4)});
  EXPECT_EQ(s0->waits, 1);  // stream 0's op waits for stream 1's work
  EXPECT_EQ(s1->records, 1);
  RunAndSync({On(2, Arange(3, 4)), Arange(4, 4)});
  EXPECT_EQ(s0->waits, 1);  // not for a non-blocking stream's
  RunAndSync({On(1, Arange(5, 4))});
  EXPECT_EQ(s1->waits, 1);  // stream 1 waits for stream 0's ops before it
  RunAndSync({On(1, Arange(6, 4))});
  EXPECT_EQ(s1->waits, 1);  // once
  EXPECT_EQ(s2->waits, 0);
}

TEST_F(StreamTest, EventsOrderStreamsAndTime) {
  NewStream(1, true);
  CountingStream* s0 = counting_.made[0];
  auto r = RunAndSync({Record(5), On(1, MakeOp("stream_wait_event", {}, {}, {{"event", I(5)}})),
                       On(1, MakeOp("stream_wait_event", {}, {}, {{"event", I(6)}}))});
  EXPECT_EQ(r.errors_size(), 0);
  EXPECT_EQ(s0->records, 1);
  EXPECT_EQ(counting_.made[1]->waits, 1);  // event 6 was never recorded: no wait
  RunAndSync({On(1, Arange(1, 1000)), On(1, Record(6))});
  r = SyncScope(v1::SYNC_EVENT, 6, false, /*elapsed_from=*/5);
  EXPECT_FALSE(r.has_error()) << r.error().message();
  EXPECT_GE(r.elapsed_ms(), 0.0);
  r = SyncScope(v1::SYNC_EVENT, 6, /*query=*/true);
  EXPECT_TRUE(r.done());
  r = SyncScope(v1::SYNC_STREAM, 1, /*query=*/true);
  EXPECT_TRUE(r.done());
  // No timing, or never recorded: the sync says so.
  RunAndSync({Record(7, /*timing=*/false)});
  r = SyncScope(v1::SYNC_EVENT, 7, false, 5);
  ASSERT_TRUE(r.has_error());
  EXPECT_NE(r.error().message().find("disable_timing"), std::string::npos);
  r = SyncScope(v1::SYNC_EVENT, 8);
  ASSERT_TRUE(r.has_error());
  EXPECT_NE(r.error().message().find("never recorded"), std::string::npos);
  // Freed events are gone.
  v1::ClientMessage m;
  m.add_free_events(6);
  session_->Run(m);
  EXPECT_TRUE(SyncScope(v1::SYNC_EVENT, 6).has_error());
}

TEST_F(StreamTest, FreedStreamFinishesAndIsGone) {
  NewStream(4);
  RunAndSync({On(4, Arange(1, 4))});
  v1::ClientMessage m;
  m.add_free_streams(4);
  m.add_free_streams(0);  // the default stream is never freed
  session_->Run(m);
  auto r = RunAndSync({On(4, Arange(2, 4)), Arange(3, 4)}, {1, 2, 3});
  ASSERT_EQ(r.fetched_size(), 3);
  EXPECT_EQ(Values<double>(r.fetched(0)), (std::vector<double>{0, 1, 2, 3}));  // made before
  EXPECT_NE(r.fetched(1).error().message().find("unknown stream 4"), std::string::npos);
  EXPECT_EQ(Values<double>(r.fetched(2)), (std::vector<double>{0, 1, 2, 3}));
}

TEST_F(StreamTest, MemoryPoolReportsAndLimits) {
  auto r = RunAndSync({Arange(1, 1000), MakeOp("memory_pool", {}, {2})}, {2});
  ASSERT_EQ(r.fetched_size(), 1);
  std::vector<int64_t> pool = Values<int64_t>(r.fetched(0));
  ASSERT_EQ(pool.size(), 4u);
  EXPECT_GE(pool[0], 8000);  // the arange's bytes (and the result's own)
  EXPECT_EQ(pool[1], 0);     // no limit
  r = RunAndSync({MakeOp("memory_pool_limit", {}, {}, {{"bytes", I(16000)}}), Arange(3, 2000),
                  MakeOp("memory_pool", {}, {4})},
                 {3, 4});
  EXPECT_EQ(r.fetched(0).error().kind(), "MemoryError");
  EXPECT_EQ(Values<int64_t>(r.fetched(1))[1], 16000);
  r = RunAndSync({MakeOp("memory_pool_limit", {}, {}, {{"bytes", I(0)}}), Arange(5, 2000),
                  MakeOp("memory_pool_free", {}, {})},
                 {5});
  EXPECT_FALSE(r.fetched(0).has_error());
  EXPECT_EQ(r.errors_size(), 0);
  r = RunAndSync({MakeOp("memory_pool_limit", {}, {}, {{"bytes", I(-1)}})});
  ASSERT_EQ(r.errors_size(), 1);
  EXPECT_EQ(r.errors(0).kind(), "ValueError");
}


// x * 2 + 3 * x * x - 1 on float32, as a client sends it: the intermediates
// freed in the same message.
std::vector<v1::Op> ChainOps() {
  auto full = [](uint64_t h, double v) {
    return MakeOp("full", {}, {h}, {{"shape", Ints({})}, {"dtype", Dt(DType::kFloat32)}, {"value", F(v)}});
  };
  return {full(2, 2), MakeOp("multiply", {1, 2}, {10}), full(3, 3), MakeOp("multiply", {3, 1}, {11}),
          MakeOp("multiply", {11, 1}, {12}), MakeOp("add", {10, 12}, {13}), full(4, 1),
          MakeOp("subtract", {13, 4}, {14})};
}

uint64_t OpCount(Session& s, const std::string& name) {
  std::vector<uint64_t> totals(DefaultRegistry().ops().size());
  s.AddOpCounts(&totals);
  return totals[DefaultRegistry().Find(name)->index];
}

TEST_F(SessionTest, AChainWhoseIntermediatesAreFreedRunsFusedBitForBit) {
  v1::Op x = Arange(1, 1000, DType::kFloat32);
  auto fused = RunAndSync({x}, {});
  fused = RunAndSync(ChainOps(), {14}, {10, 11, 12, 13});
  ASSERT_EQ(fused.fetched_size(), 1);
  EXPECT_FALSE(fused.fetched(0).has_error());
  EXPECT_EQ(OpCount(*session_, "fused_elementwise"), 1u);
  EXPECT_EQ(OpCount(*session_, "multiply"), 3u);  // the fused ops still count
  EXPECT_EQ(fused.errors_size(), 0);
  // The same chain unfused (nothing freed).
  session_ = MakeSession(SessionOptions{});
  RunAndSync({x}, {});
  auto plain = RunAndSync(ChainOps(), {14});
  EXPECT_EQ(OpCount(*session_, "fused_elementwise"), 0u);
  EXPECT_EQ(fused.fetched(0).data(), plain.fetched(0).data());
  std::vector<float> v = Values<float>(plain.fetched(0));
  ASSERT_EQ(v.size(), 1000u);
  EXPECT_EQ(v[3], 2 * 3.0f + 3 * 3.0f * 3.0f - 1);
}

TEST_F(SessionTest, AFusedChainThatFailsReportsTheFailingOpAsSent) {
  // The last add cannot broadcast (1000) with (3): the error names it and
  // its index, as unfused; its output is poisoned.
  std::vector<v1::Op> ops = {Arange(1, 1000, DType::kFloat32), Arange(5, 3, DType::kFloat32),
                             MakeOp("multiply", {1, 1}, {10}), MakeOp("add", {10, 5}, {11})};
  auto r = RunAndSync(ops, {11}, {10});
  ASSERT_EQ(r.fetched_size(), 1);
  ASSERT_TRUE(r.fetched(0).has_error());
  EXPECT_EQ(r.fetched(0).error().op(), "add");
  EXPECT_EQ(r.fetched(0).error().op_index(), 3u);
  EXPECT_NE(r.fetched(0).error().message().find("could not be broadcast"), std::string::npos);
  // A poisoned leaf poisons the result with the leaf's error.
  ops = {MakeOp("add", {1, 5}, {20}), MakeOp("negative", {20}, {21}), MakeOp("absolute", {21}, {22})};
  r = RunAndSync(ops, {22}, {21});
  ASSERT_TRUE(r.fetched(0).has_error());
  EXPECT_EQ(r.fetched(0).error().op(), "add");
}

}  // namespace
}  // namespace arrayd
