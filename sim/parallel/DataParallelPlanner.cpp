#include "parallel/DataParallelPlanner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "parallel/GridSymmetries.hpp"
#include "workload/TransformerModel.hpp"

namespace clearfog::parallel {

using program::Category;
using program::OpIndex;
using program::Stream;

std::vector<GradientTensor> layer_gradient_tensors(const config::WorkloadSpec& w, int layer, double bytes_per_element,
                                                   int ready_slot) {
  const double h = w.hidden;
  const double f = w.ffn_hidden;
  // Reverse of forward registration order: backward reaches fc2 first and ln1 last.
  const std::vector<std::pair<const char*, double>> elements = {
      {"fc2.bias", h},          {"fc2.weight", f * h}, {"fc1.bias", f},         {"fc1.weight", h * f},
      {"ln2", 2 * h},           {"proj.bias", h},      {"proj.weight", h * h},  {"qkv.bias", 3 * h},
      {"qkv.weight", 3 * h * h}, {"ln1", 2 * h}};
  std::vector<GradientTensor> tensors;
  for (const auto& [name, count] : elements)
    tensors.push_back(GradientTensor{fmt::format("L{}.{}", layer, name), count * bytes_per_element, ready_slot});
  return tensors;
}

double StepPlan::price(const kernels::KernelCostModel& costs, const std::vector<kernels::Kernel>& pass_kernels,
                       const char* pass) {
  double total_s = 0;
  for (const auto& k : pass_kernels) {
    const auto cost = costs.cost(k);
    total_s += cost.time_s;
    kernels.push_back(PricedKernel{pass, k, cost});
  }
  return total_s;
}

GradientReduction plain_ring_reduction(int dp) {
  GradientReduction r;
  r.endpoints = dp;
  r.members.resize(dp);
  std::iota(r.members.begin(), r.members.end(), 0);
  r.request = [members = r.members](double bytes) {
    collectives::CollectiveRequest q;
    q.op = config::CollectiveOp::AllReduce;
    q.algorithm = config::CollectiveAlgorithm::Ring;
    q.ranks = members;
    q.bytes = bytes;
    return q;
  };
  return r;
}

StepPlan plan_data_parallel_step(const config::ScenarioSpec& scenario, const kernels::KernelCostModel& costs,
                                 const GradientReduction& reduction) {
  const auto& w = scenario.workload;
  const auto& training = scenario.training;
  const workload::TransformerModel model(w, training.micro_batch, training.precision, workload::TensorSharding{},
                                         training.attention);
  const int layers = w.layers;
  const int dp = scenario.parallelism.dp;
  const double element_B = dtype_bytes(training.precision);

  StepPlan step;
  step.micro_batches = scenario.micro_batches_per_replica();
  auto price = [&](const std::vector<kernels::Kernel>& kernels, const char* pass) {
    return step.price(costs, kernels, pass);
  };
  const double embedding_fwd_s = price(model.embedding_forward(), "embedding.forward");
  const double layer_fwd_s = price(model.layer_forward(), "layer.forward");
  const double head_fwd_s = price(model.head_forward(), "head.forward");
  const double head_bwd_s = price(model.head_backward(), "head.backward");
  const double layer_bwd_s = price(model.layer_backward(), "layer.backward");
  const double embedding_bwd_s = price(model.embedding_backward(), "embedding.backward");
  const double parameters = model.total_parameters();
  // The update runs in fp32 where the chip has fp32 arithmetic (it is memory-bound either way).
  const auto& accelerator = scenario.platform.accelerator;
  const DType update_dtype = accelerator.supports(DType::fp32) ? DType::fp32 : training.precision;
  step.optimizer_s = price({workload::TransformerModel::optimizer_step(
                               parameters, training.optimizer == config::Optimizer::Adam, training.precision, update_dtype)},
                           "optimizer");
  step.forward_s = embedding_fwd_s + layers * layer_fwd_s + head_fwd_s;
  step.backward_s = head_bwd_s + layers * layer_bwd_s + embedding_bwd_s;

  // Backward "slots" of the last micro-batch: 0 = head, 1 + k = layer (layers-1-k), layers+1 = embedding.
  std::vector<GradientTensor> tensors;
  tensors.push_back(GradientTensor{"final_ln", model.head_parameters() * element_B, 0});
  for (int l = layers - 1; l >= 0; --l) {
    auto layer = layer_gradient_tensors(w, l, element_B, 1 + (layers - 1 - l));
    tensors.insert(tensors.end(), layer.begin(), layer.end());
  }
  // The token embedding is tied to the logits layer: its gradient is complete only after the
  // embedding backward adds the lookup's contribution.
  tensors.push_back(GradientTensor{"embedding", model.embedding_parameters() * element_B, layers + 1});
  step.gradient_bytes = std::accumulate(tensors.begin(), tensors.end(), 0.0,
                                        [](double s, const GradientTensor& t) { return s + t.bytes; });
  if (dp > 1) step.buckets = make_gradient_buckets(tensors, training.bucket_size_B);

  step.plan.ranks.resize(std::max(dp, reduction.endpoints));
  std::vector<std::vector<OpIndex>> slot_op(dp, std::vector<OpIndex>(layers + 2));
  for (int r = 0; r < dp; ++r) {
    auto& prog = step.plan.ranks[r];
    for (int mb = 0; mb < step.micro_batches; ++mb) {
      const bool last = mb == step.micro_batches - 1;
      prog.add_compute(Stream::Compute, Category::Forward, fmt::format("mb{}.embedding.fwd", mb), embedding_fwd_s);
      for (int l = 0; l < layers; ++l)
        prog.add_compute(Stream::Compute, Category::Forward, fmt::format("mb{}.L{}.fwd", mb, l), layer_fwd_s);
      prog.add_compute(Stream::Compute, Category::Forward, fmt::format("mb{}.head.fwd", mb), head_fwd_s);
      OpIndex op = prog.add_compute(Stream::Compute, Category::Backward, fmt::format("mb{}.head.bwd", mb), head_bwd_s);
      if (last) slot_op[r][0] = op;
      for (int l = layers - 1; l >= 0; --l) {
        op = prog.add_compute(Stream::Compute, Category::Backward, fmt::format("mb{}.L{}.bwd", mb, l), layer_bwd_s);
        if (last) slot_op[r][1 + (layers - 1 - l)] = op;
      }
      op = prog.add_compute(Stream::Compute, Category::Backward, fmt::format("mb{}.embedding.bwd", mb), embedding_bwd_s);
      if (last) slot_op[r][layers + 1] = op;
    }
  }

  // Bucket all-reduces, in bucket order on each device's communication stream.
  collectives::TagAllocator tags;
  std::vector<OpIndex> reduced(dp);
  const auto& members = reduction.members;
  for (std::size_t b = 0; b < step.buckets.size(); ++b) {
    auto request = reduction.request(step.buckets[b].bytes);
    request.stream = Stream::Comm;
    request.category = Category::DataParallelComm;
    request.name = fmt::format("allreduce.b{}", b);
    request.deps.assign(members.size(), {});
    for (std::size_t i = 0; i < members.size(); ++i)
      request.deps[i] = {slot_op[members[i]][step.buckets[b].ready_slot]};
    const auto last = collectives::append_collective(step.plan, request, tags);
    for (std::size_t i = 0; i < members.size(); ++i) reduced[members[i]] = last[i];
  }
  for (int r = 0; r < dp; ++r) {
    std::vector<OpIndex> deps;
    if (!step.buckets.empty()) deps.push_back(reduced[r]);
    step.plan.ranks[r].add_compute(Stream::Compute, Category::Optimizer, "optimizer", step.optimizer_s, deps);
  }
  if (dp > 1) step.plan.symmetries = {ring_symmetry("data-parallel", members, step.plan.rank_count())};  // engine hint
  return step;
}

}  // namespace clearfog::parallel
