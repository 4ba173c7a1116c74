// Bytes in use against a limit, chained: a session's account charges its
// tenant's, which charges the server's (issue 13: quotas hold across the
// sessions of a tenant and across tenants). Thread-safe.
#ifndef ARRAYD_SESSION_MEMORY_ACCOUNT_H_
#define ARRAYD_SESSION_MEMORY_ACCOUNT_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status.h"

namespace arrayd {

class MemoryAccount {
 public:
  // `limit` 0: none. `what` names the account in errors ("the session's
  // quota", "tenant 'x''s quota", "the server's memory cap").
  MemoryAccount(std::string what, uint64_t limit, std::shared_ptr<MemoryAccount> parent = nullptr)
      : what_(std::move(what)), limit_(limit), parent_(std::move(parent)) {}

  // Charges `n` bytes here and on every parent, or nothing:
  // MemoryError (RESOURCE_EXHAUSTED) naming the first limit it would pass.
  absl::Status Charge(uint64_t n) {
    const uint64_t before = used_.fetch_add(n);
    if (limit_ != 0 && before + n > limit_) {
      used_.fetch_sub(n);
      return OutOfMemoryError(absl::StrCat("Out of memory allocating ", n, " bytes: ", what_,
                                           " is ", limit_, " bytes and ", before,
                                           " are in use"));
    }
    if (parent_) {
      absl::Status up = parent_->Charge(n);
      if (!up.ok()) {
        used_.fetch_sub(n);
        return up;
      }
    }
    return absl::OkStatus();
  }
  void Release(uint64_t n) {
    used_.fetch_sub(n);
    if (parent_) parent_->Release(n);
  }
  uint64_t used() const { return used_.load(); }
  uint64_t limit() const { return limit_; }

 private:
  const std::string what_;
  const uint64_t limit_;
  const std::shared_ptr<MemoryAccount> parent_;
  std::atomic<uint64_t> used_{0};
};

}  // namespace arrayd

#endif  // ARRAYD_SESSION_MEMORY_ACCOUNT_H_
