#pragma once
// One simulation: a platform, a workload, how it is trained and how it is parallelized.
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "config/CollectiveSpec.hpp"
#include "config/PlatformSpec.hpp"
#include "config/WorkloadSpec.hpp"
#include "core/DType.hpp"

namespace clearfog::config {

enum class Optimizer { Adam, Sgd };

inline constexpr std::array<Optimizer, 2> kAllOptimizers = {Optimizer::Adam, Optimizer::Sgd};

/// The spelling used in `training.optimizer:`.
constexpr std::string_view optimizer_name(Optimizer o) {
  switch (o) {
    case Optimizer::Adam: return "adam";
    case Optimizer::Sgd: return "sgd";
  }
  return "?";
}

constexpr std::optional<Optimizer> parse_optimizer(std::string_view name) {
  for (Optimizer o : kAllOptimizers)
    if (optimizer_name(o) == name) return o;
  return std::nullopt;
}

struct TrainingSpec {
  int global_batch = 0;        // sequences per iteration, all replicas together
  int micro_batch = 1;         // sequences per forward/backward pass on one replica
  DType precision = DType::bf16;
  Optimizer optimizer = Optimizer::Adam;
  double bucket_size_B = 25e6; // DDP gradient bucket (PyTorch default 25 MB)
};

struct ParallelismSpec {
  int dp = 1;
  int tp = 1;
  int pp = 1;
};

struct ScenarioSpec {
  std::string name;
  std::string file;            // path the scenario was loaded from ("" if built in code)
  PlatformSpec platform;
  WorkloadSpec workload;
  TrainingSpec training;
  ParallelismSpec parallelism;
  CollectivesSpec collectives;

  /// Micro-batches each replica runs per iteration (gradient accumulation steps).
  [[nodiscard]] int micro_batches_per_replica() const {
    return global_batch_per_replica() / training.micro_batch;
  }
  [[nodiscard]] int global_batch_per_replica() const { return training.global_batch / parallelism.dp; }
};

}  // namespace clearfog::config
