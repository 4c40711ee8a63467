#pragma once
// What the configuration layer needs from a workload type: its keys, how to build its parameters
// from a checked document, and its cross-key rules. Each type implements this in one file under
// workload/types/ (together with its model description) and is listed once in
// workload/WorkloadTypes.cpp, which defines workload_type_schemas(): the configuration layer
// declares the interface it needs, the workload layer provides it.
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "config/ConfigDocument.hpp"
#include "config/KeySpec.hpp"
#include "config/WorkloadSpec.hpp"
#include "core/Errors.hpp"

namespace clearfog::config {

/// How pipeline stages split a model's blocks when parallelism.layer_split does not say.
enum class StagePartition {
  Even,      ///< equal numbers of units per model chunk (Megatron-LM); needs divisibility
  Balanced,  ///< contiguous units with the least maximal compute per chunk
};

/// What a type's model is made of, for the shared code whose knobs, reports and paths depend on it
/// (compare's search, the summary, the calibration flags, the planner or the trace import).
struct WorkloadTraits {
  bool attention = false;          ///< transformer layers: attention kernels, sequence parallelism
  bool embedding_tables = false;   ///< tables sharded over the ep group, gathers, `clearfog shard`
  bool imported_programs = false;  ///< the programs come from traces: no layout, no planner
};

class WorkloadTypeSchema {
public:
  virtual ~WorkloadTypeSchema() = default;
  /// The `type:` value: "transformer", "cnn".
  [[nodiscard]] virtual std::string_view name() const = 0;
  /// What its model is made of.
  [[nodiscard]] virtual WorkloadTraits traits() const { return {}; }
  /// One paragraph for `clearfog explain workload` and docs/configuration.md.
  [[nodiscard]] virtual std::string_view description() const = 0;
  /// The type's keys (paths from the workload document's root). The workload table adds the
  /// condition "type is <name>" to each; a path several types declare must be declared alike.
  [[nodiscard]] virtual std::vector<KeySpec> keys() const = 0;
  /// Builds the parameters from a document that passed the reader and the checks.
  [[nodiscard]] virtual std::shared_ptr<const WorkloadParams> build(const ConfigDocument& workload) const = 0;
  /// Rules between the workload's own keys (heads dividing hidden, channels that chain, ...).
  virtual void check(const ConfigDocument& workload, std::vector<Diagnostic>& out) const = 0;
  /// Rules between the workload and how a scenario trains it (tp against heads, sequence
  /// parallelism against the sequence, what the type cannot be parallelized with, ...).
  virtual void check_scenario(const ConfigDocument& scenario, const ConfigDocument& workload,
                              std::vector<Diagnostic>& out) const = 0;
  /// Units a pipeline splits (what parallelism.layer_split counts): transformer layers, CNN
  /// blocks; nullopt when the document is too broken to tell.
  [[nodiscard]] virtual std::optional<std::int64_t> pipeline_units(const ConfigDocument& workload) const = 0;
  /// What those units are called in messages: "layers", "blocks".
  [[nodiscard]] virtual std::string_view pipeline_unit_name() const = 0;
  /// The split used when parallelism.partition is auto.
  [[nodiscard]] virtual StagePartition default_partition() const = 0;
};

/// Every workload type, in the order the docs list them (defined by workload/WorkloadTypes.cpp).
const std::vector<const WorkloadTypeSchema*>& workload_type_schemas();
/// The type named `name`, or nullptr.
const WorkloadTypeSchema* find_workload_type_schema(std::string_view name);
/// The traits of the type named `name` (none for an unknown name: its document was refused).
WorkloadTraits workload_traits(std::string_view name);

}  // namespace clearfog::config
