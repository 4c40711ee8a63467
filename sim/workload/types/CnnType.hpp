#pragma once
// Workload type `cnn`: convolutional networks for images (ResNet, VGG), written layer by layer or
// as ResNet/VGG stages; trained with data and pipeline parallelism. docs/workloads.md.
#include "workload/WorkloadType.hpp"
#include "workload/types/CnnNetwork.hpp"
#include "workload/types/CnnSpec.hpp"

namespace clearfog::workload {

class CnnType final : public WorkloadType {
public:
  /// What fp8 training would have to run, for its refusal (fp8_training_refusal).
  static constexpr std::string_view kFp8Kernels = "convolutions, batch norms and pooling layers";
  [[nodiscard]] std::string_view name() const override { return "cnn"; }
  [[nodiscard]] std::string_view description() const override;
  [[nodiscard]] std::vector<config::KeySpec> keys() const override;
  [[nodiscard]] std::shared_ptr<const config::WorkloadParams> build(const config::ConfigDocument& doc) const override;
  void check(const config::ConfigDocument& doc, std::vector<Diagnostic>& out) const override;
  void check_scenario(const config::ConfigDocument& scenario, const config::ConfigDocument& workload,
                      std::vector<Diagnostic>& out) const override;
  [[nodiscard]] std::optional<std::int64_t> pipeline_units(const config::ConfigDocument& doc) const override;
  [[nodiscard]] std::string_view pipeline_unit_name() const override { return "blocks"; }
  [[nodiscard]] config::StagePartition default_partition() const override { return config::StagePartition::Balanced; }
  [[nodiscard]] ModelDescription describe(const config::WorkloadSpec& workload,
                                          const DescribeOptions& options) const override;
  [[nodiscard]] std::string shape_text(const config::WorkloadSpec& workload) const override;
};

/// A cnn workload built in code (tests, tools): `spec` under `name`.
config::WorkloadSpec make_cnn_workload(std::string name, CnnSpec spec);

}  // namespace clearfog::workload
