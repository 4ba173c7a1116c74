// Matrix products: matmul with NumPy's rules (1-D operands promoted and
// squeezed, batch dimensions broadcast), on the backend's batched Matmul.
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status.h"
#include "ops/registry.h"

namespace arrayd {
namespace {

absl::Status RunMatmul(OpContext& ctx) {
  View a = ctx.input(0), b = ctx.input(1);
  for (int i = 0; i < 2; ++i) {
    if (ctx.input(i).ndim() == 0) {
      return ValueError(absl::StrCat("matmul: Input operand ", i,
                                     " does not have enough dimensions (has 0, gufunc core with "
                                     "signature (n?,k),(k,m?)->(n?,m?) requires 1)"));
    }
  }
  const bool a_vec = a.ndim() == 1, b_vec = b.ndim() == 1;
  if (a_vec) TryReshapeView(a, {1, a.shape[0]}, &a);
  if (b_vec) TryReshapeView(b, {b.shape[0], 1}, &b);
  const int64_t m = a.shape[a.ndim() - 2], k = a.shape[a.ndim() - 1];
  const int64_t k2 = b.shape[b.ndim() - 2], n = b.shape[b.ndim() - 1];
  if (k != k2) {
    return ValueError(absl::StrCat("matmul: Input operand 1 has a mismatch in its core dimension 0, "
                                   "with gufunc signature (n?,k),(k,m?)->(n?,m?) (size ",
                                   k2, " is different from ", k, ")"));
  }
  Shape a_batch(a.shape.begin(), a.shape.end() - 2), b_batch(b.shape.begin(), b.shape.end() - 2);
  ARRAYD_ASSIGN_OR_RETURN(Shape batch, BroadcastShapes({a_batch, b_batch}));
  DType dtype = Promote(a.dtype, b.dtype);
  // Contiguous (B, m, k) and (B, k, n) operands for the backend.
  Shape a_full = batch, b_full = batch;
  a_full.insert(a_full.end(), {m, k});
  b_full.insert(b_full.end(), {k, n});
  ARRAYD_ASSIGN_OR_RETURN(View ab, BroadcastTo(a, a_full));
  ARRAYD_ASSIGN_OR_RETURN(View bb, BroadcastTo(b, b_full));
  const int64_t nbatch = ShapeSize(batch);
  View a3, b3;
  if (ab.dtype != dtype || !ab.IsCContiguous()) {
    ARRAYD_ASSIGN_OR_RETURN(ab, ctx.ContiguousCopy(ab, dtype));
  }
  if (bb.dtype != dtype || !bb.IsCContiguous()) {
    ARRAYD_ASSIGN_OR_RETURN(bb, ctx.ContiguousCopy(bb, dtype));
  }
  TryReshapeView(ab, {nbatch, m, k}, &a3);
  TryReshapeView(bb, {nbatch, k, n}, &b3);
  Shape out_full = batch;
  out_full.insert(out_full.end(), {m, n});
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(dtype, out_full));
  View out3;
  TryReshapeView(out, {nbatch, m, n}, &out3);
  if (k == 0) {
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Fill(out, Scalar::Int(0)));
  } else {
    ARRAYD_RETURN_IF_ERROR(ctx.stream().Matmul(a3, b3, out3));
  }
  // Squeeze the dimensions that 1-D operands added.
  Shape result = batch;
  if (!a_vec) result.push_back(m);
  if (!b_vec) result.push_back(n);
  View squeezed;
  TryReshapeView(out, result, &squeezed);
  ctx.SetResult(0, squeezed);
  return absl::OkStatus();
}

}  // namespace

void RegisterLinalgOps(OpRegistry* r) {
  r->Register({"matmul", 2, 1, {}, "NumPy's matmul (batched, broadcasting, 1-D cases).", RunMatmul});
}

}  // namespace arrayd
