#pragma once
// A sweep file: a base scenario and axes over any of its keys, combined as a grid (every
// combination) or zipped (the i-th value of every axis). Each point is the base scenario loaded with
// one config::Override per axis, so a point is validated exactly as `clearfog run --set` would be.
//
//   kind: sweep
//   name: dp-scaling
//   base: ../quickstart.yaml            # relative to the sweep file
//   combine: grid                       # grid (default) | zip
//   axes:                               # in order; the first axis varies slowest
//     parallelism.dp: [1, 2, 4, 8]
//     platform: [../../platforms/dgx-a100.yaml, ../../platforms/dgx-h100.yaml]
//   set:                                # optional: overrides applied to every point
//     training.micro_batch: 1
//   filter: devices_match               # optional (or a list): see SweepFilter
//   budget: {name: area_mm2, max: 800, terms: [...]}   # optional: see SweepBudget.hpp
//
// The keys are declared in FileKeys.cpp (`clearfog explain sweep`).
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "config/Override.hpp"
#include "core/Errors.hpp"
#include "sweep/SweepBudget.hpp"

namespace YAML {
class Node;
}

namespace clearfog::sweep {

/// Points of one sweep. Each point is a child process and a row of results.csv, rebuilt as points
/// finish: a sweep of 100,000 toy points already takes about an hour on two cores.
inline constexpr std::size_t kMaxSweepPoints = 100'000;

/// devices_match: a point whose tp*pp*dp differs from the platform's device count is `skipped`
/// instead of `error` (the scenario validator rejects it).
enum class SweepFilter { DevicesMatch };

struct Axis {
  std::string key;                  // override path, e.g. "parallelism.dp"
  SourceLocation location;          // of the key in the sweep file
  std::vector<std::string> labels;  // values as written in the sweep file (CSV, plots)
  std::vector<std::string> values;  // override values: paths made absolute, lists in flow style
  std::vector<SourceLocation> value_locations;
};

struct SweepPoint {
  int id = 0;                                  // 0-based, in grid / zip order
  std::vector<config::Override> overrides;     // fixed `set` values, then one per axis
  std::vector<std::pair<std::string, std::string>> axes;  // (key, label) per axis
};

struct SweepSpec {
  std::string name;
  std::filesystem::path file;  // the sweep file
  std::filesystem::path base;  // base scenario, absolute
  bool zip = false;
  std::vector<Axis> axes;
  std::vector<config::Override> fixed;
  std::vector<SourceLocation> fixed_locations;  // of each `set` value
  std::vector<SweepFilter> filters;
  std::optional<SweepBudget> budget;  // points over it are skipped (SweepBudget.hpp)

  [[nodiscard]] bool has_filter(SweepFilter f) const;
  /// Grid: product of the axis lengths; zip: the common length (at most kMaxSweepPoints).
  [[nodiscard]] std::size_t point_count() const;
  /// Every point, ids 0 .. n-1.
  [[nodiscard]] std::vector<SweepPoint> points() const;
  /// What makes two sweeps the same: the base, the combination, the axes, the fixed values and the
  /// filters (not the name, the description or comments). 16 hex digits (FNV-1a, 64 bits).
  [[nodiscard]] std::string fingerprint() const;
};

/// Reads a sweep file; throws ConfigError with every problem located (file:line:col).
SweepSpec load_sweep(const std::filesystem::path& file);

/// An axis or `set` value as override text: scalars as written (YAML file paths made absolute
/// against `dir`, since --set paths are relative to the working directory), lists and mappings in
/// flow style. Also reads a comparison file's `set`.
std::string override_value(const YAML::Node& n, const std::filesystem::path& dir);

}  // namespace clearfog::sweep
