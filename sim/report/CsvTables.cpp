#include "report/CsvTables.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <vector>
#include <fstream>

#include "core/Errors.hpp"

namespace clearfog::report {

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(text);
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

int device_ranks(const program::Plan& plan, int devices) {
  return devices < 0 ? plan.rank_count() : std::min(devices, plan.rank_count());
}

std::string ops_csv(const program::Plan& plan, const engine::SimulationResult& result, int devices) {
  std::string out = "rank,stream,op,category,start_s,end_s\n";
  for (int r = 0; r < device_ranks(plan, devices); ++r) {
    const auto& ops = plan.ranks[r].ops();
    for (std::size_t i = 0; i < ops.size(); ++i)
      out += fmt::format("{},{},{},{},{},{}\n", r, program::stream_name(ops[i].stream), csv_field(ops[i].name),
                         program::category_name(ops[i].category), result.ops[r][i].start_s, result.ops[r][i].end_s);
  }
  return out;
}

std::string devices_csv(const program::Plan& plan, const engine::SimulationResult& result, int devices) {
  std::string out = "rank";
  for (int c = 0; c < program::kCategoryCount; ++c)
    out += fmt::format(",{}_s", program::category_name(static_cast<program::Category>(c)));
  out += ",compute_busy_s,comm_busy_s,idle_s\n";
  for (int r = 0; r < device_ranks(plan, devices); ++r) {
    std::array<double, program::kCategoryCount> busy{};
    std::array<double, program::kStreamCount> stream_busy{};
    const auto& ops = plan.ranks[r].ops();
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const double d = result.ops[r][i].duration_s();
      busy[static_cast<std::size_t>(ops[i].category)] += d;
      stream_busy[static_cast<std::size_t>(ops[i].stream)] += d;
    }
    out += std::to_string(r);
    for (double b : busy) out += fmt::format(",{}", b);
    const double compute = stream_busy[static_cast<std::size_t>(program::Stream::Compute)];
    // Communication streams summed (gradient reductions, ZeRO-3 parameter gathers, pipeline sends).
    const double comm = stream_busy[static_cast<std::size_t>(program::Stream::Comm)] +
                        stream_busy[static_cast<std::size_t>(program::Stream::Gather)] +
                        stream_busy[static_cast<std::size_t>(program::Stream::P2p)] +
                        stream_busy[static_cast<std::size_t>(program::Stream::P2pReverse)];
    out += fmt::format(",{},{},{}\n", compute, comm, std::max(0.0, result.makespan_s - compute));
  }
  return out;
}

std::string collectives_csv(const collectives::CollectiveLog& log) {
  std::string out = "name,op,members,bytes,algorithm,protocol,channels\n";
  for (const auto& c : log.records())
    out += fmt::format("{},{},{},{},{},{},{}\n", csv_field(c.name), config::collective_op_name(c.op), c.members,
                       c.bytes, config::collective_algorithm_name(c.algorithm), config::protocol_name(c.protocol),
                       c.channels);
  return out;
}

void write_csv_tables(const std::filesystem::path& dir, const program::Plan& plan,
                      const engine::SimulationResult& result, int devices, const collectives::CollectiveLog* log) {
  std::filesystem::create_directories(dir);
  std::vector<std::pair<const char*, std::string>> files = {{"ops.csv", ops_csv(plan, result, devices)},
                                                            {"devices.csv", devices_csv(plan, result, devices)}};
  if (log) files.emplace_back("collectives.csv", collectives_csv(*log));
  for (const auto& [name, text] : files) {
    std::ofstream f(dir / name, std::ios::binary);
    f << text;
    if (!f) throw Error(fmt::format("cannot write {}", (dir / name).string()));
  }
}

}  // namespace clearfog::report
