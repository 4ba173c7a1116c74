#include "session/worker_pool.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace arrayd {
namespace {

// Counts its turns; schedules itself again until it has had `turns`.
class CountingTask : public WorkerPool::Task {
 public:
  CountingTask(WorkerPool* pool, int turns, std::vector<int>* order, absl::Mutex* mu, int id)
      : pool_(pool), turns_(turns), order_(order), mu_(mu), id_(id) {}
  void RunTurn() override {
    {
      absl::MutexLock lock(mu_);
      order_->push_back(id_);
    }
    if (++done_ < turns_) {
      pool_->Schedule(this);
    } else {
      finished_.Notify();
    }
  }
  void Wait() { finished_.WaitForNotification(); }

 private:
  WorkerPool* pool_;
  const int turns_;
  std::vector<int>* order_;
  absl::Mutex* mu_;
  const int id_;
  std::atomic<int> done_{0};
  absl::Notification finished_;
};

TEST(WorkerPoolTest, RunsEveryScheduledTask) {
  WorkerPool pool(3);
  EXPECT_EQ(pool.size(), 3u);
  absl::Mutex mu;
  std::vector<int> order;
  std::vector<std::unique_ptr<CountingTask>> tasks;
  for (int i = 0; i < 100; ++i) {
    tasks.push_back(std::make_unique<CountingTask>(&pool, 5, &order, &mu, i));
  }
  for (auto& t : tasks) pool.Schedule(t.get());
  for (auto& t : tasks) t->Wait();
  absl::MutexLock lock(&mu);
  EXPECT_EQ(order.size(), 500u);
}

TEST(WorkerPoolTest, TasksThatScheduleThemselvesTakeTurns) {
  // One worker: a task that always has more to do goes to the back of the
  // queue, so a task scheduled after its first turn is not starved.
  WorkerPool pool(1);
  absl::Mutex mu;
  std::vector<int> order;
  CountingTask flood(&pool, 50, &order, &mu, 0);
  CountingTask polite(&pool, 1, &order, &mu, 1);
  pool.Schedule(&flood);
  pool.Schedule(&polite);
  polite.Wait();
  flood.Wait();
  absl::MutexLock lock(&mu);
  ASSERT_EQ(order.size(), 51u);
  const auto at = std::find(order.begin(), order.end(), 1) - order.begin();
  EXPECT_LE(at, 2) << "the polite task ran after " << at << " turns of the flooding one";
}

// Reads one byte per OnReadable and arms again.
class ByteWatcher : public WorkerPool::Watcher {
 public:
  ByteWatcher(WorkerPool* pool, int fd) : pool_(pool), fd_(fd) {}
  void OnReadable() override {
    EXPECT_EQ(inside_.fetch_add(1), 0) << "two workers ran one watcher";
    char c = 0;
    if (::read(fd_, &c, 1) == 1) {
      absl::MutexLock lock(&mu_);
      got_.push_back(c);
    }
    inside_.fetch_sub(1);
    pool_->Arm(fd_, this);
  }
  std::string WaitFor(size_t n) {
    absl::MutexLock lock(&mu_);
    want_ = n;
    mu_.AwaitWithTimeout(absl::Condition(this, &ByteWatcher::Enough), absl::Seconds(10));
    return got_;
  }

 private:
  WorkerPool* pool_;
  int fd_;
  std::atomic<int> inside_{0};
  absl::Mutex mu_;
  std::string got_ ABSL_GUARDED_BY(mu_);
  size_t want_ ABSL_GUARDED_BY(mu_) = 0;
  bool Enough() const ABSL_SHARED_LOCKS_REQUIRED(mu_) { return got_.size() >= want_; }
};

TEST(WorkerPoolTest, WatcherRunsWhenItsSocketIsReadable) {
  WorkerPool pool(4);
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  ByteWatcher watcher(&pool, fds[0]);
  ASSERT_TRUE(pool.Watch(fds[0], &watcher).ok());
  for (char c : std::string("arrayd")) {
    ASSERT_EQ(::write(fds[1], &c, 1), 1);
  }
  EXPECT_EQ(watcher.WaitFor(6), "arrayd");
  pool.Unwatch(fds[0]);
  ::close(fds[0]);
  ::close(fds[1]);
}

TEST(WorkerPoolTest, BusyCountsRunningWorkOnly) {
  WorkerPool pool(2);
  EXPECT_EQ(pool.busy(), 0u);
  absl::Notification started, release;
  struct Blocking : WorkerPool::Task {
    absl::Notification* started;
    absl::Notification* release;
    absl::Notification done;
    void RunTurn() override {
      started->Notify();
      release->WaitForNotification();
      done.Notify();
    }
  } task;
  task.started = &started;
  task.release = &release;
  pool.Schedule(&task);
  started.WaitForNotification();
  EXPECT_EQ(pool.busy(), 1u);
  release.Notify();
  task.done.WaitForNotification();
}

TEST(WorkerPoolTest, NobodyPollsWhileThreadsWaitForACore) {
  WorkerPool pool(2);
  // Twice as many spinning threads as cores: some always wait for one.
  const size_t spinners = 2 * std::max(1u, std::thread::hardware_concurrency()) + 2;
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (size_t i = 0; i < spinners; ++i) {
    threads.emplace_back([&] {
      while (!stop.load(std::memory_order_relaxed)) {
      }
    });
  }
  bool polled = true;
  // The count is sampled at most every 500 us: ask for a while.
  for (int i = 0; i < 50 && polled; ++i) {
    absl::SleepFor(absl::Milliseconds(1));
    polled = pool.MayPoll();
  }
  stop = true;
  for (std::thread& t : threads) t.join();
  EXPECT_FALSE(polled);
}

}  // namespace
}  // namespace arrayd
