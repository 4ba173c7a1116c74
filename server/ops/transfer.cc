// Bulk transfers through a same-host client's shared memory segment (a
// sealed memfd it sent over the same-host socket, see SharedMemoryMap): the
// client copies its numpy array into the segment and names it in
// `upload_shm`, or names it in `download_shm` and copies out after the sync.
// Ordered with the session's other ops, so a download sees every op before.
// `release_shm` makes the server forget a segment (unmapped and closed).
#include <string>

#include "absl/strings/str_cat.h"
#include "common/metrics.h"
#include "common/status.h"
#include "ops/registry.h"

namespace arrayd {
namespace {

absl::StatusOr<char*> Segment(OpContext& ctx, uint64_t nbytes) {
  if (ctx.shared_memory() == nullptr) {
    return absl::FailedPreconditionError("shared memory transfers need a session");
  }
  ARRAYD_ASSIGN_OR_RETURN(Scalar offset_attr, ctx.attrs().GetScalar("offset"));
  if (offset_attr.kind != Scalar::kInt || offset_attr.i < 0) {
    return ValueError("shared memory offset must be a non-negative integer");
  }
  const uint64_t offset = static_cast<uint64_t>(offset_attr.i);
  uint64_t end = 0;
  if (__builtin_add_overflow(offset, nbytes, &end)) {
    return ValueError("shared memory offset past the addressable range");
  }
  ARRAYD_ASSIGN_OR_RETURN(std::string name, ctx.attrs().String("segment"));
  ARRAYD_ASSIGN_OR_RETURN(char* base, ctx.shared_memory()->Map(name, end));
  return base + offset;
}

absl::Status RunUploadShm(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(Shape shape, ctx.attrs().GetShape("shape"));
  ARRAYD_ASSIGN_OR_RETURN(DType dtype, ctx.attrs().GetDType("dtype"));
  // Into an existing array (ndarray.set) directly when it is C-contiguous.
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.ContiguousOutputFor(0, dtype, shape));
  ARRAYD_ASSIGN_OR_RETURN(char* src, Segment(ctx, static_cast<uint64_t>(out.nbytes())));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().CopyFromHost(src, out));
  Metrics().Uploaded(Transport::kSharedMemory, static_cast<uint64_t>(out.nbytes()));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

absl::Status RunDownloadShm(OpContext& ctx) {
  View x = ctx.input(0);
  if (!x.IsCContiguous()) {
    ARRAYD_ASSIGN_OR_RETURN(x, ctx.ContiguousCopy(x));
  }
  ARRAYD_ASSIGN_OR_RETURN(char* dst, Segment(ctx, static_cast<uint64_t>(x.nbytes())));
  Metrics().Downloaded(Transport::kSharedMemory, static_cast<uint64_t>(x.nbytes()));
  return ctx.stream().CopyToHost(x, dst);
}

absl::Status RunReleaseShm(OpContext& ctx) {
  if (ctx.shared_memory() == nullptr) {
    return absl::FailedPreconditionError("shared memory transfers need a session");
  }
  ARRAYD_ASSIGN_OR_RETURN(std::string name, ctx.attrs().String("segment"));
  // No stream of the session still copies from or to the segment:
  // upload_shm's and download_shm's copies are done when they return
  // (Stream's contract for host copies), whatever stream they ran on.
  return ctx.shared_memory()->Release(name);
}

}  // namespace

void RegisterTransferOps(OpRegistry* r) {
  const OpFamily f = OpFamily::kTransfer;
  r->Register(f, "upload_shm(*, segment: str, offset: scalar, shape: shape, dtype: dtype) -> out",
              "Array from C-order bytes in the client's shared memory segment.", RunUploadShm);
  r->Register(f, "download_shm(a, *, segment: str, offset: scalar) -> ()",
              "Writes an array's C-order bytes into the client's shared memory segment.",
              RunDownloadShm);
  r->Register(f, "release_shm(*, segment: str) -> ()",
              "Unmaps (and unpins) a shared memory segment of the session.",
              RunReleaseShm);
}

}  // namespace arrayd
