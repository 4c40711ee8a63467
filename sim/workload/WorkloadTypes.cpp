// The registry of workload types: one line per type. Everything else — the `type:` choices, the
// workload keys and their reference, `clearfog explain workload` — derives from this list.
#include <fmt/format.h>

#include "config/CheckSupport.hpp"
#include "workload/WorkloadType.hpp"
#include "workload/types/ChakraType.hpp"
#include "workload/types/CnnType.hpp"
#include "workload/types/DlrmType.hpp"
#include "workload/types/TransformerType.hpp"

namespace clearfog::workload {

const std::vector<const WorkloadType*>& workload_types() {
  static const TransformerType transformer;
  static const CnnType cnn;
  static const DlrmType dlrm;
  static const ChakraType chakra;
  static const std::vector<const WorkloadType*> all = {&transformer, &cnn, &dlrm, &chakra};
  return all;
}

const WorkloadType& workload_type(std::string_view name) {
  std::vector<std::string_view> names;
  for (const auto* t : workload_types()) {
    if (t->name() == name) return *t;
    names.push_back(t->name());
  }
  throw Error(fmt::format("unknown workload type '{}'; registered: {}", name, fmt::join(names, ", ")));
}

std::string fp8_training_refusal(std::string_view type, std::string_view kernels) {
  return fmt::format("fp8 training is modelled as Transformer Engine runs it, for the weight GEMMs of transformer "
                     "layers; a {} workload's {} have no fp8 training path modelled: train it in fp16, bf16, tf32 "
                     "or fp32",
                     type, kernels);
}

void check_op_recompute_refused(const config::ConfigDocument& scenario, std::string_view type,
                                std::vector<Diagnostic>& out) {
  if (const auto* r = scenario.find("training.recompute"); r && r->as_string() == config::recompute_name(config::Recompute::Op))
    config::report(scenario, "training.recompute",
                   fmt::format("op (per-op selective checkpointing) is modelled for transformer layers as torchtitan "
                               "wraps them; a {} workload allows none, selective or full",
                               type),
                   out);
}

ModelDescription describe(const config::ScenarioSpec& scenario) {
  const auto& t = scenario.training;
  const auto& p = scenario.parallelism;
  return workload_type(scenario.workload.type)
      .describe(scenario.workload,
                DescribeOptions{t.micro_batch, t.precision, p.tp, p.sequence_parallel, t.attention, p.ep, scenario.moe,
                                scenario.framework.fusions, scenario.platform.node.devices});
}

}  // namespace clearfog::workload

namespace clearfog::config {

const std::vector<const WorkloadTypeSchema*>& workload_type_schemas() {
  static const std::vector<const WorkloadTypeSchema*> all = [] {
    std::vector<const WorkloadTypeSchema*> schemas;
    for (const auto* t : workload::workload_types()) schemas.push_back(t);
    return schemas;
  }();
  return all;
}

const WorkloadTypeSchema* find_workload_type_schema(std::string_view name) {
  for (const auto* t : workload_type_schemas())
    if (t->name() == name) return t;
  return nullptr;
}

WorkloadTraits workload_traits(std::string_view name) {
  const auto* type = find_workload_type_schema(name);
  return type ? type->traits() : WorkloadTraits{};
}

}  // namespace clearfog::config
