#pragma once
// Which collective algorithm runs and at which fidelity: shared by scenarios (`collectives:`) and
// `clearfog collective`.
#include <array>
#include <compare>
#include <optional>
#include <string_view>
#include <vector>

namespace clearfog::collectives {
class CollectiveAlgorithmType;
}

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

/// broadcast and reduce: one member is the root.
constexpr bool is_rooted(CollectiveOp op) { return op == CollectiveOp::Broadcast || op == CollectiveOp::Reduce; }

/// all_reduce, reduce_scatter and all_gather: every member ends with the reduction or the whole.
constexpr bool is_reduce_or_gather(CollectiveOp op) {
  return op == CollectiveOp::AllReduce || op == CollectiveOp::ReduceScatter || op == CollectiveOp::AllGather;
}

/// collectives.algorithm: a policy that picks an algorithm per group — nccl (NCCL's tuner,
/// collectives/NcclTuner.hpp) or best (the fastest simulated candidate, driver/TuningTable.hpp) —
/// or one registered algorithm (collectives/CollectiveAlgorithms.cpp, each a
/// collectives::CollectiveAlgorithmType). A small value; it orders as the registry lists, policies
/// first, so tables keyed by it list algorithms in docs order.
class CollectiveAlgorithm {
public:
  constexpr CollectiveAlgorithm() = default;  // nccl
  static constexpr CollectiveAlgorithm nccl() { return CollectiveAlgorithm(kNccl); }
  static constexpr CollectiveAlgorithm best() { return CollectiveAlgorithm(kBest); }
  /// The algorithm at `index` of collectives::collective_algorithm_types().
  static constexpr CollectiveAlgorithm registered(int index) { return CollectiveAlgorithm(index); }

  [[nodiscard]] constexpr bool is_nccl() const { return id_ == kNccl; }
  [[nodiscard]] constexpr bool is_best() const { return id_ == kBest; }
  /// Names one algorithm (not a policy that picks one).
  [[nodiscard]] constexpr bool is_concrete() const { return id_ >= 0; }
  [[nodiscard]] constexpr int index() const { return id_; }
  /// The algorithm's type; throws clearfog::Error for a policy (CollectiveAlgorithms.cpp).
  [[nodiscard]] const collectives::CollectiveAlgorithmType& type() const;
  /// "nccl", "best" or the algorithm's name.
  [[nodiscard]] std::string_view name() const;

  constexpr auto operator<=>(const CollectiveAlgorithm&) const = default;

private:
  static constexpr int kNccl = -2;
  static constexpr int kBest = -1;
  constexpr explicit CollectiveAlgorithm(int id) : id_(id) {}
  int id_ = kNccl;
};

inline std::string_view collective_algorithm_name(CollectiveAlgorithm a) { return a.name(); }

/// The spelling "auto" (clearfog before NCCL's tuner) still means best.
inline constexpr std::string_view kBestAlias = "auto";

/// nccl, best (or auto), or a registered algorithm's name; nullopt for anything else.
std::optional<CollectiveAlgorithm> parse_collective_algorithm(std::string_view name);
/// The policies, then every registered algorithm, in docs order.
std::vector<CollectiveAlgorithm> collective_algorithm_choices();

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
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::nccl();
  Fidelity fidelity = Fidelity::Step;  // resolved: never auto
  bool fidelity_auto = false;          // chosen by collectives.fidelity: auto (the summary says so)
};

}  // namespace clearfog::config
