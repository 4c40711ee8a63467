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
  Nccl,             // NCCL's own choice per operation, size and group (collectives/NcclTuner.hpp)
  Best,             // the fastest of the simulated candidates ("auto" is accepted for it)
  Ring,             // ring in the topology's ring order
  Tree,             // NCCL's tree: chains inside nodes, a double binary tree across them
  HalvingDoubling,  // recursive halving-doubling (Rabenseifner / Thakur et al.)
  Direct,           // direct / pairwise exchange (all-to-all; flat trees for rooted ops)
  Hierarchical,     // intra-node, then inter-node, then intra-node
  InSwitch,         // reduction in the switch (NVLS / SHARP-like), where the platform declares it
  NvlsTree,         // NVLS inside each node, a double binary tree across nodes (NCCL's NVLSTree)
};

inline constexpr std::array<CollectiveAlgorithm, 9> kAllCollectiveAlgorithms = {
    CollectiveAlgorithm::Nccl,   CollectiveAlgorithm::Best,         CollectiveAlgorithm::Ring,
    CollectiveAlgorithm::Tree,   CollectiveAlgorithm::HalvingDoubling, CollectiveAlgorithm::Direct,
    CollectiveAlgorithm::Hierarchical, CollectiveAlgorithm::InSwitch, CollectiveAlgorithm::NvlsTree};

constexpr std::string_view collective_algorithm_name(CollectiveAlgorithm a) {
  switch (a) {
    case CollectiveAlgorithm::Nccl: return "nccl";
    case CollectiveAlgorithm::Best: return "best";
    case CollectiveAlgorithm::Ring: return "ring";
    case CollectiveAlgorithm::Tree: return "tree";
    case CollectiveAlgorithm::HalvingDoubling: return "halving-doubling";
    case CollectiveAlgorithm::Direct: return "direct";
    case CollectiveAlgorithm::Hierarchical: return "hierarchical";
    case CollectiveAlgorithm::InSwitch: return "in-switch";
    case CollectiveAlgorithm::NvlsTree: return "nvls-tree";
  }
  return "?";
}

/// The spelling "auto" (clearfog before NCCL's tuner) still means best.
inline constexpr std::string_view kBestAlias = "auto";

constexpr std::optional<CollectiveAlgorithm> parse_collective_algorithm(std::string_view name) {
  if (name == kBestAlias) return CollectiveAlgorithm::Best;
  for (CollectiveAlgorithm a : kAllCollectiveAlgorithms)
    if (collective_algorithm_name(a) == name) return a;
  return std::nullopt;
}

/// Whether `algorithm` can run over `members` ranks: recursive halving-doubling pairs ranks at
/// distances 1, 2, 4, ..., so it needs a power of two. The scenario check (collectives.algorithm
/// against parallelism.dp) asks this; driver::can_run applies the same rule to any group.
constexpr bool algorithm_takes_members(CollectiveAlgorithm algorithm, int members) {
  if (algorithm == CollectiveAlgorithm::HalvingDoubling) return members >= 1 && (members & (members - 1)) == 0;
  return members >= 1;
}

/// Whether `a` names one algorithm (not a policy that picks one).
constexpr bool is_concrete(CollectiveAlgorithm a) {
  return a != CollectiveAlgorithm::Nccl && a != CollectiveAlgorithm::Best;
}

/// NCCL's protocols (src/include/devcomm.h): LL sends an 8-byte flag with every 8 bytes of data,
/// LL128 one flag word per 128-byte line (120 bytes of data), Simple plain data with a fence per step.
enum class Protocol { LL, LL128, Simple };

inline constexpr std::array<Protocol, 3> kAllProtocols = {Protocol::LL, Protocol::LL128, Protocol::Simple};

constexpr std::string_view protocol_name(Protocol p) {
  switch (p) {
    case Protocol::LL: return "ll";
    case Protocol::LL128: return "ll128";
    case Protocol::Simple: return "simple";
  }
  return "?";
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

/// collectives.fidelity as written: a fidelity, or auto (the default): step up to
/// kAutoStepMaxDevices devices, fluid above, where step fidelity's O(P^2) messages per collective
/// cost minutes per run (docs/performance.md) and the two agree within a fraction of a percent.
enum class FidelityChoice { Step, Fluid, Auto };
inline constexpr int kAutoStepMaxDevices = 16;

inline constexpr std::array<FidelityChoice, 3> kAllFidelityChoices = {FidelityChoice::Auto, FidelityChoice::Step,
                                                                      FidelityChoice::Fluid};

constexpr std::string_view fidelity_choice_name(FidelityChoice f) {
  return f == FidelityChoice::Auto ? "auto" : f == FidelityChoice::Step ? "step" : "fluid";
}

constexpr std::optional<FidelityChoice> parse_fidelity_choice(std::string_view name) {
  for (FidelityChoice f : kAllFidelityChoices)
    if (fidelity_choice_name(f) == name) return f;
  return std::nullopt;
}

/// The fidelity a choice gives on a platform of `devices` devices.
constexpr Fidelity resolve_fidelity(FidelityChoice choice, int devices) {
  if (choice == FidelityChoice::Step) return Fidelity::Step;
  if (choice == FidelityChoice::Fluid) return Fidelity::Fluid;
  return devices > kAutoStepMaxDevices ? Fidelity::Fluid : Fidelity::Step;
}

struct CollectivesSpec {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::Nccl;
  Fidelity fidelity = Fidelity::Step;  // resolved: never auto
  bool fidelity_auto = false;          // chosen by collectives.fidelity: auto (the summary says so)
};

}  // namespace clearfog::config
