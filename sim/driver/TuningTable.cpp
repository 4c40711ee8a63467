#include "driver/TuningTable.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "collectives/Collective.hpp"
#include "collectives/CollectiveAlgorithmType.hpp"
#include "core/Errors.hpp"
#include "core/Units.hpp"
#include "driver/CollectiveRun.hpp"

namespace clearfog::driver {
namespace {

using config::CollectiveAlgorithm;
using config::CollectiveOp;

std::vector<double> tuned_sizes() {
  std::vector<double> sizes;
  for (double b = 1024; b <= 4.0 * 1024 * 1024 * 1024; b *= 4) sizes.push_back(b);
  return sizes;
}

/// FNV-1a: a hash that is the same on every machine and every run, unlike std::hash.
std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

/// Everything about a platform and group that changes collective timings, as text.
std::string timing_fingerprint(const topology::ClusterTopology& cluster, const std::vector<int>& members,
                               config::Fidelity fidelity) {
  const auto& p = cluster.platform();
  // The table's own layout (t3) and each algorithm's version: a changed algorithm never reuses a table.
  std::string s = fmt::format("t3|{}|{}|{}|", collectives::collective_algorithms_fingerprint(),
                              config::fidelity_name(fidelity), p.device_count());
  for (int m : members) s += fmt::format("{},", m);
  s += "|";
  for (const auto& l : cluster.node().links()) s += fmt::format("{}:{}>{}:{:.9g}:{:.9g}|", l.name, l.from, l.to, l.bandwidth_Bps, l.latency_s);
  s += fmt::format("nodes {} {} nic {} {:.9g} {:.9g} rail {} link {:.9g} {:.9g} red {} {}|", p.fabric.nodes,
                   config::fabric_topology_name(p.fabric.topology), p.fabric.nic_count, p.fabric.nic.bandwidth_Bps,
                   p.fabric.nic.latency_s, p.fabric.rail_optimized, p.fabric.link.bandwidth_Bps, p.fabric.link.latency_s,
                   p.node.in_switch_reduction, p.fabric.in_network_reduction);
  for (int v : p.fabric.fat_tree_down) s += fmt::format("d{}", v);
  for (int v : p.fabric.fat_tree_up) s += fmt::format("u{}", v);
  for (int v : p.fabric.fat_tree_parallel) s += fmt::format("p{}", v);
  for (int v : p.fabric.torus_dims) s += fmt::format("t{}", v);
  for (int v : p.fabric.dragonfly) s += fmt::format("f{}", v);
  for (const auto& d : p.fabric.degraded_nics) s += fmt::format("x{}.{}:{:.9g}", d.node, d.nic, d.slowdown);
  const auto& c = p.collectives;
  for (const config::ProtocolCost& pr : {c.simple, c.ll, c.ll128, c.intra_simple, c.intra_ll, c.intra_ll128})
    s += fmt::format("|{:.9g}:{:.9g}:{:.9g}", pr.efficiency, pr.step_overhead_s, pr.copy_efficiency);
  s += fmt::format("|nvls {:.9g} {:.9g}|chunk {:.9g}|arch {}", c.in_switch_efficiency, c.in_switch_latency_s, c.chunk_B,
                   config::gpu_arch_name(c.arch));
  return s;
}

std::filesystem::path cache_directory() {
  if (const char* dir = std::getenv("CLEARFOG_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "clearfog";
  if (const char* home = std::getenv("HOME"); home && *home) return std::filesystem::path(home) / ".cache" / "clearfog";
  return std::filesystem::temp_directory_path() / "clearfog-cache";
}

}  // namespace

std::vector<CollectiveAlgorithm> candidate_algorithms(const topology::ClusterTopology& cluster, CollectiveOp op,
                                                      const std::vector<int>& members) {
  std::vector<CollectiveAlgorithm> out;
  for (CollectiveAlgorithm a : config::collective_algorithm_choices())
    if (can_run(cluster, op, members, a)) out.push_back(a);
  return out;
}

TuningTable TuningTable::build(const topology::ClusterTopology& cluster, const std::vector<int>& members,
                               config::Fidelity fidelity, const std::vector<CollectiveOp>& ops) {
  TuningTable table;
  for (CollectiveOp op : ops) {
    const auto algorithms = candidate_algorithms(cluster, op, members);
    for (double bytes : tuned_sizes()) {
      TuningRow row{op, bytes, {}};
      for (CollectiveAlgorithm a : algorithms) {
        for (config::Protocol protocol : config::kAllProtocols) {
          // NVLS runs Simple only; a protocol the platform has no figures for is not a candidate.
          if (!a.type().runs_protocol(protocol)) continue;
          if (!group_protocol(cluster, members, protocol)) continue;
          CollectiveCase c{op, a, protocol, fidelity, static_cast<int>(members.size()), bytes, members};
          row.candidates.push_back({a, protocol, measure_collective(cluster, c).time_s});
        }
      }
      // Stable: ties keep the declaration order of algorithms and protocols.
      std::stable_sort(row.candidates.begin(), row.candidates.end(),
                       [](const TuningChoice& x, const TuningChoice& y) { return x.time_s < y.time_s; });
      table.rows_.push_back(std::move(row));
    }
  }
  return table;
}

bool TuningTable::covers(CollectiveOp op) const {
  return std::any_of(rows_.begin(), rows_.end(), [op](const TuningRow& r) { return r.op == op; });
}

TuningChoice TuningTable::select(CollectiveOp op, double bytes, std::optional<CollectiveAlgorithm> only) const {
  const TuningRow* chosen = nullptr;
  for (const auto& row : rows_) {
    if (row.op != op) continue;
    if (chosen == nullptr || row.bytes <= bytes) chosen = &row;
  }
  if (chosen == nullptr) throw Error(fmt::format("tuning table has no entry for {}", config::collective_op_name(op)));
  for (const auto& c : chosen->candidates)
    if (!only || c.algorithm == *only) return c;
  throw Error(fmt::format("algorithm {} cannot run {} on this platform", config::collective_algorithm_name(*only),
                          config::collective_op_name(op)));
}

std::string TuningTable::render() const {
  std::string out = fmt::format("{:<16}{:>12}  {:<30}{}\n", "op", "size", "best (algorithm/protocol)", "others (time)");
  for (const auto& row : rows_) {
    if (row.candidates.empty()) continue;
    const auto& best = row.candidates.front();
    std::string others;
    for (std::size_t i = 1; i < row.candidates.size(); ++i)
      others += fmt::format("{}{}/{} {}", i > 1 ? ", " : "", config::collective_algorithm_name(row.candidates[i].algorithm),
                            config::protocol_name(row.candidates[i].protocol), units::format(row.candidates[i].time_s, units::Dimension::Time));
    out += fmt::format("{:<16}{:>12}  {:<30}{}\n", config::collective_op_name(row.op),
                       units::format(row.bytes, units::Dimension::Bytes),
                       fmt::format("{}/{} {}", config::collective_algorithm_name(best.algorithm),
                                   config::protocol_name(best.protocol),
                                   units::format(best.time_s, units::Dimension::Time)),
                       others);
  }
  return out;
}

nlohmann::json TuningTable::to_json() const {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : rows_) {
    nlohmann::json cands = nlohmann::json::array();
    for (const auto& c : row.candidates)
      cands.push_back({{"algorithm", config::collective_algorithm_name(c.algorithm)},
                       {"protocol", config::protocol_name(c.protocol)},
                       {"time_s", c.time_s}});
    rows.push_back({{"op", config::collective_op_name(row.op)}, {"bytes", row.bytes}, {"candidates", cands}});
  }
  return {{"rows", rows}};
}

TuningTable TuningTable::from_json(const nlohmann::json& j) {
  TuningTable t;
  for (const auto& r : j.at("rows")) {
    TuningRow row;
    const auto op = config::parse_collective_op(r.at("op").get<std::string>());
    if (!op) throw Error("tuning cache: unknown op");
    row.op = *op;
    row.bytes = r.at("bytes").get<double>();
    for (const auto& c : r.at("candidates")) {
      const auto a = config::parse_collective_algorithm(c.at("algorithm").get<std::string>());
      if (!a) throw Error("tuning cache: unknown algorithm");
      const auto name = c.at("protocol").get<std::string>();
      const auto protocol = std::find_if(config::kAllProtocols.begin(), config::kAllProtocols.end(),
                                         [&](config::Protocol p) { return config::protocol_name(p) == name; });
      if (protocol == config::kAllProtocols.end()) throw Error("tuning cache: unknown protocol");
      row.candidates.push_back({*a, *protocol, c.at("time_s").get<double>()});
    }
    t.rows_.push_back(std::move(row));
  }
  return t;
}

TuningTable cached_tuning_table(const topology::ClusterTopology& cluster, const std::vector<int>& members,
                                config::Fidelity fidelity, const std::vector<CollectiveOp>& ops) {
  const auto dir = cache_directory();
  const auto file = dir / fmt::format("tuning-{:016x}.json", fnv1a(timing_fingerprint(cluster, members, fidelity)));
  TuningTable table;
  std::error_code ec;
  if (std::ifstream in(file); in) {
    try {
      table = TuningTable::from_json(nlohmann::json::parse(in));
    } catch (const std::exception& e) {
      spdlog::warn("ignoring unreadable tuning cache {}: {}", file.string(), e.what());
      table = TuningTable{};
    }
  }
  std::vector<CollectiveOp> missing;
  for (CollectiveOp op : ops)
    if (!table.covers(op)) missing.push_back(op);
  if (missing.empty()) return table;
  spdlog::info("tuning collectives for {} ranks ({} ops); cached in {}", members.size(), missing.size(), file.string());
  table.merge(TuningTable::build(cluster, members, fidelity, missing));
  // Write to a temporary file and rename: a reader never sees half a table.
  std::filesystem::create_directories(dir, ec);
  const auto tmp = file.string() + ".tmp";
  if (std::ofstream out(tmp); out) {
    out << table.to_json().dump(1) << '\n';
    out.close();
    std::filesystem::rename(tmp, file, ec);
  }
  if (ec) spdlog::warn("could not write tuning cache {}: {}", file.string(), ec.message());
  return table;
}

}  // namespace clearfog::driver
