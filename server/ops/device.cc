// Queries of the session's device (arrayd.cuda.Device, runtime): what
// changes while the server runs (what does not, compute capability, SM
// count, ..., is in Capabilities.devices); the events that order a
// session's streams (arrayd.cuda.Event, Stream.wait_event); and the
// session's part of the device memory pool (arrayd.cuda.MemoryPool).
#include <cstdint>

#include "common/status.h"
#include "ops/registry.h"

namespace arrayd {
namespace {

// [free, total] bytes of the device's memory, as cudaMemGetInfo.
absl::Status RunDeviceMemory(OpContext& ctx) {
  uint64_t free = 0, total = 0;
  ARRAYD_RETURN_IF_ERROR(ctx.stream().MemoryInfo(&free, &total));
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.ContiguousOutputFor(0, DType::kInt64, {2}));
  const int64_t host[2] = {static_cast<int64_t>(free), static_cast<int64_t>(total)};
  ARRAYD_RETURN_IF_ERROR(ctx.stream().CopyFromHost(host, out));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

absl::StatusOr<SessionHooks*> Session(OpContext& ctx) {
  if (ctx.session() == nullptr) return absl::FailedPreconditionError("not in a session");
  return ctx.session();
}

absl::Status RunEventRecord(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(SessionHooks * session, Session(ctx));
  EventOptions options;
  ARRAYD_ASSIGN_OR_RETURN(options.timing, ctx.attrs().Bool("timing", true));
  ARRAYD_ASSIGN_OR_RETURN(options.blocking, ctx.attrs().Bool("blocking", false));
  ARRAYD_ASSIGN_OR_RETURN(int64_t id, ctx.attrs().Int("event"));
  ARRAYD_ASSIGN_OR_RETURN(Event * event, session->GetEvent(static_cast<uint64_t>(id), options));
  return ctx.stream().Record(*event);
}

absl::Status RunStreamWaitEvent(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(SessionHooks * session, Session(ctx));
  ARRAYD_ASSIGN_OR_RETURN(int64_t id, ctx.attrs().Int("event"));
  Event* event = session->FindEvent(static_cast<uint64_t>(id));
  if (event == nullptr) return absl::OkStatus();  // never recorded: nothing to wait for (CUDA)
  return ctx.stream().Wait(*event);
}

// [used, limit, cached bytes, cached blocks] of the session (MemoryPool).
absl::Status RunMemoryPool(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(SessionHooks * session, Session(ctx));
  uint64_t blocks = 0, bytes = 0;
  for (Stream* s : session->Streams()) {
    uint64_t n = 0, b = 0;
    s->CachedBlocks(&n, &b);
    blocks += n;
    bytes += b;
  }
  // Into the client's out= array when it sends one: the query then
  // allocates nothing, so it does not change the numbers it reads.
  ARRAYD_ASSIGN_OR_RETURN(View out, ctx.ContiguousOutputFor(0, DType::kInt64, {4}));
  const int64_t host[4] = {static_cast<int64_t>(session->memory().used()),
                           static_cast<int64_t>(session->memory().limit()),
                           static_cast<int64_t>(bytes), static_cast<int64_t>(blocks)};
  ARRAYD_RETURN_IF_ERROR(ctx.stream().CopyFromHost(host, out));
  ctx.SetResult(0, out);
  return absl::OkStatus();
}

absl::Status RunMemoryPoolFree(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(SessionHooks * session, Session(ctx));
  for (Stream* s : session->Streams()) ARRAYD_RETURN_IF_ERROR(s->FreeCachedBlocks());
  return absl::OkStatus();
}

absl::Status RunMemoryPoolLimit(OpContext& ctx) {
  ARRAYD_ASSIGN_OR_RETURN(SessionHooks * session, Session(ctx));
  ARRAYD_ASSIGN_OR_RETURN(int64_t bytes, ctx.attrs().Int("bytes"));
  if (bytes < 0) return ValueError("set_limit: the limit must not be negative");
  session->SetMemoryLimit(static_cast<uint64_t>(bytes));
  return absl::OkStatus();
}

}  // namespace

void RegisterDeviceOps(OpRegistry* r) {
  const OpFamily f = OpFamily::kTransfer;
  r->Register(f, "device_memory(*) -> out",
              "[free, total] bytes of the device's memory (cudaMemGetInfo).", RunDeviceMemory);
  r->Register(f, "event_record(*, event: int, timing: bool = True, blocking: bool = False) -> ()",
              "Records the session's event `event` (made on first use with `timing` and "
              "`blocking`) after the work queued so far on the op's stream (Event.record).",
              RunEventRecord);
  r->Register(f, "stream_wait_event(*, event: int) -> ()",
              "Later work on the op's stream waits for the event's last record "
              "(Stream.wait_event); an event never recorded is no wait.",
              RunStreamWaitEvent);
  r->Register(f, "memory_pool(*) -> out",
              "[used, limit, cached bytes, cached blocks] of the session: bytes of its arrays, "
              "its memory limit (0: none) and the free blocks the device pool keeps for its "
              "streams (MemoryPool).",
              RunMemoryPool);
  r->Register(f, "memory_pool_free(*) -> ()",
              "Gives the free blocks kept for the session's streams back to the device "
              "(MemoryPool.free_all_blocks).",
              RunMemoryPoolFree);
  r->Register(f, "memory_pool_limit(*, bytes: int) -> ()",
              "Sets the session's memory limit (MemoryPool.set_limit), at most the server's "
              "session quota; 0: that quota.",
              RunMemoryPoolLimit);
}

}  // namespace arrayd
