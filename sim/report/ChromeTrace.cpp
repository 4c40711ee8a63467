#include "report/ChromeTrace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>

#include "core/Errors.hpp"
#include "core/Quote.hpp"

namespace clearfog::report {
namespace {

constexpr double kMicrosecondsPerSecond = 1e6;

int thread_id(program::Stream s) { return static_cast<int>(s); }

std::string thread_name(program::Stream s) {
  switch (s) {
    case program::Stream::Compute: return "compute";
    case program::Stream::Comm: return "communication";
    case program::Stream::Gather: return "parameter gather";
    case program::Stream::P2p: return "pipeline p2p";
    case program::Stream::P2pReverse: return "pipeline p2p, reverse direction";
    case program::Stream::Background: return "background job";
    case program::Stream::Host: return "host (kernel launches)";
  }
  return "?";
}

nlohmann::ordered_json metadata(const char* name, int pid, int tid, const std::string& value) {
  nlohmann::ordered_json e;
  e["name"] = name;
  e["ph"] = "M";
  e["pid"] = pid;
  e["tid"] = tid;
  e["args"] = {{"name", value}};
  return e;
}

/// For each device rank and op, the index of the collective record it belongs to (-1: none).
std::vector<std::vector<int>> collective_of_ops(const program::Plan& plan, int devices,
                                                const collectives::CollectiveLog* log) {
  std::vector<std::vector<int>> of(devices);
  for (int r = 0; r < devices; ++r) of[r].assign(plan.ranks[r].size(), -1);
  if (!log) return of;
  const auto& records = log->records();
  for (std::size_t c = 0; c < records.size(); ++c)
    for (const auto& range : records[c].ops)
      if (range.rank < devices)
        for (auto i = range.first; i < range.end && i < of[range.rank].size(); ++i) of[range.rank][i] = static_cast<int>(c);
  return of;
}

[[noreturn]] void bad_ranks(const std::string& text, const std::string& why, int devices) {
  throw ConfigError({{{"--trace-ranks", 0, 0}, "",
                      fmt::format("{}: {}; allowed: comma-separated ranks and ranges FIRST-LAST from 0 to {}, "
                                  "e.g. 0-7,64",
                                  quote(text), why, devices - 1)}});
}

/// A rank of --trace-ranks: decimal digits only, below `devices`.
int parse_rank(const std::string& text, std::string_view item, int devices) {
  int rank = 0;
  const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), rank);
  if (item.empty() || ec != std::errc() || end != item.data() + item.size() || item.front() == '-' ||
      item.front() == '+')
    bad_ranks(text, fmt::format("{} is not a rank", quote(std::string(item))), devices);
  if (rank >= devices)
    bad_ranks(text, fmt::format("rank {} is not below the device count {}", rank, devices), devices);
  return rank;
}

}  // namespace

TraceRanks parse_trace_ranks(const std::string& text, int devices) {
  TraceRanks kept(static_cast<std::size_t>(std::max(devices, 0)), false);
  std::string_view rest = text;
  if (rest.empty()) bad_ranks(text, "no rank given", devices);
  while (true) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const auto dash = item.find('-', 1);  // a leading '-' is a negative rank, refused as a rank
    const int first = parse_rank(text, item.substr(0, dash), devices);
    const int last = dash == std::string_view::npos ? first : parse_rank(text, item.substr(dash + 1), devices);
    if (last < first) bad_ranks(text, fmt::format("range {}-{} is reversed", first, last), devices);
    for (int r = first; r <= last; ++r) kept[static_cast<std::size_t>(r)] = true;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return kept;
}

nlohmann::ordered_json chrome_trace_json(const program::Plan& plan, const engine::SimulationResult& result,
                                         int device_count, const collectives::CollectiveLog* log,
                                         const TraceRanks& ranks) {
  const int devices = device_count < 0 ? plan.rank_count() : std::min(device_count, plan.rank_count());
  const auto kept = [&](int r) { return r < devices && (ranks.empty() || (r < static_cast<int>(ranks.size()) && ranks[r])); };
  const auto collective_of = collective_of_ops(plan, devices, log);
  auto events = nlohmann::ordered_json::array();
  for (int r = 0; r < devices; ++r) {
    if (!kept(r)) continue;
    events.push_back(metadata("process_name", r, 0, "device " + std::to_string(r)));
    nlohmann::ordered_json sort;
    sort["name"] = "process_sort_index";
    sort["ph"] = "M";
    sort["pid"] = r;
    sort["tid"] = 0;
    sort["args"] = {{"sort_index", r}};
    events.push_back(sort);
    const auto& ops = plan.ranks[r].ops();
    // Compute and comm always; the gather and p2p threads only when used (ZeRO-3, async p2p).
    std::array<bool, program::kStreamCount> used{true, true, false, false, false, false, false};
    for (const auto& op : ops) used[static_cast<std::size_t>(op.stream)] = true;
    for (int s = 0; s < program::kStreamCount; ++s)
      if (used[static_cast<std::size_t>(s)])
        events.push_back(metadata("thread_name", r, s, thread_name(static_cast<program::Stream>(s))));
  }

  // Complete events, per thread in start order (stable: program order breaks ties), so timestamps
  // never decrease along a thread.
  for (int r = 0; r < devices; ++r) {
    if (!kept(r)) continue;
    const auto& ops = plan.ranks[r].ops();
    std::vector<program::OpIndex> order(ops.size());
    for (program::OpIndex i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](program::OpIndex a, program::OpIndex b) {
      return std::tuple(thread_id(ops[a].stream), result.ops[r][a].start_s) <
             std::tuple(thread_id(ops[b].stream), result.ops[r][b].start_s);
    });
    for (const auto i : order) {
      const auto& op = ops[i];
      const auto& t = result.ops[r][i];
      nlohmann::ordered_json e;
      e["name"] = op.name;
      e["cat"] = std::string(program::category_name(op.category));
      e["ph"] = "X";
      e["pid"] = r;
      e["tid"] = thread_id(op.stream);
      e["ts"] = t.start_s * kMicrosecondsPerSecond;
      e["dur"] = t.duration_s() * kMicrosecondsPerSecond;
      nlohmann::ordered_json args;
      args["op"] = i;
      if (op.kind == program::OpKind::Exchange) {
        double sent = 0;
        for (const auto& s : op.sends) sent += s.bytes;
        args["bytes_sent"] = sent;
      }
      if (const int c = collective_of[r][i]; c >= 0) {
        const auto& record = log->records()[static_cast<std::size_t>(c)];
        args["collective"] = record.name;
        args["algorithm"] = std::string(config::collective_algorithm_name(record.algorithm));
        args["protocol"] = std::string(config::protocol_name(record.protocol));
        args["channels"] = record.channels;
      }
      e["args"] = std::move(args);
      events.push_back(std::move(e));
    }
  }

  // Flows: each send (src, dst, tag) to the receive posted on dst for (src, tag). The flow starts
  // when the sending op starts and ends, bound to the enclosing slice, when the receiving op ends.
  std::map<std::tuple<int, int, std::uint64_t>, program::OpIndex> receive_of;  // (src, dst, tag) -> op on dst
  for (int r = 0; r < devices; ++r) {
    if (!kept(r)) continue;
    const auto& ops = plan.ranks[r].ops();
    for (program::OpIndex i = 0; i < ops.size(); ++i)
      for (const auto& rv : ops[i].recvs) receive_of.emplace(std::tuple(rv.peer, r, rv.tag), i);
  }
  std::uint64_t flow_id = 0;
  for (int r = 0; r < devices; ++r) {
    if (!kept(r)) continue;
    const auto& ops = plan.ranks[r].ops();
    for (program::OpIndex i = 0; i < ops.size(); ++i) {
      for (const auto& s : ops[i].sends) {
        if (!kept(s.peer)) continue;
        const auto it = receive_of.find(std::tuple(r, s.peer, s.tag));
        if (it == receive_of.end()) continue;
        const auto& dst_op = plan.ranks[s.peer].op(it->second);
        ++flow_id;
        nlohmann::ordered_json start;
        start["name"] = ops[i].name;
        start["cat"] = "transfer";
        start["ph"] = "s";
        start["id"] = flow_id;
        start["pid"] = r;
        start["tid"] = thread_id(ops[i].stream);
        start["ts"] = result.ops[r][i].start_s * kMicrosecondsPerSecond;
        nlohmann::ordered_json finish;
        finish["name"] = ops[i].name;
        finish["cat"] = "transfer";
        finish["ph"] = "f";
        finish["bp"] = "e";
        finish["id"] = flow_id;
        finish["pid"] = s.peer;
        finish["tid"] = thread_id(dst_op.stream);
        finish["ts"] = result.ops[s.peer][it->second].end_s * kMicrosecondsPerSecond;
        events.push_back(std::move(start));
        events.push_back(std::move(finish));
      }
    }
  }
  nlohmann::ordered_json trace;
  trace["traceEvents"] = std::move(events);
  trace["displayTimeUnit"] = "ms";
  return trace;
}

}  // namespace clearfog::report
