#pragma once
// Workload type `dlrm`: recommendation models (DLRM, DLRM-DCNv2) whose embedding tables are
// sharded over the devices (TorchRec's table-, row-, column-, table-row-wise and data-parallel
// sharding) and whose MLPs are data parallel. docs/dlrm.md.
#include "workload/WorkloadType.hpp"
#include "workload/types/DlrmSpec.hpp"

namespace clearfog::workload {

class DlrmType final : public WorkloadType {
public:
  /// What fp8 training would have to run, for its refusal (fp8_training_refusal).
  static constexpr std::string_view kFp8Kernels = "embedding-bag lookups, interaction and MLPs";
  [[nodiscard]] std::string_view name() const override { return "dlrm"; }
  [[nodiscard]] config::WorkloadTraits traits() const override { return {.embedding_tables = true}; }
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

/// A dlrm workload built in code (tests, the sharding search): `spec` under `name`.
config::WorkloadSpec make_dlrm_workload(std::string name, DlrmSpec spec);

/// The blocks of a DLRM: embeddings, bottom MLP, interaction, top MLP.
inline constexpr std::int64_t kDlrmBlocks = 4;

}  // namespace clearfog::workload
