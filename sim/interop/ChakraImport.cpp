#include "interop/ChakraImport.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "interop/ChakraImportError.hpp"
#include "interop/ChakraNodeAttrs.hpp"
#include "interop/ChakraPlanBuilder.hpp"
#include "parallel/PlatformInterference.hpp"
#include "workload/types/ChakraRankFiles.hpp"
#include "workload/types/ChakraType.hpp"

namespace clearfog::interop {
namespace {

using ChakraProtoMsg::Node;

/// The trace of `file`, its read errors as import errors (exit 2).
ChakraTrace read_trace(const std::filesystem::path& file) {
  try {
    return read_chakra_trace(file);
  } catch (const ChakraImportError&) {
    throw;
  } catch (const Error& e) {
    std::string_view what = e.what();
    const std::string prefix = file.string() + ": ";
    if (what.starts_with(prefix)) what.remove_prefix(prefix.size());
    throw ChakraImportError(file.string(), "",
                            fmt::format("{}; allowed: a Chakra trace (varint-length-prefixed GlobalMetadata, then "
                                        "Nodes)",
                                        what));
  }
}

/// Rejects the node types clearfog does not model, never skipping them.
void check_node_types(const ChakraGraph& g) {
  for (std::size_t i = 0; i < g.size(); ++i) {
    const auto type = g.node(i).type();
    if (type == ChakraProtoMsg::COMP_NODE || type == ChakraProtoMsg::COMM_COLL_NODE ||
        type == ChakraProtoMsg::COMM_SEND_NODE || type == ChakraProtoMsg::COMM_RECV_NODE)
      continue;
    const std::string name = ChakraProtoMsg::NodeType_IsValid(type) ? ChakraProtoMsg::NodeType_Name(type)
                                                                     : std::to_string(static_cast<int>(type));
    throw ChakraImportError(g.file().string(), g.where(i),
                            fmt::format("node type {} is not modelled; allowed: COMP_NODE, COMM_COLL_NODE, "
                                        "COMM_SEND_NODE, COMM_RECV_NODE",
                                        name));
  }
}

/// A COMP_NODE's traced duration: duration_s when given (clearfog's exact seconds), else
/// duration_micros.
double traced_seconds(const ChakraGraph& g, std::size_t i) {
  const Node& node = g.node(i);
  const auto seconds = number_attr(node, "duration_s");
  if (seconds && *seconds >= 0) return *seconds;
  return static_cast<double>(node.duration_micros()) * 1e-6;
}

/// A COMP_NODE priced by the kernel model as one kernel of its num_ops FLOPs and tensor_size
/// bytes (no shapes: priced as a memory-bound kernel, whose FLOPs run at the precision's peak).
ComputePricing repriced(const kernels::KernelCostModel& costs, DType precision) {
  return [&costs, precision](const ChakraGraph& g, std::size_t i) {
    const Node& node = g.node(i);
    const auto flops = number_attr(node, "num_ops");
    const auto bytes = number_attr(node, "tensor_size");
    if (!flops && !bytes)
      throw ChakraImportError(g.file().string(), g.where(i),
                              "reprice: true needs num_ops (FLOPs) or tensor_size (bytes) on every COMP_NODE; this "
                              "one has neither; allowed: give them, or reprice: false to keep traced durations");
    return costs.cost(kernels::Kernel::make_memory_bound(node.name(), bytes.value_or(0), flops.value_or(0), precision))
        .time_s;
  };
}

/// The FLOPs of every COMP_NODE (num_ops), or -1 when one has none.
double traced_flops(const std::vector<ChakraGraph>& graphs) {
  double total = 0;
  bool any = false;
  for (const auto& g : graphs)
    for (std::size_t i = 0; i < g.size(); ++i) {
      if (g.node(i).type() != ChakraProtoMsg::COMP_NODE) continue;
      const auto flops = number_attr(g.node(i), "num_ops");
      if (!flops) return -1;
      total += *flops;
      any = true;
    }
  return any ? total : -1;
}

/// The step's compute figures, per device (the busiest): forward, backward, optimizer.
void fill_compute_figures(parallel::StepPlan& step) {
  for (const auto& program : step.plan.ranks) {
    double forward = 0, backward = 0, recompute = 0, optimizer = 0;
    for (program::OpIndex i = 0; i < program.size(); ++i) {
      if (program.kind(i) != program::OpKind::Compute) continue;
      const double s = program.seconds(i);
      switch (program.category(i)) {
        case program::Category::Forward: forward += s; break;
        case program::Category::Backward: backward += s; break;
        case program::Category::Recompute: recompute += s; break;
        case program::Category::Optimizer: optimizer += s; break;
        default: break;
      }
    }
    step.forward_s = std::max(step.forward_s, forward);
    step.backward_s = std::max(step.backward_s, backward + recompute);
    step.recompute_s = std::max(step.recompute_s, recompute);
    step.optimizer_s = std::max(step.optimizer_s, optimizer);
  }
}

}  // namespace

std::vector<ChakraGraph> read_chakra_graphs(const std::filesystem::path& dir, int devices) {
  const auto files = workload::chakra_rank_files(dir, devices);
  if (files.problem) throw ChakraImportError(dir.string(), "", *files.problem);
  std::vector<ChakraGraph> graphs;
  graphs.reserve(files.files.size());
  for (const auto& file : files.files) {
    graphs.emplace_back(read_trace(file), file);
    check_node_types(graphs.back());
  }
  return graphs;
}

parallel::StepPlan import_chakra(const config::ScenarioSpec& scenario, const kernels::KernelCostModel& costs,
                                 const parallel::GroupCollectives& collectives) {
  const auto& params = scenario.workload.as<workload::ChakraParams>();
  const auto graphs = read_chakra_graphs(params.dir, scenario.platform.device_count());
  ComputePricing pricing = traced_seconds;
  if (params.reprice) pricing = repriced(costs, scenario.training.precision);
  parallel::StepPlan step;
  step.plan = ChakraPlanBuilder(graphs, collectives, pricing).build();
  step.plan.interference = parallel::platform_interference(scenario.platform);
  step.micro_batches = 1;
  step.samples = scenario.training.global_batch;
  step.described = false;
  const double flops = traced_flops(graphs);
  step.flops_known = flops >= 0;
  step.model_flops = step.hardware_flops = step.megatron_flops = std::max(0.0, flops);
  fill_compute_figures(step);
  return step;
}

}  // namespace clearfog::interop
