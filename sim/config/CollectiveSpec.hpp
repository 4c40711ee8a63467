#pragma once
// Which collective algorithm runs and at which fidelity: shared by scenarios (`collectives:`) and
// `clearfog collective`.
#include <array>
#include <optional>
#include <string_view>

namespace clearfog::config {

enum class CollectiveOp { AllReduce, ReduceScatter, AllGather, AllToAll, Broadcast, Reduce, SendRecv };

inline constexpr std::array<CollectiveOp, 7> kAllCollectiveOps = {
    CollectiveOp::AllReduce, CollectiveOp::ReduceScatter, CollectiveOp::AllGather, CollectiveOp::AllToAll,
    CollectiveOp::Broadcast, CollectiveOp::Reduce,        CollectiveOp::SendRecv};

/// nccl-tests spelling: all_reduce, reduce_scatter, ...
constexpr std::string_view collective_op_name(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::AllReduce: return "all_reduce";
    case CollectiveOp::ReduceScatter: return "reduce_scatter";
    case CollectiveOp::AllGather: return "all_gather";
    case CollectiveOp::AllToAll: return "all_to_all";
    case CollectiveOp::Broadcast: return "broadcast";
    case CollectiveOp::Reduce: return "reduce";
    case CollectiveOp::SendRecv: return "sendrecv";
  }
  return "?";
}

constexpr std::optional<CollectiveOp> parse_collective_op(std::string_view name) {
  for (CollectiveOp op : kAllCollectiveOps)
    if (collective_op_name(op) == name) return op;
  return std::nullopt;
}

enum class CollectiveAlgorithm {
  Auto,             // pick per operation and size from the platform's tuning table
  Ring,             // ring in the topology's ring order
  Tree,             // double binary tree (NCCL)
  HalvingDoubling,  // recursive halving-doubling (Rabenseifner / Thakur et al.)
  Direct,           // direct / pairwise exchange (all-to-all; flat trees for rooted ops)
  Hierarchical,     // intra-node, then inter-node, then intra-node
  InSwitch,         // reduction in the switch (NVLS / SHARP-like), where the platform declares it
};

inline constexpr std::array<CollectiveAlgorithm, 7> kAllCollectiveAlgorithms = {
    CollectiveAlgorithm::Auto,   CollectiveAlgorithm::Ring,         CollectiveAlgorithm::Tree,
    CollectiveAlgorithm::HalvingDoubling, CollectiveAlgorithm::Direct, CollectiveAlgorithm::Hierarchical,
    CollectiveAlgorithm::InSwitch};

constexpr std::string_view collective_algorithm_name(CollectiveAlgorithm a) {
  switch (a) {
    case CollectiveAlgorithm::Auto: return "auto";
    case CollectiveAlgorithm::Ring: return "ring";
    case CollectiveAlgorithm::Tree: return "tree";
    case CollectiveAlgorithm::HalvingDoubling: return "halving-doubling";
    case CollectiveAlgorithm::Direct: return "direct";
    case CollectiveAlgorithm::Hierarchical: return "hierarchical";
    case CollectiveAlgorithm::InSwitch: return "in-switch";
  }
  return "?";
}

constexpr std::optional<CollectiveAlgorithm> parse_collective_algorithm(std::string_view name) {
  for (CollectiveAlgorithm a : kAllCollectiveAlgorithms)
    if (collective_algorithm_name(a) == name) return a;
  return std::nullopt;
}

/// Whether `algorithm` can run over `members` ranks: recursive halving-doubling pairs ranks at
/// distances 1, 2, 4, ..., so it needs a power of two. The tuner (driver::candidate_algorithms) and
/// the scenario check (collectives.algorithm against parallelism.dp) both ask this.
constexpr bool algorithm_takes_members(CollectiveAlgorithm algorithm, int members) {
  if (algorithm == CollectiveAlgorithm::HalvingDoubling) return members >= 1 && (members & (members - 1)) == 0;
  return members >= 1;
}

enum class Fidelity {
  Step,   // every algorithm step is a simulated message: O(P^2) events for a ring
  Fluid,  // one flow per link for the whole collective: O(P) events
};

inline constexpr std::array<Fidelity, 2> kAllFidelities = {Fidelity::Step, Fidelity::Fluid};

constexpr std::string_view fidelity_name(Fidelity f) { return f == Fidelity::Step ? "step" : "fluid"; }

constexpr std::optional<Fidelity> parse_fidelity(std::string_view name) {
  for (Fidelity f : kAllFidelities)
    if (fidelity_name(f) == name) return f;
  return std::nullopt;
}

struct CollectivesSpec {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::Auto;
  Fidelity fidelity = Fidelity::Step;
};

}  // namespace clearfog::config
