#include "session/worker_pool.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

namespace arrayd {
namespace {

// A watched descriptor is armed for input (and hang-up, which epoll always
// reports) once: the worker that gets it has it alone until it arms it
// again.
constexpr uint32_t kArmed = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT;

}  // namespace

WorkerPool::WorkerPool(size_t workers) {
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  cores_ = sched_getaffinity(0, sizeof(cpus), &cpus) == 0
               ? static_cast<size_t>(CPU_COUNT(&cpus))
               : std::max(1u, std::thread::hardware_concurrency());
  if (workers == 0) workers = std::max<size_t>(2, cores_);
  loadavg_fd_ = ::open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  // Value 1 and never read: always readable, so arming it wakes one waiter.
  wake_fd_ = ::eventfd(1, EFD_CLOEXEC | EFD_NONBLOCK);
  if (epoll_fd_ < 0 || wake_fd_ < 0) {
    spdlog::critical("worker pool: epoll or eventfd: {}", std::strerror(errno));
    std::abort();  // no way to run any session; at start-up only
  }
  epoll_event ev{};
  ev.events = EPOLLONESHOT;  // not armed until a task waits
  ev.data.ptr = nullptr;     // the wake-up, told apart from watchers
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev) != 0) {
    spdlog::critical("worker pool: epoll_ctl: {}", std::strerror(errno));
    std::abort();
  }
  threads_.reserve(workers);
  for (size_t i = 0; i < workers; ++i) {
    threads_.emplace_back([this] { Loop(); });
    pthread_setname_np(threads_.back().native_handle(), "arrayd-worker");
  }
}

WorkerPool::~WorkerPool() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    WakeOne();
  }
  for (std::thread& t : threads_) t.join();
  ::close(wake_fd_);
  ::close(epoll_fd_);
  if (loadavg_fd_ >= 0) ::close(loadavg_fd_);
}

bool WorkerPool::MayPoll() const {
  if (busy() > std::max<size_t>(1, size() / 2)) return false;
  const int runnable = RunnableThreads();
  return runnable < 0 || static_cast<size_t>(runnable) <= cores_;
}

int WorkerPool::RunnableThreads() const {
  if (loadavg_fd_ < 0) return -1;
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
  int64_t at = sampled_at_ns_.load(std::memory_order_relaxed);
  // One thread samples (the others use the last count meanwhile).
  if (now - at > 500'000 &&
      sampled_at_ns_.compare_exchange_strong(at, now, std::memory_order_relaxed)) {
    // "0.52 0.58 0.59 3/617 12345": the fourth field is running/threads.
    char buf[128];
    const ssize_t n = ::pread(loadavg_fd_, buf, sizeof(buf) - 1, 0);
    int runnable = -1;
    if (n > 0) {
      buf[n] = '\0';
      const char* p = buf;
      for (int field = 0; field < 3 && p != nullptr; ++field) {
        p = std::strchr(p, ' ');
        if (p != nullptr) ++p;
      }
      if (p != nullptr) runnable = std::atoi(p);
    }
    runnable_.store(runnable, std::memory_order_relaxed);
  }
  return runnable_.load(std::memory_order_relaxed);
}

void WorkerPool::Schedule(Task* task) {
  absl::MutexLock lock(&mu_);
  ready_.push_back(task);
  WakeOne();
}

void WorkerPool::WakeOne() {
  if (wake_armed_) return;
  wake_armed_ = true;
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLONESHOT;
  ev.data.ptr = nullptr;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, wake_fd_, &ev) != 0) {
    spdlog::critical("worker pool: epoll_ctl: {}", std::strerror(errno));
    std::abort();  // tasks would never run again
  }
}

absl::Status WorkerPool::Watch(int fd, Watcher* watcher) {
  epoll_event ev{};
  ev.events = kArmed;
  ev.data.ptr = watcher;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
    return absl::InternalError(absl::StrCat("epoll_ctl: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

void WorkerPool::Arm(int fd, Watcher* watcher) {
  epoll_event ev{};
  ev.events = kArmed;
  ev.data.ptr = watcher;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &ev) != 0) {
    // Only for a descriptor that is no longer watched: a bug of the owner.
    spdlog::error("worker pool: arming descriptor {}: {}", fd, std::strerror(errno));
  }
}

void WorkerPool::Unwatch(int fd) { (void)::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr); }

void WorkerPool::Loop() {
  while (true) {
    epoll_event ev{};
    const int n = ::epoll_wait(epoll_fd_, &ev, 1, -1);
    if (n < 0 && errno != EINTR) {
      spdlog::critical("worker pool: epoll_wait: {}", std::strerror(errno));
      std::abort();
    }
    if (n <= 0) continue;
    if (ev.data.ptr != nullptr) {
      busy_.fetch_add(1, std::memory_order_relaxed);
      static_cast<Watcher*>(ev.data.ptr)->OnReadable();
      busy_.fetch_sub(1, std::memory_order_relaxed);
      continue;
    }
    Task* task = nullptr;
    {
      absl::MutexLock lock(&mu_);
      wake_armed_ = false;
      if (!ready_.empty()) {
        task = ready_.front();
        ready_.pop_front();
      }
      // The next waiter takes the next task (or sees the pool stop).
      if (!ready_.empty() || stopping_) WakeOne();
      if (task == nullptr && stopping_) return;
    }
    if (task == nullptr) continue;
    busy_.fetch_add(1, std::memory_order_relaxed);
    task->RunTurn();
    busy_.fetch_sub(1, std::memory_order_relaxed);
  }
}

WorkerPool& DefaultWorkerPool() {
  static WorkerPool* pool = new WorkerPool();  // never destroyed: sessions may outlive main
  return *pool;
}

}  // namespace arrayd
