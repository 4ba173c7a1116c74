// User kernels (arrayd.RawModule, RawKernel; the Python client generates
// the code of ElementwiseKernel, ReductionKernel and fuse and launches it
// through these ops too). Off unless the server runs with
// --allow-user-kernels: the code runs inside the server every client shares.
//
//   module_load      compiles (or finds in the server's cache) a module and
//                    binds it to the session's module id
//   kernel_attributes the kernel's cudaFuncAttributes
//   kernel_launch    queues a kernel on the op's stream: array inputs are
//                    passed as device pointers, scalars as raw bytes
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/status.h"
#include "ops/registry.h"

namespace arrayd {
namespace {

// The largest by-value parameter (complex128).
constexpr int64_t kMaxScalarBytes = 16;

absl::StatusOr<SessionHooks*> UserKernelSession(OpContext& ctx) {
  SessionHooks* session = ctx.session();
  if (session == nullptr) return absl::FailedPreconditionError("not in a session");
  if (!session->user_kernels_allowed()) {
    return absl::PermissionDeniedError(
        "user kernels are off on this server: they run arbitrary device code inside the "
        "server every client shares; start arrayd with --allow-user-kernels to allow them");
  }
  return session;
}

// A list attribute sent as one string, items separated by newlines.
absl::StatusOr<std::vector<std::string>> Lines(const Attrs& attrs, const std::string& name) {
  if (!attrs.Has(name)) return std::vector<std::string>{};
  ARRAYD_ASSIGN_OR_RETURN(std::string joined, attrs.String(name));
  std::vector<std::string> out;
  for (absl::string_view item : absl::StrSplit(joined, '\n', absl::SkipEmpty())) {
    out.emplace_back(item);
  }
  return out;
}

absl::StatusOr<KernelModule*> FindModule(SessionHooks* session, const Attrs& attrs) {
  ARRAYD_ASSIGN_OR_RETURN(int64_t id, attrs.Int("module"));
  KernelModule* module = session->FindModule(static_cast<uint64_t>(id));
  if (module == nullptr) {
    return absl::NotFoundError(absl::StrCat("module ", id, " was not loaded (module_load)"));
  }
  return module;
}

// out: [origin], 0 compiled now, 1 from the server's memory cache (another
// session, or this one, loaded it before), 2 from the disk cache; log: the
// compiler's messages (warnings) as uint8 text, kept with the module.
absl::Status RunModuleLoad(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(SessionHooks * session, UserKernelSession(ctx));
  KernelModuleSpec spec;
  ARRAYD_ASSIGN_OR_RETURN(int64_t id, ctx.attrs().Int("module"));
  if (ctx.attrs().Has("source")) {
    ARRAYD_ASSIGN_OR_RETURN(spec.source, ctx.attrs().String("source"));
  }
  ARRAYD_ASSIGN_OR_RETURN(spec.options, Lines(ctx.attrs(), "options"));
  ARRAYD_ASSIGN_OR_RETURN(spec.name_expressions, Lines(ctx.attrs(), "name_expressions"));
  if (ctx.attrs().Has("image")) {
    ARRAYD_ASSIGN_OR_RETURN(const std::string* image, ctx.attrs().Data("image"));
    spec.image = *image;
  }
  if (spec.source.empty() == spec.image.empty()) {
    return ValueError("module_load needs exactly one of `source` and `image`");
  }
  ModuleOrigin origin = ModuleOrigin::kCompiled;
  ARRAYD_ASSIGN_OR_RETURN(std::shared_ptr<KernelModule> module,
                          ctx.stream().LoadModule(spec, &origin));
  const std::string log = module->log();
  ARRAYD_RETURN_IF_ERROR(session->AddModule(static_cast<uint64_t>(id), std::move(module)));
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.NewArray(DType::kInt64, {1}));
  const int64_t host = static_cast<int64_t>(origin);
  ARRAYD_RETURN_IF_ERROR(ctx.stream().CopyFromHost(&host, out));
  ctx.SetResult(0, out);
  ARRAYD_ASSIGN_OR_RETURN(View text, ctx.NewArray(DType::kUInt8, {static_cast<int64_t>(log.size())}));
  if (!log.empty()) ARRAYD_RETURN_IF_ERROR(ctx.stream().CopyFromHost(log.data(), text));
  ctx.SetResult(1, text);
  return absl::OkStatus();
}

absl::Status RunKernelAttributes(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(SessionHooks * session, UserKernelSession(ctx));
  ARRAYD_ASSIGN_OR_RETURN(KernelModule * module, FindModule(session, ctx.attrs()));
  ARRAYD_ASSIGN_OR_RETURN(std::string name, ctx.attrs().String("name"));
  ARRAYD_ASSIGN_OR_RETURN(KernelAttributes a, ctx.stream().GetKernelAttributes(*module, name));
  const int64_t host[] = {a.max_threads_per_block, a.num_regs, a.shared_size_bytes,
                          a.const_size_bytes,      a.local_size_bytes, a.ptx_version,
                          a.binary_version,        a.max_dynamic_shared_size_bytes,
                          a.preferred_shared_memory_carveout, a.cache_mode_ca};
  ARRAYD_ASSIGN_OR_RETURN(View out,
                          ctx.NewArray(DType::kInt64, {static_cast<int64_t>(std::size(host))}));
  ARRAYD_RETURN_IF_ERROR(ctx.stream().CopyFromHost(host, out));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

// Up to three positive dimensions, the rest 1.
absl::Status Dims(const Attrs& attrs, const std::string& name, unsigned out[3]) {
  ARRAYD_ASSIGN_OR_RETURN(std::vector<int64_t> dims, attrs.Ints(name));
  if (dims.empty() || dims.size() > 3) {
    return ValueError(absl::StrCat(name, " must have 1 to 3 dimensions, got ", dims.size()));
  }
  for (size_t d = 0; d < 3; ++d) {
    const int64_t v = d < dims.size() ? dims[d] : 1;
    if (v <= 0 || v > UINT32_MAX) {
      return ValueError(absl::StrCat(name, " dimensions must be positive 32-bit numbers, got ", v));
    }
    out[d] = static_cast<unsigned>(v);
  }
  return absl::OkStatus();
}

// `params`: one entry per kernel parameter, -1 for the next array input
// (its device pointer), else the size in bytes of a by-value scalar, taken
// in order from the bytes of `scalars`.
absl::Status RunKernelLaunch(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(SessionHooks * session, UserKernelSession(ctx));
  ARRAYD_ASSIGN_OR_RETURN(KernelModule * module, FindModule(session, ctx.attrs()));
  ARRAYD_ASSIGN_OR_RETURN(std::string name, ctx.attrs().String("name"));
  LaunchDims dims;
  ARRAYD_RETURN_IF_ERROR(Dims(ctx.attrs(), "grid", dims.grid));
  ARRAYD_RETURN_IF_ERROR(Dims(ctx.attrs(), "block", dims.block));
  int64_t shared_mem = 0;
  if (ctx.attrs().Has("shared_mem")) {
    ARRAYD_ASSIGN_OR_RETURN(shared_mem, ctx.attrs().Int("shared_mem"));
  }
  if (shared_mem < 0 || shared_mem > UINT32_MAX) {
    return ValueError(absl::StrCat("shared_mem must be a non-negative byte count, got ", shared_mem));
  }
  dims.shared_mem = static_cast<unsigned>(shared_mem);
  ARRAYD_ASSIGN_OR_RETURN(std::vector<int64_t> params, ctx.attrs().Ints("params"));
  const std::string* scalars = nullptr;
  static const std::string kNone;
  if (ctx.attrs().Has("scalars")) {
    ARRAYD_ASSIGN_OR_RETURN(scalars, ctx.attrs().Data("scalars"));
  } else {
    scalars = &kNone;
  }
  // Every parameter's value in a 16-byte slot: the driver reads as many
  // bytes as the kernel's parameter has, never past the slot.
  struct alignas(16) Slot {
    char bytes[kMaxScalarBytes];
  };
  std::vector<Slot> slots(params.size());
  std::vector<void*> args(params.size());
  int next_input = 0;
  size_t offset = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    std::memset(slots[i].bytes, 0, sizeof(Slot));
    if (params[i] == -1) {
      if (next_input >= ctx.num_inputs()) {
        return ValueError(absl::StrCat("kernel '", name, "': parameter ", i,
                                       " is an array but only ", ctx.num_inputs(), " were given"));
      }
      void* ptr = ctx.input(next_input++).data();
      std::memcpy(slots[i].bytes, &ptr, sizeof(ptr));
    } else if (params[i] >= 1 && params[i] <= kMaxScalarBytes) {
      if (offset + static_cast<size_t>(params[i]) > scalars->size()) {
        return ValueError(absl::StrCat("kernel '", name, "': scalar parameter ", i,
                                       " runs past the scalar bytes sent"));
      }
      std::memcpy(slots[i].bytes, scalars->data() + offset, static_cast<size_t>(params[i]));
      offset += static_cast<size_t>(params[i]);
    } else {
      return ValueError(absl::StrCat("kernel '", name, "': parameter ", i, " has size ",
                                     params[i], " (an array is -1, a scalar 1 to ",
                                     kMaxScalarBytes, " bytes)"));
    }
    args[i] = slots[i].bytes;
  }
  if (next_input != ctx.num_inputs()) {
    return ValueError(absl::StrCat("kernel '", name, "': ", ctx.num_inputs(),
                                   " arrays given for ", next_input, " array parameters"));
  }
  return ctx.stream().LaunchKernel(*module, name, dims, args.data());
}

}  // namespace

void RegisterKernelOps(OpRegistry* r) {
  const OpFamily f = OpFamily::kTransfer;
  r->Register(f,
              "module_load(*, module: int, source: str = '', options: str = '', "
              "name_expressions: str = '', image: data?) -> (out, log)",
              "Compiles CUDA C++ `source` with NVRTC `options` (one per line) and its template "
              "`name_expressions` (one per line), or finds it in the server's cache (shared by "
              "every session, kept on disk), or loads a compiled `image` (CUBIN, PTX, fatbin; "
              "ValueError naming the CUDA error when it does not load), and binds it to the "
              "session's module id; out is [origin]: 0 compiled, 1 memory cache, 2 disk cache; "
              "log the compiler's messages (uint8 text). CompileException with the compiler's "
              "log when it does not compile. Needs --allow-user-kernels.",
              RunModuleLoad);
  r->Register(f, "kernel_attributes(*, module: int, name: str) -> out",
              "The cudaFuncAttributes of kernel `name` (a symbol or a name expression) as int64 "
              "[max_threads_per_block, num_regs, shared_size_bytes, const_size_bytes, "
              "local_size_bytes, ptx_version, binary_version, max_dynamic_shared_size_bytes, "
              "preferred_shared_memory_carveout, cache_mode_ca].",
              RunKernelAttributes);
  r->Register(f,
              "kernel_launch(args[], *, module: int, name: str, grid: ints, block: ints, "
              "shared_mem: int = 0, params: ints, scalars: data?) -> ()",
              "Queues kernel `name` on the op's stream: params has one entry per kernel "
              "parameter, -1 for the next array of args (its device pointer), else the byte "
              "size of a by-value scalar taken in order from `scalars`.",
              RunKernelLaunch);
}

}  // namespace arrayd
