// Every key of a scenario file, declared once.
#include "config/KeyTableParts.hpp"
#include "config/ScenarioSpec.hpp"
#include "core/DType.hpp"

namespace clearfog::config {

using units::Dimension;

KeyTable make_scenario_table() {
  return KeyTable(
      DocumentKind::Scenario,
      "One simulation: a platform, a workload, how the model is trained and how it is parallelized. "
      "dp*tp*pp must equal the platform's device count (fabric.nodes x node.devices), global_batch must be divisible by "
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
          {.path = "collectives.algorithm",
           .type = KeyType::Enum,
           .choices = names(kAllCollectiveAlgorithms, collective_algorithm_name),
           .presence = Presence::Defaulted,
           .default_text = std::string(collective_algorithm_name(CollectiveAlgorithm::Auto)),
           .description = "Algorithm of every collective. auto: chosen per operation and size; ring; "
                          "tree: double binary tree; halving-doubling: recursive halving-doubling; "
                          "direct: pairwise exchange; hierarchical: inside nodes, then across them, "
                          "then inside (needs fabric.nodes > 1); in-switch: the switch reduces (needs "
                          "node.in_switch_reduction or fabric.in_network_reduction)."},
          {.path = "collectives.fidelity",
           .type = KeyType::Enum,
           .choices = names(kAllFidelities, fidelity_name),
           .presence = Presence::Defaulted,
           .default_text = std::string(fidelity_name(Fidelity::Step)),
           .description = "step: every step of an algorithm is a simulated message (O(P^2) events for "
                          "a ring); fluid: one flow per link for the whole collective (O(P) events)."},
      });
}

}  // namespace clearfog::config
