#pragma once
// Where to cut a pipeline over devices of different kinds, and which kind runs each stage
// (Shisha, Soomro et al., PPAM 2022): a pure search over contiguous splits of the model's layers
// into stages and over assignments of the available devices to them, minimising the bottleneck
// stage's time per micro-batch — compute of its layers on its device plus sending its boundary
// activation (and receiving the gradient back) — which sets a full pipeline's throughput.
// Three searches over the same objective: exhaustive (the reference on small cases), simulated
// annealing, and Shisha's heuristic (a seed that balances work by device speed, then moves guided
// by the bottleneck stage). docs/heterogeneous-pipelines.md.
#include <cstdint>
#include <string>
#include <vector>

namespace clearfog::parallel {

struct StageSearchProblem {
  /// layer_s[kind][l]: forward plus backward time of layer l on a device of `kind`.
  std::vector<std::vector<double>> layer_s;
  /// transfer_s[l]: time to send layer l's output to the next stage and its gradient back, paid by
  /// the stage that ends with layer l (the last layer sends nothing).
  std::vector<double> transfer_s;
  std::vector<int> devices;  // devices[kind]: how many devices of that kind may run a stage
  int stages = 1;
  [[nodiscard]] int layers() const { return transfer_s.empty() ? 0 : static_cast<int>(transfer_s.size()); }
  [[nodiscard]] int kinds() const { return static_cast<int>(devices.size()); }
};

/// Throws clearfog::Error for a problem no plan solves: stages < 1 or more than layers or devices,
/// ragged times, negative or non-finite times.
void check_problem(const StageSearchProblem& problem);

struct StagePlan {
  std::vector<int> ends;   // stage s runs layers [ends[s-1], ends[s]) (ends[-1] = 0); ends.back() = layers
  std::vector<int> kinds;  // the device kind of stage s
  double bottleneck_s = 0;
};

/// Each stage's time (its layers on its kind, plus its boundary transfer) under `plan`.
std::vector<double> stage_times(const StageSearchProblem& problem, const StagePlan& plan);
/// The largest stage time: what the searches minimise.
double bottleneck_s(const StageSearchProblem& problem, const StagePlan& plan);

struct SearchResult {
  StagePlan plan;
  std::int64_t evaluations = 0;  // stage times computed: the searches' effort in one unit
};

/// Every split and every assignment of device kinds (within the available counts).
SearchResult exhaustive_search(const StageSearchProblem& problem);
/// Simulated annealing from an even split on the fastest kinds: random moves (shift a cut, swap two
/// stages' kinds, give a stage an unused device's kind), geometric cooling over `steps`, seeded.
SearchResult annealing_search(const StageSearchProblem& problem, std::uint64_t seed, int steps = 20000);
/// Shisha's heuristic: from two seeds — the fastest devices, and an even cut whose stages take the
/// device best at their layers, heaviest stage first — a descent over which device runs which
/// stage (trade two stages' devices, or give one a spare device), each order of kinds with its
/// exact best cut (dynamic programming), plans compared by their stage times from the slowest down.
SearchResult shisha_search(const StageSearchProblem& problem);

/// "[0,3) k1 | [3,8) k0": the plan, layers and kinds by index.
std::string describe_plan(const StagePlan& plan);

}  // namespace clearfog::parallel
