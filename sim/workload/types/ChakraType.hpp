#pragma once
// Workload type `chakra`: a training step given as Chakra execution traces, one file per device
// (docs/interop.md). Nothing is described: the importer (interop/ChakraImport.hpp) turns the
// traces into the per-device programs. A scenario writes `workload: {chakra: DIR}`; `type:
// chakra` is then implied.
#include <filesystem>

#include "workload/WorkloadType.hpp"

namespace clearfog::workload {

struct ChakraParams final : config::WorkloadParams {
  std::filesystem::path dir;  // the traces, resolved against the file that names them
  bool reprice = false;       // price compute nodes by the kernel model instead of their durations
};

class ChakraType final : public WorkloadType {
public:
  [[nodiscard]] std::string_view name() const override { return "chakra"; }
  [[nodiscard]] config::WorkloadTraits traits() const override { return {.imported_programs = true}; }
  [[nodiscard]] std::string_view description() const override;
  [[nodiscard]] std::vector<config::KeySpec> keys() const override;
  [[nodiscard]] std::shared_ptr<const config::WorkloadParams> build(const config::ConfigDocument& doc) const override;
  void check(const config::ConfigDocument& doc, std::vector<Diagnostic>& out) const override;
  void check_scenario(const config::ConfigDocument& scenario, const config::ConfigDocument& workload,
                      std::vector<Diagnostic>& out) const override;
  [[nodiscard]] std::optional<std::int64_t> pipeline_units(const config::ConfigDocument&) const override {
    return std::nullopt;
  }
  [[nodiscard]] std::string_view pipeline_unit_name() const override { return "traces"; }
  [[nodiscard]] config::StagePartition default_partition() const override { return config::StagePartition::Even; }
  /// Throws clearfog::Error: a trace has no model description.
  [[nodiscard]] ModelDescription describe(const config::WorkloadSpec& workload,
                                          const DescribeOptions& options) const override;
  [[nodiscard]] std::string shape_text(const config::WorkloadSpec& workload) const override;
};

/// A chakra workload built in code (tests): the traces in `dir`.
config::WorkloadSpec make_chakra_workload(std::filesystem::path dir, bool reprice = false);

}  // namespace clearfog::workload
