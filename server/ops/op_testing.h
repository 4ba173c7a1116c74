// Tests only: runs registered ops directly on a CPU stream (no session), and
// moves arrays between the host and that stream.
#ifndef ARRAYD_OPS_OP_TESTING_H_
#define ARRAYD_OPS_OP_TESTING_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backend/cpu/cpu_backend.h"
#include "common/status.h"
#include "gtest/gtest.h"
#include "ops/compose.h"
#include "ops/registry.h"

namespace arrayd {

class OpTest : public ::testing::Test {
 protected:
  // The results of op `name` on `inputs` with `attrs`, or its error.
  absl::StatusOr<std::vector<View>> RunOp(const std::string& name, std::vector<View> inputs,
                                          const compose::AttrList& attrs = {}) {
    const OpDef* def = DefaultRegistry().Find(name);
    if (def == nullptr) return absl::NotFoundError(name);
    v1::Op op;
    op.set_name(name);
    for (const auto& [key, value] : attrs) (*op.mutable_attrs())[key] = value;
    OpContext ctx(stream_.get(), op, std::move(inputs),
                  std::vector<std::optional<View>>(static_cast<size_t>(def->num_outputs)),
                  [this](size_t n) { return stream_->Allocate(n); });
    ARRAYD_RETURN_IF_ERROR(def->run(ctx));
    return std::move(ctx.results());
  }

  // The Python exception kind of op `name`'s error ("" when it succeeds).
  std::string ErrorOf(const std::string& name, std::vector<View> inputs,
                      const compose::AttrList& attrs = {}) {
    absl::StatusOr<std::vector<View>> r = RunOp(name, std::move(inputs), attrs);
    return r.ok() ? "" : ErrorKind(r.status());
  }

  template <typename T>
  View Array(const std::vector<T>& values, Shape shape, DType dtype) {
    View v =
        MakeContiguousView(*stream_->Allocate(values.size() * sizeof(T)), dtype, std::move(shape));
    EXPECT_TRUE(stream_->CopyFromHost(values.data(), v).ok());
    return v;
  }
  View Doubles(const std::vector<double>& values, Shape shape) {
    return Array(values, std::move(shape), DType::kFloat64);
  }
  View Zeros(DType dtype, Shape shape) {
    View v =
        MakeContiguousView(*stream_->Allocate(ShapeSize(shape) * ItemSize(dtype)), dtype, shape);
    EXPECT_TRUE(stream_->Fill(v, Scalar::Int(0)).ok());
    return v;
  }

  template <typename T>
  std::vector<T> Host(const View& v) {
    View c = MakeContiguousView(*stream_->Allocate(v.nbytes()), v.dtype, v.shape);
    EXPECT_TRUE(stream_->Copy(v, c).ok());
    std::vector<T> out(static_cast<size_t>(v.size()));
    EXPECT_TRUE(stream_->CopyToHost(c, out.data()).ok());
    return out;
  }

  std::unique_ptr<Backend> backend_ = cpu::CreateCpuBackend();
  std::unique_ptr<Stream> stream_ = *backend_->CreateStream();
};

}  // namespace arrayd

#endif  // ARRAYD_OPS_OP_TESTING_H_
