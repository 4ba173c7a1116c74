// WorkerPool: the threads that run every session's work and read the
// same-host sockets, about one per core however many sessions are open
// (an idle session or connection costs memory, no thread).
//
// One epoll set holds the watched sockets (each armed for one readiness at
// a time, EPOLLONESHOT) and an eventfd that stands for the FIFO of ready
// tasks. The workers themselves wait on it (leader/followers): the worker
// that sees a socket readable reads it and may run what it read at once,
// so a same-host round trip costs one wake-up, as with a thread per
// connection, without the thread. Ready tasks (sessions with queued
// messages) are served first come, first served; a task that has more to
// do after its turn schedules itself again at the tail (round robin).
//
// Thread-safe.
#ifndef ARRAYD_SESSION_WORKER_POOL_H_
#define ARRAYD_SESSION_WORKER_POOL_H_

#include <atomic>
#include <cstddef>
#include <deque>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"

namespace arrayd {

class WorkerPool {
 public:
  // Work to run on a worker. The owner keeps it alive while it is
  // scheduled or running (a Session waits for that before it goes).
  class Task {
   public:
    // One turn of the task's work; scheduling it again asks for another.
    virtual void RunTurn() = 0;

   protected:
    ~Task() = default;
  };
  // A watched file descriptor's owner: OnReadable runs on a worker once
  // per Arm (and once after Watch), never on two workers at once.
  class Watcher {
   public:
    virtual void OnReadable() = 0;

   protected:
    ~Watcher() = default;
  };

  // `workers` threads; 0: one per core (at least 2).
  explicit WorkerPool(size_t workers = 0);
  // Runs the tasks still queued, then joins the workers. Watched
  // descriptors must have been unwatched.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Queues `task` at the tail of the ready FIFO; a worker runs it once.
  // Scheduling a task that is already queued queues it twice: callers
  // keep their own "scheduled" flag (Session does).
  void Schedule(Task* task);

  // Adds `fd` to the set, armed: `watcher` runs when it is readable (or
  // hung up). Arm after each OnReadable that wants more; Unwatch before
  // the descriptor is closed, from OnReadable or while it is not armed.
  absl::Status Watch(int fd, Watcher* watcher);
  void Arm(int fd, Watcher* watcher);
  void Unwatch(int fd);

  size_t size() const { return threads_.size(); }
  // Workers running a task or a watcher now (not waiting for one).
  size_t busy() const { return busy_.load(std::memory_order_relaxed); }
  // Whether a worker (or a client, SyncReply.server_busy) may spend its
  // core polling for the other side's next message: only while at least
  // half the workers have nothing to do (the poller counts itself as busy)
  // and no thread of the machine waits for a core (the kernel's count of
  // runnable threads, /proc/loadavg, sampled at most every 500 us, against
  // the cores this process may use). Under load nobody polls: a poll then
  // takes a core from a client or a worker with work.
  bool MayPoll() const;

 private:
  void Loop();
  // Arms the eventfd, so that one waiting worker takes a task.
  void WakeOne() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Runnable threads of the machine, from /proc/loadavg (-1: unknown).
  int RunnableThreads() const;

  int epoll_fd_ = -1;
  int loadavg_fd_ = -1;  // /proc/loadavg, or -1
  size_t cores_ = 1;
  mutable std::atomic<int64_t> sampled_at_ns_{0};
  mutable std::atomic<int> runnable_{0};
  int wake_fd_ = -1;  // an eventfd, always readable; armed while tasks wait
  std::vector<std::thread> threads_;
  std::atomic<size_t> busy_{0};
  absl::Mutex mu_;
  std::deque<Task*> ready_ ABSL_GUARDED_BY(mu_);
  bool wake_armed_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
};

// A pool for sessions made without one (tests, tools): one per process,
// made on first use, never destroyed.
WorkerPool& DefaultWorkerPool();

}  // namespace arrayd

#endif  // ARRAYD_SESSION_WORKER_POOL_H_
