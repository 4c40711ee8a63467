#include "parallel/BlockCosts.hpp"

#include <algorithm>

namespace clearfog::parallel {

double BlockPricing::forward_s() const {
  double t = 0;
  for (const auto& s : forward) t += s.time_s;
  return t;
}

double BlockPricing::backward_s() const {
  double t = 0;
  for (const auto& s : backward) t += s.time_s;
  return t;
}

BlockCosts::BlockCosts(const workload::ModelDescription& model, const kernels::KernelCostModel& costs)
    : costs_(costs) {
  for (const auto& block : model.blocks) {
    const auto known = std::find(type_names_.begin(), type_names_.end(), block.type);
    if (known != type_names_.end()) {
      type_of_block_.push_back(static_cast<std::size_t>(known - type_names_.begin()));
      continue;
    }
    const std::size_t type = type_names_.size();
    type_names_.push_back(block.type);
    type_checkpointable_.push_back(block.checkpointable);
    type_of_block_.push_back(type);
    BlockPricing p;
    for (const auto& s : block.forward)
      p.forward.push_back(price_segment(s, type, PassKind::Forward, block.type + ".forward." + s.name));
    for (const auto& s : block.backward)
      p.backward.push_back(price_segment(s, type, PassKind::Backward, block.type + ".backward." + s.name));
    for (const auto policy : config::kAllRecomputes) {
      const auto& kernels = block.partial_recompute[workload::policy_index(policy)];
      if (kernels.empty()) continue;
      p.recompute_s[workload::policy_index(policy)] =
          price(kernels, type, PassKind::Recompute, block.type + ".recompute", policy);
      p.recompute_kernels[workload::policy_index(policy)] = kernels.size();
    }
    pricing_.push_back(std::move(p));
  }
  accumulation_priced_.assign(type_names_.size(), false);
}

double BlockCosts::time_of(const std::vector<kernels::Kernel>& kernels, bool weight_gradients_only) const {
  double total_s = 0;
  for (const auto& k : kernels)
    if (!weight_gradients_only || k.weight_gradient) total_s += costs_.cost(k).time_s;
  return total_s;
}

PricedSegment BlockCosts::price_segment(const workload::Segment& segment, std::size_t type, PassKind pass,
                                        const std::string& name) {
  PricedSegment out{segment.name, 0, segment.comm, segment.kernels.size(), 0, {}, 0, {}};
  const auto weight_kernels = [](const std::vector<kernels::Kernel>& ks) {
    return static_cast<std::size_t>(std::count_if(ks.begin(), ks.end(), [](const auto& k) { return k.weight_gradient; }));
  };
  out.weight_kernels = weight_kernels(segment.kernels);
  if (segment.kernels_by_expert_rank.empty()) {
    out.time_s = price(segment.kernels, type, pass, name);
    out.weight_s = time_of(segment.kernels, true);
    return out;
  }
  // Each expert rank its own kernels; the table shows the busiest rank's.
  std::size_t busiest = 0;
  for (std::size_t j = 0; j < segment.kernels_by_expert_rank.size(); ++j) {
    out.time_by_expert_rank.push_back(time_of(segment.kernels_by_expert_rank[j]));
    out.weight_by_expert_rank.push_back(time_of(segment.kernels_by_expert_rank[j], true));
    if (out.time_by_expert_rank[j] > out.time_by_expert_rank[busiest]) busiest = j;
  }
  out.kernels = std::max(out.kernels, segment.kernels_by_expert_rank[busiest].size());
  out.weight_kernels = std::max(out.weight_kernels, weight_kernels(segment.kernels_by_expert_rank[busiest]));
  out.time_s = price(segment.kernels_by_expert_rank[busiest], type, pass, name);
  out.weight_s = out.weight_by_expert_rank[busiest];
  return out;
}

double BlockCosts::price(const std::vector<kernels::Kernel>& kernels, std::size_t type, PassKind pass,
                         const std::string& name, config::Recompute policy) {
  double total_s = 0;
  for (const auto& k : kernels) {
    const auto cost = costs_.cost(k);
    total_s += cost.time_s;
    rows_.push_back(Row{PricedKernel{name, k, cost, 0}, type, pass, policy});
  }
  return total_s;
}

std::vector<double> BlockCosts::block_times() const {
  std::vector<double> t;
  for (std::size_t b = 0; b < type_of_block_.size(); ++b) t.push_back(of(b).forward_s() + of(b).backward_s());
  return t;
}

double BlockCosts::accumulation_s(std::size_t block, const std::vector<workload::ParamTensor>& tensors,
                                  const GradientAccumulation& how) {
  std::vector<kernels::Kernel> kernels;
  for (const auto& t : tensors) {
    const double elements = t.elements * (t.expert ? how.expert_share : how.dense_share);
    kernels.push_back(kernels::Kernel::make_memory_bound("grad_accumulate." + t.name,
                                                         elements * how.bytes_per_element(), elements, how.sum));
  }
  const std::size_t type = type_of_block_.at(block);
  if (accumulation_priced_[type]) {
    double total_s = 0;
    for (const auto& k : kernels) total_s += costs_.cost(k).time_s;
    return total_s;
  }
  accumulation_priced_[type] = true;
  return price(kernels, type, PassKind::Accumulate, type_names_[type] + ".backward.grad_accumulation");
}

std::vector<PricedKernel> BlockCosts::table(const std::vector<int>& blocks_of_type, int micro_batches,
                                            config::Recompute recompute) const {
  const bool full_recompute = recompute == config::Recompute::Full;
  std::vector<PricedKernel> out;
  for (const auto& row : rows_) {
    if (row.pass == PassKind::Recompute && row.policy != recompute) continue;
    const int blocks = blocks_of_type.at(row.type);
    int passes = micro_batches;
    if (row.pass == PassKind::Accumulate) passes = std::max(0, micro_batches - 1);
    if (row.pass == PassKind::Forward && full_recompute && type_checkpointable_[row.type]) passes *= 2;
    PricedKernel k = row.kernel;
    k.runs = blocks * passes;
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace clearfog::parallel
