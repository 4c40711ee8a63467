#pragma once
// A machine: accelerators, how they are joined inside a node, how nodes are joined by a fabric,
// and how well collective libraries use those links. SI units.
#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/AcceleratorSpec.hpp"
#include "config/CollectiveSpec.hpp"
#include "config/NodeTopology.hpp"

namespace clearfog::config {

enum class FabricTopology { FatTree, Torus, Dragonfly };

inline constexpr std::array<FabricTopology, 3> kAllFabricTopologies = {FabricTopology::FatTree, FabricTopology::Torus,
                                                                        FabricTopology::Dragonfly};

constexpr std::string_view fabric_topology_name(FabricTopology t) {
  switch (t) {
    case FabricTopology::FatTree: return "fat-tree";
    case FabricTopology::Torus: return "torus";
    case FabricTopology::Dragonfly: return "dragonfly";
  }
  return "?";
}

constexpr std::optional<FabricTopology> parse_fabric_topology(std::string_view name) {
  for (FabricTopology t : kAllFabricTopologies)
    if (fabric_topology_name(t) == name) return t;
  return std::nullopt;
}

/// One full-duplex link: each direction has `bandwidth_Bps`.
struct LinkSpec {
  double bandwidth_Bps = 0;
  double latency_s = 0;
};

struct NodeSpec {
  int devices = 0;
  NodeTopology topology;  // switch
  /// One link, as the kind uses it: switch: a device's port to the switch; hybrid-cube-mesh: one
  /// NVLink brick (pairs joined by two bricks get twice the bandwidth); pcie-tree: a device's link
  /// to its PCIe switch; custom: unused; the other kinds: one device-to-device link.
  LinkSpec link;
  bool in_switch_reduction = false;  // a kind with a switch: the switch can reduce (NVLS-like)
  /// The kind's own parameters (its file under topology/nodes/ defines them); null where it has none.
  std::shared_ptr<const NodeParams> params;

  /// The parameters as kind `P`; throws clearfog::Error where the node holds none of that kind.
  template <typename P>
  [[nodiscard]] const P& params_as() const {
    if (const auto* p = dynamic_cast<const P*>(params.get())) return *p;
    throw_missing_params();
  }

private:
  [[noreturn]] void throw_missing_params() const;
};

/// A NIC slower than the others (a degraded cable or port, `fabric.degraded_nics`): it moves data at
/// the NIC bandwidth / slowdown in each direction.
struct NicSlowdown {
  int node = 0;
  int nic = 0;
  double slowdown = 1;
};

struct FabricSpec {
  int nodes = 1;                     // 1: a single node, no fabric
  FabricTopology topology = FabricTopology::FatTree;
  int nic_count = 0;                 // NICs per node; must divide node.devices
  LinkSpec nic;                      // one NIC, per direction
  bool rail_optimized = true;        // NIC i serves devices i*devices/nic_count ...: each device uses one NIC
  LinkSpec link;                     // switch-to-switch links of the fabric
  // fat-tree, SimGrid's FatTreeParams: levels = down.size(); product of down = nodes
  std::vector<int> fat_tree_down;
  std::vector<int> fat_tree_up;
  std::vector<int> fat_tree_parallel;
  std::vector<int> torus_dims;       // torus: product = nodes
  // dragonfly, SimGrid's DragonflyParams: (groups, links), (chassis, links), (routers, links), nodes per router
  std::array<int, 7> dragonfly = {0, 0, 0, 0, 0, 0, 0};
  bool in_network_reduction = false; // SHARP-like reduction in the fabric switches
  std::vector<NicSlowdown> degraded_nics;

  /// Bandwidth per direction of NIC `nic` of node `node`: the NIC's, or less where it is degraded.
  [[nodiscard]] double nic_bandwidth_Bps(int node, int nic_index) const {
    for (const NicSlowdown& d : degraded_nics)
      if (d.node == node && d.nic == nic_index) return nic.bandwidth_Bps / d.slowdown;
    return nic.bandwidth_Bps;
  }
};

/// SimGrid FatTreeParams of a fat tree given only its node count: one switch for up to `leaf_nodes`
/// nodes; else L nodes per leaf switch, L the largest divisor of `nodes` up to `leaf_nodes`, and L
/// spines above the nodes / L leaves, each leaf one link to every spine (non-blocking).
struct FatTreeShape {
  std::vector<int> down, up, parallel;
};

inline FatTreeShape derived_fat_tree(int nodes, int leaf_nodes) {
  if (nodes <= leaf_nodes) return {{nodes}, {1}, {1}};
  int per_leaf = std::max(1, leaf_nodes);
  while (nodes % per_leaf != 0) --per_leaf;
  return {{per_leaf, nodes / per_leaf}, {1, per_leaf}, {1, 1}};
}

/// GPU generation a collective library tunes for (NCCL's per-architecture tables).
enum class GpuArch { Volta, Ampere, Hopper };

inline constexpr std::array<GpuArch, 3> kAllGpuArchs = {GpuArch::Volta, GpuArch::Ampere, GpuArch::Hopper};

constexpr std::string_view gpu_arch_name(GpuArch a) {
  switch (a) {
    case GpuArch::Volta: return "volta";
    case GpuArch::Ampere: return "ampere";
    case GpuArch::Hopper: return "hopper";
  }
  return "?";
}

constexpr std::optional<GpuArch> parse_gpu_arch(std::string_view name) {
  for (GpuArch a : kAllGpuArchs)
    if (gpu_arch_name(a) == name) return a;
  return std::nullopt;
}

/// What one of NCCL's protocols (Simple, LL, LL128) costs on this platform: which fraction of the
/// link bandwidth carries payload and what each algorithm step costs on top of the route latency.
struct CollectiveProtocol {
  Protocol kind = Protocol::Simple;
  double efficiency = 1.0;     // payload / link bandwidth, (0, 1]
  double copy_efficiency = 1.0;  // the same for operations that only copy (no reduction)
  double step_overhead_s = 0;  // fixed cost of each algorithm step
  [[nodiscard]] std::string name() const { return std::string(protocol_name(kind)); }
};

/// A protocol's figures as a platform file gives them; efficiency 0: not given.
struct ProtocolCost {
  double efficiency = 0;
  double step_overhead_s = 0;
  double copy_efficiency = 0;  // Simple only: all_gather, all_to_all, broadcast, sendrecv; 0: `efficiency`
};

/// How close collective libraries get to the links on this platform (from measurements).
struct CollectiveCalibration {
  ProtocolCost simple{1.0, 0};  // collectives.efficiency, collectives.step_overhead
  ProtocolCost ll;              // collectives.low_latency.*: NCCL's LL
  ProtocolCost ll128;           // collectives.ll128.*: NCCL's LL128
  /// collectives.intra_node.*: figures for collectives whose ranks share one node (NVLink and the
  /// fabric are calibrated apart); a protocol not given here uses the figures above.
  ProtocolCost intra_simple, intra_ll, intra_ll128;
  double in_switch_efficiency = 1.0;  // NVLS: payload / link bandwidth through the reducing switch
  double in_switch_latency_s = 0;     // NVLS: paid once per collective
  double chunk_B = 0;                 // pipelining chunk of ring steps; 0 = no chunking
  GpuArch arch = GpuArch::Ampere;     // collectives.nccl.arch
  std::string source;                 // measurement the figures come from
  /// Whether the file gives collectives.efficiency: without it every collective runs at the
  /// links' nominal bandwidth with no per-step cost, an ideal the summary flags.
  bool calibrated = false;
  /// collectives.interference.*: what a running collective takes from the compute it overlaps
  /// (docs/frameworks.md, "Compute-communication interference").
  int interference_units = 0;            // compute units (SMs) the collective's kernels hold
  double interference_memory_share = 0;  // share of the memory bandwidth its traffic takes, [0, 1)

  /// Factor on the time of compute that runs while a collective is in flight on the same device:
  /// the larger of U/(U - units) (kernels bound by the compute units) and 1 + share (kernels
  /// bound by memory, sharing it with the collective in proportion to demand). Exactly 1 when
  /// neither is given.
  [[nodiscard]] double compute_slowdown(int compute_units) const {
    const double units = compute_units > interference_units
                             ? static_cast<double>(compute_units) / (compute_units - interference_units)
                             : 1.0;
    const double memory = memory_contention();
    return units > memory ? units : memory;
  }
  /// Factor on the time of a transfer through a device's links while a kernel runs on it: the
  /// collective keeps its compute units, and shares the memory as the kernel does: 1 + share.
  [[nodiscard]] double collective_slowdown() const { return memory_contention(); }
  /// A streaming kernel (demand: all of the bandwidth H) beside a collective (demand m·H) when
  /// requests are served in proportion to demand: each gets 1/(1 + m) of what it asks.
  [[nodiscard]] double memory_contention() const { return 1.0 + interference_memory_share; }

  /// Protocol `p` for a collective inside one node or across nodes; nullopt where the platform
  /// does not say what it costs (Simple always has figures).
  [[nodiscard]] std::optional<CollectiveProtocol> protocol(Protocol p, bool inside_node) const {
    const ProtocolCost& outer = p == Protocol::Simple ? simple : p == Protocol::LL ? ll : ll128;
    const ProtocolCost& inner = p == Protocol::Simple ? intra_simple : p == Protocol::LL ? intra_ll : intra_ll128;
    const ProtocolCost& c = inside_node && inner.efficiency > 0 ? inner : outer;
    if (!(c.efficiency > 0)) return std::nullopt;
    return CollectiveProtocol{p, c.efficiency, c.copy_efficiency > 0 ? c.copy_efficiency : c.efficiency,
                              c.step_overhead_s};
  }
};

/// A second kind of device on some nodes (`mixed`): docs/heterogeneous-pipelines.md.
struct MixedNodes {
  std::vector<int> nodes;  // nodes whose devices are `accelerator`
  AcceleratorSpec accelerator;
};

struct PlatformSpec {
  std::string name;
  std::string source;
  /// The software stack this machine usually runs (a framework profile's name, `framework:`): the
  /// scenario's `framework` when it names none. Empty: the platform names none.
  std::string framework;
  AcceleratorSpec accelerator;
  NodeSpec node;
  FabricSpec fabric;
  CollectiveCalibration collectives;
  std::optional<MixedNodes> mixed;

  [[nodiscard]] int device_count() const { return fabric.nodes * node.devices; }
  /// Kinds of device: 1, or 2 with `mixed` (kind 0: `accelerator`, kind 1: mixed.accelerator).
  [[nodiscard]] int kind_count() const { return mixed ? 2 : 1; }
  [[nodiscard]] int kind_of_device(int device) const {
    if (!mixed) return 0;
    const int n = device / node.devices;
    for (const int m : mixed->nodes)
      if (m == n) return 1;
    return 0;
  }
  [[nodiscard]] const AcceleratorSpec& accelerator_of_kind(int kind) const {
    return kind == 1 && mixed ? mixed->accelerator : accelerator;
  }
  [[nodiscard]] const AcceleratorSpec& accelerator_of_device(int device) const {
    return accelerator_of_kind(kind_of_device(device));
  }
};

}  // namespace clearfog::config
