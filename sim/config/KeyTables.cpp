// Every key of every clearfog document, declared once. The reader, the validator, `clearfog
// explain` and docs/configuration.md all read these tables; a key that is not here is an error.
#include <string>
#include <vector>

#include "config/KeyTable.hpp"
#include "config/PlatformSpec.hpp"
#include "config/ScenarioSpec.hpp"
#include "core/DType.hpp"

namespace clearfog::config {

namespace {

using units::Dimension;

KeySpec kind_key(DocumentKind kind) {
  return {.path = "kind",
          .type = KeyType::Kind,
          .choices = {std::string(kind_name(kind))},
          .description = "What the file describes; the first line of every file. May be omitted in "
                         "an inline mapping."};
}

template <typename Enum, std::size_t N, typename NameOf>
std::vector<std::string> names(const std::array<Enum, N>& all, NameOf name_of) {
  std::vector<std::string> out;
  for (Enum e : all) out.emplace_back(name_of(e));
  return out;
}

KeySpec peak_key(DType dtype, std::string_view unit_word) {
  return {.path = "peak." + std::string(dtype_name(dtype)),
          .type = KeyType::Quantity,
          .dimension = Dimension::FlopRate,
          .presence = Presence::Optional,
          .constraint = Constraint::Positive,
          .description = "Dense peak " + std::string(unit_word) + " in " + std::string(dtype_name(dtype)) +
                         " (no 2:4 sparsity). Absent: the accelerator does not support " +
                         std::string(dtype_name(dtype)) + "."};
}

KeyTable make_accelerator_table() {
  std::vector<KeySpec> keys = {
      kind_key(DocumentKind::Accelerator),
      {.path = "name", .description = "Human-readable name, e.g. \"NVIDIA A100 SXM4 80GB\"."},
      {.path = "source",
       .description = "Where the figures come from (datasheet, paper) and what is assumed."},
      {.path = "compute_units",
       .type = KeyType::Integer,
       .constraint = Constraint::AtLeastOne,
       .counts = "units",
       .description = "Streaming multiprocessors, cores or matrix units."},
      {.path = "clock",
       .type = KeyType::Quantity,
       .dimension = Dimension::Frequency,
       .constraint = Constraint::Positive,
       .description = "Boost clock."},
  };
  for (DType d : kAllDTypes) keys.push_back(peak_key(d, d == DType::int8 ? "integer rate" : "FLOP rate"));
  std::vector<KeySpec> rest = {
      {.path = "memory.capacity",
       .type = KeyType::Quantity,
       .dimension = Dimension::Bytes,
       .constraint = Constraint::Positive,
       .description = "Off-chip memory (HBM, DRAM) capacity."},
      {.path = "memory.bandwidth",
       .type = KeyType::Quantity,
       .dimension = Dimension::Bandwidth,
       .constraint = Constraint::Positive,
       .description = "Off-chip memory bandwidth (datasheet peak)."},
      {.path = "sram.per_unit",
       .type = KeyType::Quantity,
       .dimension = Dimension::Bytes,
       .presence = Presence::Defaulted,
       .default_text = "0 B",
       .constraint = Constraint::NonNegative,
       .description = "Shared memory / scratchpad per compute unit (maximum configuration)."},
      {.path = "sram.shared",
       .type = KeyType::Quantity,
       .dimension = Dimension::Bytes,
       .presence = Presence::Defaulted,
       .default_text = "0 B",
       .constraint = Constraint::NonNegative,
       .description = "Chip-wide SRAM: L2 cache or on-chip memory."},
      {.path = "power",
       .type = KeyType::Quantity,
       .dimension = Dimension::Power,
       .presence = Presence::Optional,
       .constraint = Constraint::Positive,
       .description = "Thermal design power. Absent: unknown."},
  };
  keys.insert(keys.end(), rest.begin(), rest.end());
  return KeyTable(DocumentKind::Accelerator,
                  "One accelerator chip: its compute units, dense peak throughput per data type, "
                  "memory and power. At least one `peak` must be given.",
                  std::move(keys));
}

KeyTable make_platform_table() {
  return KeyTable(
      DocumentKind::Platform,
      "A machine: which accelerator, how many per node and how they are joined. Only single-node "
      "platforms are simulated for now; the `fabric` keys are declared so that they are recognised, "
      "but any use of them is an error.",
      {
          kind_key(DocumentKind::Platform),
          {.path = "name", .description = "Human-readable name, e.g. \"DGX A100\"."},
          {.path = "source",
           .description = "Where the figures come from and what is assumed."},
          {.path = "accelerator",
           .type = KeyType::Reference,
           .referenced_kind = DocumentKind::Accelerator,
           .description = "The accelerator of every device."},
          {.path = "node.devices",
           .type = KeyType::Integer,
           .constraint = Constraint::AtLeastOne,
           .counts = "devices",
           .description = "Accelerators per node."},
          {.path = "node.topology",
           .type = KeyType::Enum,
           .choices = names(kAllNodeTopologies, node_topology_name),
           .presence = Presence::Defaulted,
           .default_text = std::string(node_topology_name(NodeTopology::Switch)),
           .description = "How the devices of a node are joined. switch: every device has one "
                          "full-bandwidth port to a non-blocking switch (NVSwitch)."},
          {.path = "node.link.bandwidth",
           .type = KeyType::Quantity,
           .dimension = Dimension::Bandwidth,
           .constraint = Constraint::Positive,
           .description = "Bandwidth of a device's link, per device, per direction."},
          {.path = "node.link.latency",
           .type = KeyType::Quantity,
           .dimension = Dimension::Time,
           .constraint = Constraint::NonNegative,
           .description = "Latency of one link (device to switch); a device-to-device route "
                          "crosses two."},
          {.path = "fabric.nodes",
           .type = KeyType::Integer,
           .presence = Presence::Optional,
           .constraint = Constraint::AtLeastOne,
           .counts = "nodes",
           .description = "Not simulated yet. Number of nodes."},
          {.path = "fabric.topology",
           .type = KeyType::Enum,
           .choices = {"fat-tree", "torus", "dragonfly"},
           .presence = Presence::Optional,
           .description = "Not simulated yet. Topology of the inter-node fabric."},
          {.path = "fabric.nic.count",
           .type = KeyType::Integer,
           .presence = Presence::Optional,
           .constraint = Constraint::AtLeastOne,
           .counts = "NICs",
           .description = "Not simulated yet. Network interfaces per node."},
          {.path = "fabric.nic.bandwidth",
           .type = KeyType::Quantity,
           .dimension = Dimension::Bandwidth,
           .presence = Presence::Optional,
           .constraint = Constraint::Positive,
           .description = "Not simulated yet. Bandwidth of one NIC, per direction."},
          {.path = "fabric.nic.latency",
           .type = KeyType::Quantity,
           .dimension = Dimension::Time,
           .presence = Presence::Optional,
           .constraint = Constraint::NonNegative,
           .description = "Not simulated yet. Latency from a NIC to the fabric."},
      });
}

KeyTable make_workload_table() {
  return KeyTable(DocumentKind::Workload,
                  "A GPT-style decoder-only transformer. `hidden` must be divisible by `heads`.",
                  {
                      kind_key(DocumentKind::Workload),
                      {.path = "name", .description = "Human-readable name, e.g. \"GPT 1.3B\"."},
                      {.path = "source", .description = "Paper or code the shape comes from."},
                      {.path = "layers",
                       .type = KeyType::Integer,
                       .constraint = Constraint::AtLeastOne,
                       .counts = "layers",
                       .description = "Transformer layers."},
                      {.path = "hidden",
                       .type = KeyType::Integer,
                       .constraint = Constraint::AtLeastOne,
                       .counts = "elements",
                       .description = "Hidden size (model width, d_model)."},
                      {.path = "heads",
                       .type = KeyType::Integer,
                       .constraint = Constraint::AtLeastOne,
                       .counts = "heads",
                       .description = "Attention heads per layer."},
                      {.path = "ffn_hidden",
                       .type = KeyType::Integer,
                       .presence = Presence::Derived,
                       .default_text = "4*hidden",
                       .constraint = Constraint::AtLeastOne,
                       .counts = "elements",
                       .description = "Inner size of the MLP block."},
                      {.path = "seq_length",
                       .type = KeyType::Integer,
                       .constraint = Constraint::AtLeastOne,
                       .counts = "tokens",
                       .description = "Tokens per sequence."},
                      {.path = "vocab_size",
                       .type = KeyType::Integer,
                       .constraint = Constraint::AtLeastOne,
                       .counts = "tokens",
                       .description = "Vocabulary size (after padding)."},
                  });
}

KeyTable make_scenario_table() {
  return KeyTable(
      DocumentKind::Scenario,
      "One simulation: a platform, a workload, how the model is trained and how it is parallelized. "
      "dp*tp*pp must equal the platform's device count, global_batch must be divisible by "
      "dp*micro_batch, and the accelerator must have a `peak` for the training precision.",
      {
          kind_key(DocumentKind::Scenario),
          {.path = "name", .description = "Short name, used in reports."},
          {.path = "description",
           .presence = Presence::Defaulted,
           .default_text = "",
           .description = "One line on what the scenario shows."},
          {.path = "platform",
           .type = KeyType::Reference,
           .referenced_kind = DocumentKind::Platform,
           .description = "The machine."},
          {.path = "workload",
           .type = KeyType::Reference,
           .referenced_kind = DocumentKind::Workload,
           .description = "The model."},
          {.path = "training.global_batch",
           .type = KeyType::Integer,
           .constraint = Constraint::AtLeastOne,
           .counts = "sequences",
           .description = "Sequences per iteration, all replicas together."},
          {.path = "training.micro_batch",
           .type = KeyType::Integer,
           .presence = Presence::Defaulted,
           .default_text = "1",
           .constraint = Constraint::AtLeastOne,
           .counts = "sequences",
           .description = "Sequences per forward/backward pass on one replica."},
          {.path = "training.precision",
           .type = KeyType::Enum,
           .choices = names(kAllDTypes, dtype_name),
           .presence = Presence::Defaulted,
           .default_text = std::string(dtype_name(DType::bf16)),
           .description = "Data type of the forward and backward passes (mixed precision)."},
          {.path = "training.optimizer",
           .type = KeyType::Enum,
           .choices = names(kAllOptimizers, optimizer_name),
           .presence = Presence::Defaulted,
           .default_text = std::string(optimizer_name(Optimizer::Adam)),
           .description = "Optimizer; decides the optimizer state kept per parameter."},
          {.path = "training.bucket_size",
           .type = KeyType::Quantity,
           .dimension = Dimension::Bytes,
           .presence = Presence::Defaulted,
           .default_text = "25 MB",
           .constraint = Constraint::Positive,
           .description = "Gradient bucket of data-parallel all-reduce (PyTorch DDP default)."},
          {.path = "parallelism.dp",
           .type = KeyType::Integer,
           .presence = Presence::Defaulted,
           .default_text = "1",
           .constraint = Constraint::AtLeastOne,
           .counts = "replicas",
           .description = "Data-parallel degree."},
          {.path = "parallelism.tp",
           .type = KeyType::Integer,
           .presence = Presence::Defaulted,
           .default_text = "1",
           .constraint = Constraint::AtLeastOne,
           .counts = "devices",
           .description = "Tensor-parallel degree. Only 1 is simulated so far."},
          {.path = "parallelism.pp",
           .type = KeyType::Integer,
           .presence = Presence::Defaulted,
           .default_text = "1",
           .constraint = Constraint::AtLeastOne,
           .counts = "stages",
           .description = "Pipeline-parallel degree. Only 1 is simulated so far."},
      });
}

}  // namespace

const KeyTable& KeyTable::of(DocumentKind kind) {
  static const KeyTable accelerator = make_accelerator_table();
  static const KeyTable platform = make_platform_table();
  static const KeyTable workload = make_workload_table();
  static const KeyTable scenario = make_scenario_table();
  switch (kind) {
    case DocumentKind::Accelerator: return accelerator;
    case DocumentKind::Platform: return platform;
    case DocumentKind::Workload: return workload;
    case DocumentKind::Scenario: return scenario;
  }
  return scenario;
}

}  // namespace clearfog::config
