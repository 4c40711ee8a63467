#pragma once
// A model description's passes priced once per block type: the time of each segment of a block's
// forward and backward on one device for one micro-batch, its partial recomputation, and the
// unfused gradient accumulation of its parameters. Pure: kernels are priced by the cost model.
#include <array>
#include <string>
#include <vector>

#include "config/ScenarioSpec.hpp"
#include "kernels/Kernel.hpp"
#include "parallel/GradientAccumulation.hpp"
#include "parallel/StepPlan.hpp"
#include "workload/ModelDescription.hpp"

namespace clearfog::parallel {

struct PricedSegment {
  std::string name;
  double time_s = 0;        // the busiest expert rank's where ranks differ
  workload::CommPoint comm;
  std::size_t kernels = 0;  // how many kernels it runs (0: only its collective, if any)
  std::size_t weight_kernels = 0;  // of them, weight-gradient kernels (Kernel::weight_gradient)
  std::vector<double> time_by_expert_rank;  // expert rank j's time; empty: time_s everywhere
  /// The weight-gradient kernels' part of the time (Kernel::weight_gradient), likewise.
  double weight_s = 0;
  std::vector<double> weight_by_expert_rank;
};

struct BlockPricing {
  std::vector<PricedSegment> forward, backward;
  /// The kernels each partial recomputation policy re-runs (workload::Block::partial_recompute),
  /// by policy_index: their time and how many.
  std::array<double, workload::kRecomputePolicies> recompute_s{};
  std::array<std::size_t, workload::kRecomputePolicies> recompute_kernels{};
  [[nodiscard]] double forward_s() const;
  [[nodiscard]] double backward_s() const;
};

/// What a row of the kernel table counts per micro-batch: the pass it belongs to.
enum class PassKind { Forward, Backward, Recompute, Accumulate };

class BlockCosts {
public:
  BlockCosts(const workload::ModelDescription& model, const kernels::KernelCostModel& costs);

  [[nodiscard]] const BlockPricing& of(std::size_t block) const { return pricing_[type_of_block_.at(block)]; }
  /// Forward plus backward time of each block, for balancing pipeline stages.
  [[nodiscard]] std::vector<double> block_times() const;
  /// Unfused gradient accumulation of `tensors` (elements on this device) as `how` sums them: one
  /// memory-bound kernel per tensor reading the new gradient and reading and writing the sum
  /// (PyTorch autograd's grad += new). Recorded under the block type's name.
  double accumulation_s(std::size_t block, const std::vector<workload::ParamTensor>& tensors,
                        const GradientAccumulation& how);
  /// The kernel table: each type's rows with `runs` = its blocks on the busiest stage x passes
  /// (`micro_batches` for forward, backward and partial recomputation, one fewer for
  /// accumulation; a checkpointable type's forward runs twice per micro-batch under full
  /// recomputation). A partial policy's recompute rows appear only under that policy.
  [[nodiscard]] std::vector<PricedKernel> table(const std::vector<int>& blocks_of_type, int micro_batches,
                                                config::Recompute recompute) const;
  [[nodiscard]] std::size_t type_count() const { return type_names_.size(); }
  [[nodiscard]] std::size_t type_of(std::size_t block) const { return type_of_block_.at(block); }

private:
  struct Row {
    PricedKernel kernel;
    std::size_t type;
    PassKind pass;
    config::Recompute policy = config::Recompute::None;  // a Recompute row's policy
  };
  double price(const std::vector<kernels::Kernel>& kernels, std::size_t type, PassKind pass, const std::string& name,
               config::Recompute policy = config::Recompute::None);
  PricedSegment price_segment(const workload::Segment& segment, std::size_t type, PassKind pass,
                              const std::string& name);
  [[nodiscard]] double time_of(const std::vector<kernels::Kernel>& kernels, bool weight_gradients_only = false) const;

  const kernels::KernelCostModel& costs_;
  std::vector<std::size_t> type_of_block_;
  std::vector<std::string> type_names_;
  std::vector<bool> type_checkpointable_;
  std::vector<BlockPricing> pricing_;  // per type
  std::vector<Row> rows_;
  std::vector<bool> accumulation_priced_;  // per type
};

}  // namespace clearfog::parallel
