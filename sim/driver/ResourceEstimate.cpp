#include "driver/ResourceEstimate.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "config/ScaleLimits.hpp"
#include "core/Errors.hpp"

namespace clearfog::driver {

ResourceEstimate estimate_plan(const program::Plan& plan) {
  ResourceEstimate e;
  for (const auto& rank : plan.ranks) {
    e.ops += rank.size();
    // Counted from the op records: materialising every op (name, deps, transfers) took 7 % of a
    // 25 M-op run.
    for (program::OpIndex op = 0; op < rank.size(); ++op) e.messages += rank.sends_end(op) - rank.transfer_begin(op);
  }
  return e;
}

ResourceEstimate estimate_floor(const config::ScenarioSpec& scenario) {
  const auto& p = scenario.parallelism;
  ResourceEstimate e;
  e.floor = true;
  // Each factor is bounded by ScaleLimits (devices 16384, micro-batches 65536, chunks 16384): the
  // product stays far inside 2^64.
  e.ops = static_cast<std::uint64_t>(p.dp) * static_cast<std::uint64_t>(p.tp) * static_cast<std::uint64_t>(p.pp) *
          static_cast<std::uint64_t>(scenario.micro_batches_per_replica()) *
          static_cast<std::uint64_t>(p.virtual_stages) * 2;
  return e;
}

std::optional<double> available_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string name;
    double kib = 0;
    if (fields >> name >> kib && name == "MemAvailable:") return kib * 1024;
  }
  return std::nullopt;
}

void check_memory(const ResourceEstimate& estimate, double max_bytes) {
  using config::memory_text;
  if (estimate.bytes() <= max_bytes) return;
  const std::string what =
      estimate.floor ? fmt::format("at least {} ops (devices x micro-batches x model chunks x 2 passes)", estimate.ops)
                     : fmt::format("{} ops and {} messages", estimate.ops, estimate.messages);
  throw ConfigError({{{"--max-memory", 0, 0},
                      "",
                      fmt::format("the run would need ~{} ({} at ~{:g} B each, plus {}), more than the {} it may use; "
                                  "shrink it with collectives.fidelity: fluid and granularity: chunk, fewer "
                                  "micro-batches (training.global_batch) or devices, or raise --max-memory",
                                  memory_text(estimate.bytes()), what, kBytesPerActivity, memory_text(kBaseBytes),
                                  memory_text(max_bytes))}});
}

}  // namespace clearfog::driver
