// Bytes in use against a limit, chained: a session's account charges its
// tenant's, which charges the server's (issue 13: quotas hold across the
// sessions of a tenant and across tenants). Thread-safe.
#ifndef ARRAYD_SESSION_MEMORY_ACCOUNT_H_
#define ARRAYD_SESSION_MEMORY_ACCOUNT_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/status.h"

namespace arrayd {

class MemoryAccount {
 public:
  // `limit` 0: none. `what` names the account in errors ("the session's
  // quota", "tenant 'x''s quota", "the server's memory cap").
  MemoryAccount(std::string what, uint64_t limit, std::shared_ptr<MemoryAccount> parent = nullptr)
      : what_(std::move(what)), limit_(limit), parent_(std::move(parent)) {}
  ~MemoryAccount() {
    absl::MutexLock lock(&credit_mu_);
    if (parent_ && credit_ > 0) parent_->Release(credit_);
  }
  MemoryAccount(const MemoryAccount&) = delete;
  MemoryAccount& operator=(const MemoryAccount&) = delete;

  // Charges `n` bytes here and on every parent, or nothing:
  // MemoryError (RESOURCE_EXHAUSTED) naming the first limit it would pass.
  //
  // The parents are charged in chunks of at least kChunk bytes that this
  // account then spends (its credit): the tenant's and the server's
  // counters, shared by every session, are touched about once per kChunk
  // bytes rather than at every small array (their cache line would bounce
  // between the sessions' threads). A parent's count is therefore ahead of
  // what is in use by at most 2 * kChunk per child.
  // `asked` is the allocation's size, for the message (a parent is charged
  // a chunk, not the allocation).
  absl::Status Charge(uint64_t n, uint64_t asked = 0) {
    const uint64_t before = used_.fetch_add(n);
    const uint64_t limit = limit_.load(std::memory_order_relaxed);
    if (limit != 0 && before + n > limit) {
      used_.fetch_sub(n);
      return OutOfMemoryError(absl::StrCat("Out of memory allocating ", asked != 0 ? asked : n,
                                           " bytes: ", what_,
                                           " is ", limit, " bytes and ", before,
                                           " are in use"));
    }
    if (!parent_) return absl::OkStatus();
    absl::MutexLock lock(&credit_mu_);
    if (credit_ >= n) {
      credit_ -= n;
      return absl::OkStatus();
    }
    const uint64_t need = n - credit_;
    uint64_t got = std::max(need, kChunk);
    absl::Status up = parent_->Charge(got, asked != 0 ? asked : n);
    if (!up.ok() && got > need) {  // near the parent's limit: just what is needed
      got = need;
      up = parent_->Charge(got, asked != 0 ? asked : n);
    }
    if (!up.ok()) {
      used_.fetch_sub(n);
      return up;
    }
    credit_ = got - need;
    return absl::OkStatus();
  }
  void Release(uint64_t n) {
    used_.fetch_sub(n);
    if (!parent_) return;
    absl::MutexLock lock(&credit_mu_);
    credit_ += n;
    if (credit_ > 2 * kChunk) {
      parent_->Release(credit_ - kChunk);
      credit_ = kChunk;
    }
  }
  uint64_t used() const { return used_.load(); }
  uint64_t limit() const { return limit_.load(); }
  // A new limit (0: none) for later charges; bytes in use stay.
  void set_limit(uint64_t limit) { limit_ = limit; }

  static constexpr uint64_t kChunk = uint64_t{1} << 20;

 private:
  const std::string what_;
  std::atomic<uint64_t> limit_;
  const std::shared_ptr<MemoryAccount> parent_;
  std::atomic<uint64_t> used_{0};
  absl::Mutex credit_mu_;
  uint64_t credit_ ABSL_GUARDED_BY(credit_mu_) = 0;  // charged on the parent, not used here
};

}  // namespace arrayd

#endif  // ARRAYD_SESSION_MEMORY_ACCOUNT_H_
