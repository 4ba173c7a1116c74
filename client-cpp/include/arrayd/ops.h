// Every op of the server from C++, with no per-op client code: the calls
// below read each op's signature from the server's capabilities
// (arrayd.v1.OpSignature: family, inputs, outputs, attributes, loop table).
//
//   arrayd::Array h = arrayd::Ufunc("hypot", a, b);       // NumPy's loop choice
//   arrayd::Array m = arrayd::Ufunc("maximum", a, 0.5);   // a weak scalar (NEP 50)
//   arrayd::Array s = arrayd::Reduce("sum", a, {{0}});    // int8 -> int64, as NumPy
//   std::vector<arrayd::Array> qr =
//       arrayd::Call(*client, "qr", {a}, {{"mode", arrayd::Attr("complete")}});
//
// Ufunc and Reduce compute the result's dtype (from the op's loop table,
// NumPy's linear search, weak scalars first) and shape (broadcasting, axes)
// as the Python client does, so nothing waits for the server. Call records
// any op; the dtypes and shapes of its results come from the server and are
// read, with one sync, the first time anybody asks (dtype(), shape(), or an
// op taking the array). The typed methods of Array and the functions of
// numeric.h are sugar over the same path.
//
// Errors as everywhere in the client (client.h): an op the signature refuses
// (unknown op, wrong arity, no loop for the dtypes: NumPy's TypeError, an
// unknown attribute) returns an Array whose status() says why.
#ifndef ARRAYD_CLIENT_OPS_H_
#define ARRAYD_CLIENT_OPS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "arrayd/client.h"
#include "arrayd/dtype.h"
#include "arrayd/v1/arrayd.pb.h"

namespace arrayd {
inline namespace client {

// An input of a ufunc: an Array, or a C++ scalar that is weak as a Python
// scalar is in NumPy (NEP 50: `int8_array + 1` stays int8).
class Operand {
 public:
  Operand(const Array& a) : array_(a) {}    // NOLINT: implicit on purpose
  Operand(const Scalar& s) : scalar_(s) {}  // NOLINT
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  Operand(T v) : scalar_(Scalar(v)) {}  // NOLINT

  bool is_array() const { return !scalar_.has_value(); }
  const Array& array() const { return array_; }
  const Scalar& scalar() const { return *scalar_; }

 private:
  Array array_;
  std::optional<Scalar> scalar_;
};

// The ufunc `name` (an elementwise op of the server) on one or two operands;
// at least one must be an Array (else use the overload with a Client).
Array Ufunc(const std::string& name, const Operand& x);
Array Ufunc(const std::string& name, const Operand& x1, const Operand& x2);
// The same when every operand may be a scalar.
Array Ufunc(Client& client, const std::string& name, const std::vector<Operand>& operands);

// The reduction `name` (sum, prod, min, max, all, any, mean, ...) over `axes`
// (negative ones count from the end; none: every axis), NumPy's result dtype
// from the op's loop table unless `dtype` is given.
Array Reduce(const std::string& name, const Array& a,
             std::optional<std::vector<int64_t>> axes = std::nullopt, bool keepdims = false,
             std::optional<DType> dtype = std::nullopt);

// Any op of the server by name: its array inputs and attributes (checked
// against its signature here, and again by the server); one Array per output
// of its signature, whose dtype and shape the server tells (see above).
std::vector<Array> Call(Client& client, const std::string& name, const std::vector<Array>& inputs,
                        const std::map<std::string, v1::AttrValue>& attrs = {});

// Attribute values for Call.
v1::AttrValue Attr(int64_t v);
v1::AttrValue Attr(int v);
v1::AttrValue Attr(double v);
v1::AttrValue Attr(bool v);
v1::AttrValue Attr(const char* v);
v1::AttrValue Attr(const std::string& v);
v1::AttrValue Attr(const std::vector<int64_t>& v);
v1::AttrValue Attr(DType v);

// The signature of op `name` from the server's capabilities; nullptr when
// the server has no such op.
const v1::OpSignature* FindSignature(const Client& client, const std::string& name);

}  // namespace client
}  // namespace arrayd

#endif  // ARRAYD_CLIENT_OPS_H_
