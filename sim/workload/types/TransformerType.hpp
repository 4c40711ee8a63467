#pragma once
// Workload type `transformer`: decoder-only language models (GPT, MPT, Llama). docs/workloads.md.
#include "workload/WorkloadType.hpp"
#include "workload/types/TransformerSpec.hpp"

namespace clearfog::workload {

class TransformerType final : public WorkloadType {
public:
  [[nodiscard]] std::string_view name() const override { return "transformer"; }
  [[nodiscard]] config::WorkloadTraits traits() const override { return {.attention = true}; }
  [[nodiscard]] std::string_view description() const override;
  [[nodiscard]] std::vector<config::KeySpec> keys() const override;
  [[nodiscard]] std::shared_ptr<const config::WorkloadParams> build(const config::ConfigDocument& doc) const override;
  void check(const config::ConfigDocument& doc, std::vector<Diagnostic>& out) const override;
  void check_scenario(const config::ConfigDocument& scenario, const config::ConfigDocument& workload,
                      std::vector<Diagnostic>& out) const override;
  [[nodiscard]] std::optional<std::int64_t> pipeline_units(const config::ConfigDocument& doc) const override;
  [[nodiscard]] std::string_view pipeline_unit_name() const override { return "layers"; }
  [[nodiscard]] config::StagePartition default_partition() const override { return config::StagePartition::Even; }
  [[nodiscard]] ModelDescription describe(const config::WorkloadSpec& workload,
                                          const DescribeOptions& options) const override;
  [[nodiscard]] std::string shape_text(const config::WorkloadSpec& workload) const override;
};

/// A transformer workload built in code (tests, tools): `spec` under `name`.
config::WorkloadSpec make_transformer_workload(std::string name, TransformerSpec spec);

}  // namespace clearfog::workload
