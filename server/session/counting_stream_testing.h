// Tests only: a CPU stream that counts the calls a session or a shared
// memory map makes for a GPU stream's sake (waits, flushes, pinning).
#ifndef ARRAYD_SESSION_COUNTING_STREAM_TESTING_H_
#define ARRAYD_SESSION_COUNTING_STREAM_TESTING_H_

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <utility>

#include "backend/backend.h"

namespace arrayd {

class CountingStream : public Stream {
 public:
  explicit CountingStream(std::unique_ptr<Stream> base) : base_(std::move(base)) {}
  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(size_t n) override {
    return base_->Allocate(n);
  }
  absl::Status CopyFromHost(const void* src, const View& dst) override {
    return base_->CopyFromHost(src, dst);
  }
  absl::Status CopyToHost(const View& src, void* dst) override {
    return base_->CopyToHost(src, dst);
  }
  absl::Status Fill(const View& out, const Scalar& value) override {
    return base_->Fill(out, value);
  }
  absl::Status Iota(const View& out, const Scalar& start, const Scalar& step) override {
    return base_->Iota(out, start, step);
  }
  absl::Status Copy(const View& src, const View& dst) override {
    See({&src, &dst});
    return base_->Copy(src, dst);
  }
  absl::Status Unary(kernels::UnaryOp op, const View& in, const View& out) override {
    See({&in, &out});
    return base_->Unary(op, in, out);
  }
  absl::Status Binary(kernels::BinaryOp op, const View& a, const View& b,
                      const View& out) override {
    See({&a, &b, &out});
    return base_->Binary(op, a, b, out);
  }
  absl::Status Reduce(kernels::ReduceOp op, const View& in, absl::Span<const int> axes,
                      const View& out) override {
    return base_->Reduce(op, in, axes, out);
  }
  absl::Status ArgReduce(kernels::ArgReduceOp op, const View& in, int axis,
                         const View& out) override {
    return base_->ArgReduce(op, in, axis, out);
  }
  // Pinning is only counted: the CPU has nothing to pin.
  absl::Status RegisterHostMemory(void* /*data*/, size_t /*n*/) override {
    ++registered;
    return absl::OkStatus();
  }
  void UnregisterHostMemory(void* /*data*/) override { ++unregistered; }
  absl::Status Synchronize() override {
    ++synchronized;
    return base_->Synchronize();
  }
  absl::Status Flush() override {
    ++flushes;
    return base_->Flush();
  }
  absl::StatusOr<std::unique_ptr<Event>> CreateEvent(EventOptions options) override {
    return base_->CreateEvent(options);
  }
  absl::Status Record(Event& event) override {
    ++records;
    return base_->Record(event);
  }
  absl::Status Wait(Event& event) override {
    ++waits;
    return base_->Wait(event);
  }
  // As a GPU's when set: the session must hand over aligned views only.
  bool RequiresAlignedViews() const override { return aligned_only; }
  absl::Status Where(const View& c, const View& x, const View& y, const View& out) override {
    return base_->Where(c, x, y, out);
  }

  int registered = 0;
  int unregistered = 0;
  int synchronized = 0;
  int flushes = 0;
  int records = 0;
  int waits = 0;
  bool aligned_only = false;
  int misaligned_seen = 0;  // views given to Copy/Unary/Binary not aligned to their type

  // Counts the views of `views` that are misaligned for their dtype.
  void See(std::initializer_list<const View*> views) {
    for (const View* v : views) {
      const int64_t item = ItemSize(v->dtype);
      const int64_t a = IsComplex(v->dtype) ? item / 2 : item;
      if (a > 1 && reinterpret_cast<uintptr_t>(v->data()) % static_cast<uintptr_t>(a) != 0) {
        ++misaligned_seen;
      }
    }
  }

 private:
  std::unique_ptr<Stream> base_;
};

// A backend whose streams are CountingStreams over `base`'s, each kept in
// `made` (in the order made) for the test to read.
class CountingBackend : public Backend {
 public:
  explicit CountingBackend(Backend* base) : base_(base) {}
  std::string name() const override { return base_->name(); }
  std::vector<DeviceDescription> Devices() const override { return base_->Devices(); }
  absl::StatusOr<std::unique_ptr<Stream>> CreateStream() override {
    auto base = base_->CreateStream();
    if (!base.ok()) return base.status();
    auto stream = std::make_unique<CountingStream>(*std::move(base));
    made.push_back(stream.get());
    return std::unique_ptr<Stream>(std::move(stream));
  }

  std::vector<CountingStream*> made;

 private:
  Backend* base_;
};

}  // namespace arrayd

#endif  // ARRAYD_SESSION_COUNTING_STREAM_TESTING_H_
