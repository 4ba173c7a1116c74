#include "session/fusion_plan.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_join.h"
#include "array/dtype.h"
#include "ops/fusion.h"
#include "ops/reduction.h"

namespace arrayd {
namespace {

// What the plan may fuse: a ufunc op (one output, its ufunc's inputs, no
// attribute but dtype=), or a reduction of one (ops/reduction.h), which
// ends its chain.
enum class Role { kNone, kUfunc, kReduction };

Role RoleOf(const v1::Op& op) {
  if (op.outputs_size() != 1) return Role::kNone;
  if (IsReduction(op.name())) {
    if (op.inputs_size() != 1) return Role::kNone;
    for (const auto& [name, value] : op.attrs()) {
      if (name != "axes" && name != "keepdims" && name != "dtype") return Role::kNone;
    }
    return Role::kReduction;
  }
  const UfuncInfo* u = FindUfunc(op.name());
  if (u == nullptr || op.inputs_size() != (u->unary ? 1 : 2)) return Role::kNone;
  for (const auto& [name, value] : op.attrs()) {
    if (name != "dtype" || value.value_case() != v1::AttrValue::kDtype) return Role::kNone;
  }
  return Role::kUfunc;
}

int Find(std::vector<int>& parent, int k) {
  while (parent[k] != k) k = parent[k] = parent[parent[k]];
  return k;
}

}  // namespace

FusionPlan PlanFusion(const v1::ClientMessage& message,
                      const std::function<bool(uint64_t)>& exists) {
  FusionPlan plan;
  const int n = message.ops_size();
  if (n < 2 || message.frees_size() == 0) return plan;
  std::vector<Role> role(n);
  std::vector<bool> fusable(n);
  int count = 0;
  for (int k = 0; k < n; ++k) {
    role[k] = RoleOf(message.ops(k));
    fusable[k] = role[k] != Role::kNone;
    count += fusable[k] ? 1 : 0;
  }
  if (count < 2) return plan;  // nothing to join (the common small batch)

  const absl::flat_hash_set<uint64_t> freed(message.frees().begin(), message.frees().end());
  const absl::flat_hash_set<uint64_t> fetched(message.sync().fetch().begin(),
                                              message.sync().fetch().end());
  absl::flat_hash_map<uint64_t, int> producer;  // -1: defined more than once
  absl::flat_hash_map<uint64_t, std::vector<int>> readers;
  for (int k = 0; k < n; ++k) {
    const v1::Op& op = message.ops(k);
    for (uint64_t h : op.inputs()) readers[h].push_back(k);
    for (uint64_t h : op.outputs()) {
      auto [it, added] = producer.emplace(h, k);
      if (!added) it->second = -1;
    }
  }
  auto intermediate = [&](uint64_t h) {
    auto p = producer.find(h);
    if (p == producer.end() || p->second < 0 || role[p->second] != Role::kUfunc) return false;
    if (!freed.contains(h) || fetched.contains(h) || exists(h)) return false;
    auto r = readers.find(h);
    if (r == readers.end()) return false;
    const uint64_t stream = message.ops(p->second).stream();
    for (int k : r->second) {
      if (!fusable[k] || message.ops(k).stream() != stream) return false;
    }
    return true;
  };

  // Groups: the fusable ops joined by intermediates.
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  std::vector<bool> joined(n, false);
  for (int k = 0; k < n; ++k) {
    if (!fusable[k]) continue;
    for (uint64_t h : message.ops(k).inputs()) {
      if (!intermediate(h)) continue;
      const int p = producer[h];
      parent[Find(parent, p)] = Find(parent, k);
      joined[k] = joined[p] = true;
    }
  }
  absl::flat_hash_map<int, std::vector<int>> members;
  for (int k = 0; k < n; ++k) {
    if (joined[k]) members[Find(parent, k)].push_back(k);
  }

  plan.group_of.assign(n, -1);
  for (auto& [root, ops] : members) {
    std::sort(ops.begin(), ops.end());
    // One result, the last op; the others' outputs are intermediates.
    bool ok = !intermediate(message.ops(ops.back()).outputs(0));
    for (size_t i = 0; ok && i + 1 < ops.size(); ++i) {
      ok = intermediate(message.ops(ops[i]).outputs(0));
    }
    // A reduction can only end a chain: its output is no intermediate.
    const bool reduces = role[ops.back()] == Role::kReduction;
    const size_t num_steps = ops.size() - (reduces ? 1 : 0);
    if (!ok || num_steps > static_cast<size_t>(kMaxFusedSteps)) continue;
    // The leaves, in first-read order, and where each is first read.
    std::vector<uint64_t> leaves;
    absl::flat_hash_map<uint64_t, int> leaf_index, first_read;
    absl::flat_hash_map<uint64_t, int> step_of;  // intermediate -> its step
    for (size_t i = 0; i < num_steps; ++i) {
      const v1::Op& op = message.ops(ops[i]);
      for (uint64_t h : op.inputs()) {
        if (step_of.contains(h)) continue;
        if (leaf_index.emplace(h, static_cast<int>(leaves.size())).second) {
          leaves.push_back(h);
          first_read[h] = ops[i];
        }
      }
      step_of[op.outputs(0)] = static_cast<int>(i);
    }
    if (leaves.size() > static_cast<size_t>(kMaxFusedLeaves)) continue;
    // The ops between the first and the last that are not the group's.
    absl::flat_hash_set<int> in_group(ops.begin(), ops.end());
    for (int j = ops.front() + 1; ok && j < ops.back(); ++j) {
      if (in_group.contains(j)) continue;
      const v1::Op& op = message.ops(j);
      if (op.outputs_size() == 0) ok = false;
      for (uint64_t h : op.outputs()) {
        auto f = first_read.find(h);
        if (f != first_read.end() && f->second < j) ok = false;
      }
    }
    if (!ok) continue;

    FusedGroup group;
    group.ops = ops;
    v1::Op& fused = group.fused;
    const v1::Op& last = message.ops(ops.back());
    fused.set_name(reduces ? "fused_reduction" : "fused_elementwise");
    fused.set_stream(last.stream());
    for (uint64_t h : leaves) fused.add_inputs(h);
    fused.add_outputs(last.outputs(0));
    std::vector<std::string> names, dtypes;
    v1::AttrValue args;
    for (size_t i = 0; i < num_steps; ++i) {
      const v1::Op& op = message.ops(ops[i]);
      names.push_back(op.name());
      auto d = op.attrs().find("dtype");
      absl::StatusOr<DType> forced =
          d == op.attrs().end() ? DType::kInvalid : DTypeFromWire(d->second.dtype());
      if (!forced.ok()) ok = false;
      dtypes.push_back(forced.ok() && *forced != DType::kInvalid ? std::string(DTypeName(*forced)) : "");
      for (int j = 0; j < 2; ++j) {
        int64_t a = -1;
        if (j < op.inputs_size()) {
          auto s = step_of.find(op.inputs(j));
          a = s != step_of.end() && s->second < static_cast<int>(i)
                  ? static_cast<int64_t>(leaves.size()) + s->second
                  : leaf_index.at(op.inputs(j));
        }
        args.mutable_ints()->add_values(a);
      }
    }
    if (!ok) continue;
    (*fused.mutable_attrs())["ufuncs"].set_s(absl::StrJoin(names, ","));
    (*fused.mutable_attrs())["args"] = std::move(args);
    (*fused.mutable_attrs())["dtypes"].set_s(absl::StrJoin(dtypes, ","));
    if (reduces) {
      // The reduction's own attrs (axes, keepdims, dtype) and its name.
      for (const auto& [name, value] : last.attrs()) (*fused.mutable_attrs())[name] = value;
      (*fused.mutable_attrs())["reduce"].set_s(last.name());
    }
    const int g = static_cast<int>(plan.groups.size());
    for (int k : ops) plan.group_of[k] = g;
    plan.groups.push_back(std::move(group));
  }
  if (plan.groups.empty()) plan.group_of.clear();
  return plan;
}

}  // namespace arrayd
