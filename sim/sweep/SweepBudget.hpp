#pragma once
// A budget over a sweep's points (`budget:` in a sweep file, docs/sweeps.md "Budgets"): a cost that
// grows linearly with swept hardware figures — silicon area, power, price — and a limit. A point
// whose cost exceeds the limit is `skipped` without being simulated, so `--best` ranks only the
// designs that fit: co-design of an accelerator under an area or power budget (NaaS).
//
//   budget:
//     name: area_mm2
//     max: 800
//     base: 200                        # optional fixed part (default 0)
//     terms:                           # cost per `per` of each key's value at the point
//       - {key: platform.accelerator.peak.bf16, cost: 1.5, per: 1 TFLOP/s}
//       - {key: platform.accelerator.memory.bandwidth, cost: 100, per: 1 TB/s}
//
// A term's key must be an axis or a `set` key of the sweep: the value is the point's.
#include <optional>
#include <string>
#include <vector>

#include "config/Override.hpp"
#include "core/Errors.hpp"
#include "core/Units.hpp"

namespace YAML {
class Node;
}

namespace clearfog::sweep {

struct BudgetTerm {
  std::string key;
  double cost = 0;
  double per = 1;  // in SI units of `dimension`
  units::Dimension dimension = units::Dimension::Dimensionless;
  SourceLocation location;  // of the term in the sweep file
};

struct SweepBudget {
  std::string name = "budget";
  double max = 0;
  double base = 0;
  std::vector<BudgetTerm> terms;

  /// base + Σ cost · value / per, each value the last override of the term's key in `overrides` (a
  /// point's). Throws ConfigError when a key has no value or the value is not a quantity of the
  /// term's dimension.
  [[nodiscard]] double value(const std::vector<config::Override>& overrides) const;
};

/// Reads `budget:` of the sweep file `file`; `keys` are the sweep's axis and set keys. Problems,
/// located, go to `errors`.
std::optional<SweepBudget> read_sweep_budget(const YAML::Node& n, const std::vector<std::string>& keys,
                                             const std::string& file, std::vector<Diagnostic>& errors);

}  // namespace clearfog::sweep
