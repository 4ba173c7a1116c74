#include "ops/signature.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/status.h"

namespace arrayd {
namespace {

constexpr absl::string_view kAttrTypes[] = {"int",   "ints", "bool",  "float", "scalar",
                                            "dtype", "str",  "shape", "data",  "index"};

bool IsIdentifier(absl::string_view s) {
  if (s.empty() || absl::ascii_isdigit(s[0])) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return absl::ascii_isalnum(c) || c == '_'; });
}

absl::Status SchemaError(absl::string_view schema, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("op schema \"", schema, "\": ", why));
}

// "a, b" or "(a, b)" or "()" -> names.
absl::StatusOr<std::vector<std::string>> ParseNames(absl::string_view schema, absl::string_view s) {
  s = absl::StripAsciiWhitespace(s);
  if (absl::ConsumePrefix(&s, "(")) {
    if (!absl::ConsumeSuffix(&s, ")")) return SchemaError(schema, "unbalanced ( in the outputs");
  }
  std::vector<std::string> names;
  if (absl::StripAsciiWhitespace(s).empty()) return names;
  for (absl::string_view part : absl::StrSplit(s, ',')) {
    names.emplace_back(absl::StripAsciiWhitespace(part));
  }
  return names;
}

}  // namespace

const char* OpFamilyName(OpFamily family) {
  switch (family) {
    case OpFamily::kElementwise: return "elementwise";
    case OpFamily::kReduction: return "reduction";
    case OpFamily::kScan: return "scan";
    case OpFamily::kIndex: return "index";
    case OpFamily::kCreation: return "creation";
    case OpFamily::kShape: return "shape";
    case OpFamily::kLibrary: return "library";
    case OpFamily::kRandom: return "random";
    case OpFamily::kTransfer: return "transfer";
    case OpFamily::kFused: return "fused";
  }
  return "unknown";
}

absl::StatusOr<OpSignature> ParseSchema(OpFamily family, absl::string_view schema,
                                        std::string doc) {
  OpSignature sig;
  sig.family = family;
  sig.doc = std::move(doc);
  sig.schema = std::string(schema);
  const size_t open = schema.find('(');
  const size_t arrow = schema.rfind("->");
  const size_t close = arrow == absl::string_view::npos ? arrow : schema.rfind(')', arrow);
  if (open == absl::string_view::npos || arrow == absl::string_view::npos ||
      close == absl::string_view::npos || close < open) {
    return SchemaError(schema, "expected name(inputs, *, attrs) -> outputs");
  }
  sig.name = std::string(absl::StripAsciiWhitespace(schema.substr(0, open)));
  if (!IsIdentifier(sig.name)) return SchemaError(schema, "bad op name");

  bool in_attrs = false;
  absl::string_view params = schema.substr(open + 1, close - open - 1);
  for (absl::string_view raw : absl::StrSplit(params, ',', absl::SkipWhitespace())) {
    absl::string_view p = absl::StripAsciiWhitespace(raw);
    if (p == "*") {
      if (in_attrs) return SchemaError(schema, "a second *");
      in_attrs = true;
      continue;
    }
    if (!in_attrs) {
      if (sig.variadic) return SchemaError(schema, "inputs after a variadic input");
      std::string name(p);
      if (absl::ConsumeSuffix(&p, "[]")) {
        sig.variadic = true;
        name = std::string(p);
      }
      if (!IsIdentifier(name)) return SchemaError(schema, absl::StrCat("bad input name '", p, "'"));
      sig.inputs.push_back(name);
      continue;
    }
    // attr: type[?] [= default]
    AttrSpec a;
    absl::string_view rest = p;
    const size_t colon = rest.find(':');
    if (colon == absl::string_view::npos) {
      return SchemaError(schema, absl::StrCat("attribute '", p, "' has no type"));
    }
    a.name = std::string(absl::StripAsciiWhitespace(rest.substr(0, colon)));
    rest = rest.substr(colon + 1);
    const size_t eq = rest.find('=');
    if (eq != absl::string_view::npos) {
      a.default_value = std::string(absl::StripAsciiWhitespace(rest.substr(eq + 1)));
      rest = rest.substr(0, eq);
    }
    absl::string_view type = absl::StripAsciiWhitespace(rest);
    a.optional = absl::ConsumeSuffix(&type, "?");
    a.type = std::string(type);
    if (!IsIdentifier(a.name))
      return SchemaError(schema, absl::StrCat("bad attribute name '", a.name, "'"));
    if (std::find(std::begin(kAttrTypes), std::end(kAttrTypes), a.type) == std::end(kAttrTypes)) {
      return SchemaError(schema,
                         absl::StrCat("attribute '", a.name, "' has unknown type '", a.type, "'"));
    }
    if (a.optional && a.default_value.empty()) a.default_value = "None";
    sig.attrs.push_back(std::move(a));
  }
  ARRAYD_ASSIGN_OR_RETURN(sig.outputs, ParseNames(schema, schema.substr(arrow + 2)));
  for (const std::string& o : sig.outputs) {
    if (!IsIdentifier(o)) return SchemaError(schema, absl::StrCat("bad output name '", o, "'"));
  }
  return sig;
}

std::vector<std::string> SplitLoops(absl::string_view loops) {
  return absl::StrSplit(loops, ' ', absl::SkipWhitespace());
}

absl::StatusOr<std::vector<Loop>> ParseLoops(absl::string_view loops) {
  std::vector<Loop> out;
  for (absl::string_view text : absl::StrSplit(loops, ' ', absl::SkipWhitespace())) {
    std::vector<absl::string_view> sides = absl::StrSplit(text, "->");
    if (sides.size() != 2 || sides[0].empty() || sides[1].empty()) {
      return absl::InvalidArgumentError(absl::StrCat("malformed loop '", text, "'"));
    }
    Loop loop;
    if (sides[1] == "!") {
      loop.refused = true;
      sides[1] = "";
    }
    for (int side = 0; side < 2; ++side) {
      for (char c : sides[side]) {
        DType d = DTypeFromTypeChar(c);
        if (d == DType::kInvalid) {
          return absl::InvalidArgumentError(
              absl::StrCat("loop '", text, "': unknown type code '", std::string(1, c), "'"));
        }
        (side == 0 ? loop.in : loop.out).push_back(d);
      }
    }
    const Loop* first = out.empty() ? nullptr : &out[0];
    if (first != nullptr &&
        (loop.in.size() != first->in.size() ||
         (!loop.refused && !first->refused && loop.out.size() != first->out.size()))) {
      return absl::InvalidArgumentError(absl::StrCat("loop '", text, "' has another arity"));
    }
    out.push_back(std::move(loop));
  }
  return out;
}

std::vector<Loop> MustParseLoops(absl::string_view op, absl::string_view loops) {
  absl::StatusOr<std::vector<Loop>> parsed = ParseLoops(loops);
  if (!parsed.ok()) {
    std::fprintf(stderr, "arrayd: op %s: %s\n", std::string(op).c_str(),
                 std::string(parsed.status().message()).c_str());
    std::abort();
  }
  return *std::move(parsed);
}

const Loop* FindLoop(const std::vector<Loop>& loops, const std::vector<DType>& in,
                     DType out_dtype) {
  // NumPy 2 takes a loop of exactly the inputs' dtypes before its linear
  // search (SciPy's tables list float64 first: float32 still runs in float32).
  if (out_dtype == DType::kInvalid) {
    for (const Loop& loop : loops) {
      if (loop.in == in) return loop.refused ? nullptr : &loop;
    }
  }
  for (const Loop& loop : loops) {
    if (loop.in.size() != in.size()) continue;
    if (loop.refused) {
      if (loop.in == in) return nullptr;
      continue;
    }
    if (out_dtype != DType::kInvalid && loop.out[0] != out_dtype) continue;
    bool fits = true;
    for (size_t i = 0; i < in.size() && fits; ++i) {
      fits = out_dtype == DType::kInvalid ? CanCastSafely(in[i], loop.in[i])
                                          : CanCastSameKind(in[i], loop.in[i]);
    }
    if (fits) return &loop;
  }
  return nullptr;
}

}  // namespace arrayd
