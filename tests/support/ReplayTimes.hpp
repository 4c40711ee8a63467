#pragma once
// A scenario replayed in a child process (SimGrid runs once per process), with every op's start
// and end, to compare two ways of replaying it op by op.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "driver/ScenarioRun.hpp"
#include "engine/ForkedRun.hpp"

namespace clearfog::test {

struct ReplayTimes {
  std::string mode;
  std::string detail;
  double step_s = 0;
  std::uint64_t simulated_ops = 0;
  std::vector<std::vector<std::pair<double, double>>> ops;  // [rank][op] (start, end)
};

inline ReplayTimes replay_times(const config::ScenarioSpec& s, const driver::RunOptions& options) {
  const auto text = engine::run_forked([&] {
    const auto run = driver::run_scenario(s, options);
    nlohmann::json j;
    j["mode"] = run.simulation.replay.mode;
    j["detail"] = run.simulation.replay.detail;
    j["step_s"] = run.simulation.makespan_s;
    j["simulated_ops"] = run.simulation.replay.simulated_ops;
    auto& ops = j["ops"] = nlohmann::json::array();
    for (const auto& rank : run.simulation.ops) {
      auto row = nlohmann::json::array();
      for (const auto& t : rank) row.push_back({t.start_s, t.end_s});
      ops.push_back(std::move(row));
    }
    return j.dump();
  });
  const auto j = nlohmann::json::parse(text);
  ReplayTimes r{j["mode"], j["detail"], j["step_s"], j["simulated_ops"], {}};
  for (const auto& row : j["ops"]) {
    auto& rank = r.ops.emplace_back();
    for (const auto& t : row) rank.emplace_back(t[0].get<double>(), t[1].get<double>());
  }
  return r;
}

inline ReplayTimes replay_times(const config::ScenarioSpec& s, bool symmetry) {
  driver::RunOptions options;
  options.replay.symmetry = symmetry;
  return replay_times(s, options);
}

/// The largest relative difference between two replays' op times; infinity if their shapes differ.
inline double worst_difference(const ReplayTimes& a, const ReplayTimes& b) {
  if (a.ops.size() != b.ops.size()) return std::numeric_limits<double>::infinity();
  double worst = 0;
  for (std::size_t r = 0; r < a.ops.size(); ++r) {
    if (a.ops[r].size() != b.ops[r].size()) return std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < a.ops[r].size(); ++i)
      for (const auto& [x, y] : {std::pair{a.ops[r][i].first, b.ops[r][i].first},
                                 std::pair{a.ops[r][i].second, b.ops[r][i].second}})
        if (x != y) worst = std::max(worst, std::abs(x - y) / std::max(std::abs(x), std::abs(y)));
  }
  return worst;
}

}  // namespace clearfog::test
