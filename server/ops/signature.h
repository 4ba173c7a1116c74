// An op's signature, declared once in its registry row and exported in
// Capabilities (arrayd.v1.OpSignature) so that both clients build their
// calls from it: family, named inputs and outputs, typed attributes with
// defaults, and for elementwise ops the dtype rule as a NumPy loop table.
//
// A signature is written as a schema string, in the style of PyTorch's
// `m.def(...)`:
//
//   "take(a, indices, *, axis: int? = None) -> out"
//   "qr(a, *, mode: str = 'reduced') -> (q, r)"
//   "put(a, indices, values) -> ()"
//   "concatenate(xs[], *, axis: int = 0) -> out"       (xs[]: any number)
//
// Attribute types: int, ints, bool, float, scalar, dtype, str, shape, data,
// index. `type?` marks an attribute that may be absent (None). The default
// is Python literal text, for documentation and for the clients' defaults;
// the server applies the same default when the attribute is absent.
//
// Loop tables are NumPy's `ufunc.types` strings ("ff->f"), type codes as
// DTypeFromTypeChar reads them. FindLoop is NumPy's linear search.
#ifndef ARRAYD_OPS_SIGNATURE_H_
#define ARRAYD_OPS_SIGNATURE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "array/dtype.h"

namespace arrayd {

// In arrayd.v1.OpFamily's order (its value is this one's + 1).
enum class OpFamily {
  kElementwise,  // a ufunc: broadcasting, a loop table
  kReduction,    // over axes, keepdims
  kScan,         // cumulative along an axis
  kIndex,        // gather/scatter/sort/selection
  kCreation,     // no array inputs
  kShape,        // views and copies: reshape, transpose, slice, astype
  kLibrary,      // cuBLAS/cuSOLVER/cuFFT/LAPACK/FFTW calls
  kRandom,       // counter-based random streams
  kTransfer,     // data in and out (shared memory)
  kFused,        // a chain of ufuncs as one kernel (ops/fusion.h)
};

// "elementwise", "reduction", ... as exported.
const char* OpFamilyName(OpFamily family);

struct AttrSpec {
  std::string name;
  std::string type;           // int, ints, bool, float, scalar, dtype, str, shape, data, index
  bool optional = false;      // may be absent (None)
  std::string default_value;  // Python literal text; "" when required
};

struct OpSignature {
  std::string name;
  OpFamily family = OpFamily::kLibrary;
  std::vector<std::string> inputs;
  bool variadic = false;  // the last input is a list (`xs[]`)
  std::vector<std::string> outputs;
  std::vector<AttrSpec> attrs;
  std::vector<std::string> loops;  // elementwise: NumPy's ufunc.types strings
  std::string identity;            // elementwise: ufunc.identity ("" none)
  std::string doc;
  std::string module;  // elementwise: a ufunc's namespace outside NumPy's ("scipy.special")
  std::string schema;  // the text it was parsed from
};

// Parses a schema string (above). INVALID_ARGUMENT naming the problem.
absl::StatusOr<OpSignature> ParseSchema(OpFamily family, absl::string_view schema, std::string doc);

// One loop of a loop table: its input and output dtypes.
struct Loop {
  std::vector<DType> in;
  std::vector<DType> out;  // empty when `refused`
  bool refused = false;    // "??->!": exactly these inputs are a TypeError
};

// "ff->f dd->d" (space separated) or a list of "ff->f": the loops, in order.
// INVALID_ARGUMENT on a malformed loop or an unknown type code.
absl::StatusOr<std::vector<Loop>> ParseLoops(absl::string_view loops);
std::vector<std::string> SplitLoops(absl::string_view loops);

// ParseLoops of a table written in this server's source; a malformed one is
// a bug that aborts at startup, naming `op`.
std::vector<Loop> MustParseLoops(absl::string_view op, absl::string_view loops);

// NumPy's loop choice for array inputs of dtypes `in`: the first loop that
// every input casts to safely (a refusing loop: that the inputs equal); with `out_dtype` (NumPy's
// dtype=, which fixes the output), the first loop with that output that the inputs reach by
// same_kind casting. nullptr when none fits (NumPy's TypeError).
const Loop* FindLoop(const std::vector<Loop>& loops, const std::vector<DType>& in,
                     DType out_dtype = DType::kInvalid);

}  // namespace arrayd

#endif  // ARRAYD_OPS_SIGNATURE_H_
