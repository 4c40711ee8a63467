#include "report/CollectiveTable.hpp"

#include <fmt/format.h>

#include <map>
#include <tuple>
#include <vector>

#include "core/Units.hpp"

namespace clearfog::report {
namespace {

struct Row {
  const collectives::CollectiveRecord* first = nullptr;
  int count = 0;
};

/// Collectives that ran alike, in the order their first one was planned.
std::vector<Row> rows_of(const collectives::CollectiveLog& log) {
  using Key = std::tuple<config::CollectiveOp, int, double, config::CollectiveAlgorithm, config::Protocol, int>;
  std::map<Key, std::size_t> index;
  std::vector<Row> rows;
  for (const auto& r : log.records()) {
    const Key key{r.op, r.members, r.bytes, r.algorithm, r.protocol, r.channels};
    const auto [it, added] = index.emplace(key, rows.size());
    if (added) rows.push_back({&r, 0});
    ++rows[it->second].count;
  }
  return rows;
}

}  // namespace

std::string render_collective_table(const collectives::CollectiveLog& log) {
  const auto rows = rows_of(log);
  std::string out = fmt::format("\ncollectives ({} in the iteration; algorithm, protocol and channels as chosen)\n",
                                log.records().size());
  out += fmt::format("  {:<34}{:<16}{:>8}{:>12}  {:<18}{:<9}{:>9}{:>7}\n", "first", "op", "ranks", "bytes",
                     "algorithm", "protocol", "channels", "count");
  for (const auto& row : rows) {
    const auto& r = *row.first;
    out += fmt::format("  {:<34}{:<16}{:>8}{:>12}  {:<18}{:<9}{:>9}{:>7}\n", r.name, config::collective_op_name(r.op),
                       r.members, units::format(r.bytes, units::Dimension::Bytes),
                       config::collective_algorithm_name(r.algorithm), config::protocol_name(r.protocol), r.channels,
                       row.count);
  }
  return out;
}

nlohmann::ordered_json collective_table_json(const collectives::CollectiveLog& log) {
  auto rows = nlohmann::ordered_json::array();
  for (const auto& row : rows_of(log)) {
    const auto& r = *row.first;
    rows.push_back({{"first", r.name},
                    {"op", config::collective_op_name(r.op)},
                    {"ranks", r.members},
                    {"bytes", r.bytes},
                    {"algorithm", config::collective_algorithm_name(r.algorithm)},
                    {"protocol", config::protocol_name(r.protocol)},
                    {"channels", r.channels},
                    {"count", row.count}});
  }
  return rows;
}

}  // namespace clearfog::report
