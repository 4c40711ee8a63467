// Every key of a platform file, declared once.
#include <fmt/format.h>

#include <algorithm>

#include "config/FrameworkRegistry.hpp"
#include "config/KeyTableParts.hpp"
#include "config/NodeTopologySchema.hpp"
#include "config/PlatformSpec.hpp"

namespace clearfog::config {

using units::Dimension;

KeySpec bandwidth_key(std::string path, std::string description, std::vector<Condition> only_with) {
  return {.path = std::move(path),
          .type = KeyType::Quantity,
          .dimension = Dimension::Bandwidth,
          .constraint = Constraint::Positive,
          .description = std::move(description),
          .only_with = std::move(only_with)};
}

KeySpec latency_key(std::string path, std::string description, std::vector<Condition> only_with) {
  return {.path = std::move(path),
          .type = KeyType::Quantity,
          .dimension = Dimension::Time,
          .constraint = Constraint::NonNegative,
          .description = std::move(description),
          .only_with = std::move(only_with)};
}


namespace {

std::string name_of(FabricTopology t) { return std::string(fabric_topology_name(t)); }

/// The kinds of node topology for which `holds` is true, by name.
template <typename Holds>
std::vector<std::string> node_kinds(Holds holds) {
  std::vector<std::string> names;
  for (const auto* kind : node_topology_schemas())
    if (holds(*kind)) names.emplace_back(kind->name());
  return names;
}

/// node.topology's reference: each kind's summary.
std::string node_topology_description() {
  std::string text = "How the devices of a node are joined.";
  for (const auto* kind : node_topology_schemas()) text += fmt::format(" {}: {};", kind->name(), kind->summary());
  text.back() = '.';
  return text;
}

/// Each kind's own keys, used only with that kind.
std::vector<KeySpec> node_kind_keys() {
  std::vector<KeySpec> keys;
  for (const auto* kind : node_topology_schemas())
    for (KeySpec key : kind->keys()) {
      key.only_with.push_back(Condition::one_of("node.topology", {std::string(kind->name())}));
      keys.push_back(std::move(key));
    }
  return keys;
}

/// Several nodes: every fabric key but fabric.nodes is used only then.
Condition several_nodes() { return Condition::greater("fabric.nodes", 1); }

/// fabric.topology is `t` (and there is a fabric).
std::vector<Condition> fabric_is(FabricTopology t) {
  return {several_nodes(), Condition::one_of("fabric.topology", {name_of(t)})};
}

/// A dragonfly count (SimGrid's DragonflyParams): required with a dragonfly fabric.
KeySpec dragonfly(std::string name, std::string counts, std::string description) {
  return {.path = "fabric.dragonfly." + std::move(name),
          .type = KeyType::Integer,
          .constraint = Constraint::AtLeastOne,
          .counts = std::move(counts),
          .description = std::move(description),
          .only_with = fabric_is(FabricTopology::Dragonfly)};
}

/// `prefix`.efficiency of a protocol's figures: optional, a fraction.
KeySpec protocol_efficiency(std::string prefix, std::string description) {
  return {.path = std::move(prefix) + ".efficiency",
          .type = KeyType::Number,
          .presence = Presence::Optional,
          .constraint = Constraint::Fraction,
          .description = std::move(description)};
}

/// `prefix`.step_overhead of a protocol's figures: only with its efficiency.
KeySpec protocol_overhead(const std::string& prefix, const std::string& what) {
  return {.path = prefix + ".step_overhead",
          .type = KeyType::Quantity,
          .dimension = Dimension::Time,
          .presence = Presence::Defaulted,
          .default_text = "0 us",
          .constraint = Constraint::NonNegative,
          .description = "Fixed cost of each algorithm step with " + what + ", on top of the route latency.",
          .only_with = {Condition::greater(prefix + ".efficiency", 0)}};
}

/// Every platform key, in reference order; the node kinds' own keys follow node.in_switch_reduction.
std::vector<KeySpec> platform_keys() {
  std::vector<KeySpec> keys = {
          kind_key(DocumentKind::Platform),
          {.path = "name",
           .description = "Human-readable name, e.g. \"DGX A100 cluster ({fabric.nodes} nodes)\". A {key} in it "
                          "is replaced by that integer key's value as resolved, --set included: cite the counts "
                          "rather than writing them."},
          {.path = "source",
           .description = "Where the figures come from and what is assumed."},
          {.path = "framework",
           .type = KeyType::Enum,
           .choices = framework_names(),
           .presence = Presence::Optional,
           .description = "The software stack this machine usually runs (docs/frameworks.md), e.g. "
                          "xla-fused for a TPU pod: the framework of every scenario on it that names "
                          "none."},
          {.path = "accelerator",
           .type = KeyType::Reference,
           .referenced_kind = DocumentKind::Accelerator,
           .description = "The accelerator of every device (of every node outside mixed.nodes)."},
          {.path = "mixed.accelerator",
           .type = KeyType::Reference,
           .referenced_kind = DocumentKind::Accelerator,
           .presence = Presence::Optional,
           .description = "A second kind of device: the accelerator of the nodes in mixed.nodes (a "
                          "heterogeneous pipeline, docs/heterogeneous-pipelines.md). Absent: every node has "
                          "`accelerator`."},
          {.path = "mixed.nodes",
           .type = KeyType::Integer,
           .presence = Presence::Optional,
           .constraint = Constraint::NonNegative,
           .counts = "node",
           .description = "Nodes (0 ... fabric.nodes-1) whose devices are mixed.accelerator; given with it.",
           .list = true},

          // The node.
          {.path = "node.devices",
           .type = KeyType::Integer,
           .constraint = Constraint::AtLeastOne,
           .counts = "devices",
           .description = "Accelerators per node; named dev0 ... dev<n-1> in node.custom.edges."},
          {.path = "node.topology",
           .type = KeyType::Enum,
           .choices = node_kinds([](const NodeTopologySchema&) { return true; }),
           .presence = Presence::Defaulted,
           .default_text = std::string(NodeTopology().name()),
           .description = node_topology_description()},
          bandwidth_key("node.link.bandwidth",
                        "Bandwidth per direction of one link, as the kind uses it: switch: a device's port to the "
                        "switch; hybrid-cube-mesh: one NVLink brick (pairs joined by two bricks get twice this); "
                        "pcie-tree: a device's link to its PCIe switch; the other kinds: one device-to-device link.",
                        {Condition::none_of("node.topology", node_kinds([](const NodeTopologySchema& k) {
                                              return !k.uses_node_link();
                                            }))}),
          latency_key("node.link.latency",
                      "Latency of one link (as for bandwidth); a switched device-to-device route crosses two.",
                      {Condition::none_of("node.topology", node_kinds([](const NodeTopologySchema& k) {
                                            return !k.uses_node_link();
                                          }))}),
          {.path = "node.in_switch_reduction",
           .type = KeyType::Bool,
           .presence = Presence::Defaulted,
           .default_text = "false",
           .description = "The switch can reduce data sent to it (NVLink SHARP / NVLS on H100's "
                          "NVSwitch); allows collectives.algorithm: in-switch.",
           .only_with = {Condition::one_of("node.topology",
                                           node_kinds([](const NodeTopologySchema& k) { return k.has_switch(); }))}},

          // The fabric between nodes.
          {.path = "fabric.nodes",
           .type = KeyType::Integer,
           .presence = Presence::Defaulted,
           .default_text = "1",
           .constraint = Constraint::AtLeastOne,
           .counts = "nodes",
           .description = "Number of nodes; 1 is a single node and no fabric (every other fabric key "
                          "needs more)."},
          {.path = "fabric.topology",
           .type = KeyType::Enum,
           .choices = names(kAllFabricTopologies, fabric_topology_name),
           .presence = Presence::Defaulted,
           .default_text = name_of(FabricTopology::FatTree),
           .description = "How the nodes are joined: fat-tree (InfiniBand, with fabric.fat_tree.*), "
                          "torus (fabric.torus.dims) or dragonfly (fabric.dragonfly.*).",
           .only_with = {several_nodes()}},
          {.path = "fabric.nic.count",
           .type = KeyType::Integer,
           .constraint = Constraint::AtLeastOne,
           .counts = "NICs",
           .description = "Network interfaces per node; must divide node.devices.",
           .only_with = {several_nodes()}},
          bandwidth_key("fabric.nic.bandwidth", "Bandwidth of one NIC, per direction (usable, not line rate).",
                    {several_nodes()}),
          latency_key("fabric.nic.latency", "Latency from a NIC to its fabric switch.", {several_nodes()}),
          {.path = "fabric.rail_optimized",
           .type = KeyType::Bool,
           .presence = Presence::Defaulted,
           .default_text = "true",
           .description = "NIC i serves devices i*devices/nic.count ... (i+1)*devices/nic.count-1, so "
                          "each device uses one NIC (DGX rails); false: every device may use every NIC.",
           .only_with = {several_nodes()}},
          {.path = "fabric.degraded_nics",
           .type = KeyType::Record,
           .presence = Presence::Optional,
           .description = "NICs slower than fabric.nic.bandwidth (a degraded cable, port or transceiver): "
                          "NIC `nic` of node `node` moves data at fabric.nic.bandwidth / slowdown in each "
                          "direction. The planner does not know (as NCCL does not): only the replay slows. "
                          "Absent: every NIC at its bandwidth.",
           .list = true,
           .fields =
               {
                   {.path = "node", .type = KeyType::Integer, .constraint = Constraint::NonNegative,
                    .counts = "node", .description = "Node index, 0 ... fabric.nodes-1."},
                   {.path = "nic", .type = KeyType::Integer, .constraint = Constraint::NonNegative,
                    .counts = "NIC", .description = "NIC index in the node, 0 ... fabric.nic.count-1."},
                   {.path = "slowdown", .type = KeyType::Number, .constraint = Constraint::Positive,
                    .description = "Factor on its transfer time, 1 ... 1000 (2: half the bandwidth)."},
               },
           .only_with = {several_nodes()}},
          {.path = "fabric.link.bandwidth",
           .type = KeyType::Quantity,
           .dimension = Dimension::Bandwidth,
           .presence = Presence::Derived,
           .default_text = "fabric.nic.count x fabric.nic.bandwidth",
           .constraint = Constraint::Positive,
           .description = "Bandwidth per direction of one link between fabric switches (fat-tree, "
                          "dragonfly) or between nodes (torus). A node reaches the fabric through one such "
                          "link, so the rail planes of its NICs are folded into it: the default carries "
                          "all of a node's NICs."},
          {.path = "fabric.link.latency",
           .type = KeyType::Quantity,
           .dimension = Dimension::Time,
           .presence = Presence::Derived,
           .default_text = "fabric.nic.latency",
           .constraint = Constraint::NonNegative,
           .description = "Latency of one link between fabric switches or nodes.",
           .only_with = {several_nodes()}},
          {.path = "fabric.fat_tree.leaf_nodes",
           .type = KeyType::Integer,
           .presence = Presence::Defaulted,
           .default_text = "16",
           .constraint = Constraint::AtLeastOne,
           .counts = "nodes",
           .description = "Most nodes under one leaf switch when fabric.fat_tree.down is not given: the "
                          "tree is then derived from fabric.nodes alone, one switch for up to this many "
                          "nodes, else two levels of L nodes per leaf (L the largest divisor of "
                          "fabric.nodes up to this) under L spines, non-blocking. 16: half the ports of a "
                          "40-port HDR switch.",
           .only_with = fabric_is(FabricTopology::FatTree)},
          {.path = "fabric.fat_tree.down",
           .type = KeyType::Integer,
           .presence = Presence::Derived,
           .default_text = "from fabric.nodes and fabric.fat_tree.leaf_nodes",
           .constraint = Constraint::AtLeastOne,
           .description = "Children of a switch at each level, from the leaves up (SimGrid's fat tree "
                          "down counts); the product must be fabric.nodes.",
           .list = true,
           .only_with = fabric_is(FabricTopology::FatTree)},
          {.path = "fabric.fat_tree.up",
           .type = KeyType::Integer,
           .presence = Presence::Derived,
           .default_text = "[1, ...], or [1, L] when derived",
           .constraint = Constraint::AtLeastOne,
           .description = "Parents of a node or switch at each level (SimGrid's up counts); one entry "
                          "per level of fabric.fat_tree.down.",
           .list = true,
           .only_with = fabric_is(FabricTopology::FatTree)},
          {.path = "fabric.fat_tree.parallel",
           .type = KeyType::Integer,
           .presence = Presence::Derived,
           .default_text = "[1, ...]",
           .constraint = Constraint::AtLeastOne,
           .description = "Parallel links between a node or switch and each parent, per level. "
                          "Default: 1 per level.",
           .list = true,
           .only_with = fabric_is(FabricTopology::FatTree)},
          {.path = "fabric.torus.dims",
           .type = KeyType::Integer,
           .constraint = Constraint::AtLeastOne,
           .description = "Extent of each dimension of a torus of nodes; the product must be "
                          "fabric.nodes.",
           .list = true,
           .only_with = fabric_is(FabricTopology::Torus)},
          dragonfly("groups", "groups", "Groups of the dragonfly."),
          dragonfly("group_links", "links", "Links between two groups."),
          dragonfly("chassis", "chassis", "Chassis per group."),
          dragonfly("chassis_links", "links", "Links between two chassis of a group."),
          dragonfly("routers", "routers", "Routers per chassis."),
          dragonfly("router_links", "links", "Links between two routers of a chassis."),
          dragonfly("nodes_per_router", "nodes",
                    "Nodes per router; groups*chassis*routers*nodes_per_router must be fabric.nodes."),
          {.path = "fabric.in_network_reduction",
           .type = KeyType::Bool,
           .presence = Presence::Defaulted,
           .default_text = "false",
           .description = "The fabric switches can reduce (InfiniBand SHARP); allows "
                          "collectives.algorithm: in-switch across nodes.",
           .only_with = {several_nodes()}},

          // How well collective libraries use the links (calibration).
          {.path = "collectives.efficiency",
           .type = KeyType::Number,
           .presence = Presence::Defaulted,
           .default_text = "1",
           .constraint = Constraint::Fraction,
           .description = "Achieved / nominal link bandwidth of collectives on large messages."},
          {.path = "collectives.step_overhead",
           .type = KeyType::Quantity,
           .dimension = Dimension::Time,
           .presence = Presence::Defaulted,
           .default_text = "0 us",
           .constraint = Constraint::NonNegative,
           .description = "Fixed cost of each step of a collective algorithm (kernel launch, "
                          "protocol, synchronisation)."},
          {.path = "collectives.copy_efficiency",
           .type = KeyType::Number,
           .presence = Presence::Optional,
           .constraint = Constraint::Fraction,
           .description = "Simple's payload / link bandwidth for operations that only copy (all_gather, "
                          "all_to_all, broadcast, sendrecv; no reduction on the way); absent: "
                          "collectives.efficiency."},
          {.path = "collectives.intra_node.copy_efficiency",
           .type = KeyType::Number,
           .presence = Presence::Optional,
           .constraint = Constraint::Fraction,
           .description = "The same inside one node; absent: collectives.intra_node.efficiency.",
           .only_with = {Condition::greater("collectives.intra_node.efficiency", 0)}},
          {.path = "collectives.chunk",
           .type = KeyType::Quantity,
           .dimension = Dimension::Bytes,
           .presence = Presence::Defaulted,
           .default_text = "0 B",
           .constraint = Constraint::NonNegative,
           .description = "Pipelining chunk of ring steps; 0 B: no chunking."},
          protocol_efficiency("collectives.low_latency",
                              "NCCL's LL protocol (a flag with every 8 bytes): payload / link bandwidth; absent: "
                              "LL is not simulated on this platform and never chosen."),
          protocol_overhead("collectives.low_latency", "LL"),
          protocol_efficiency("collectives.ll128",
                              "NCCL's LL128 protocol (a flag word per 128-byte line): payload / link bandwidth; "
                              "absent: LL128 is not simulated on this platform and never chosen."),
          protocol_overhead("collectives.ll128", "LL128"),
          protocol_efficiency("collectives.intra_node",
                              "Simple's figures for collectives whose ranks all sit in one node (NVLink "
                              "calibration of a cluster); absent: the figures above apply inside nodes too."),
          protocol_overhead("collectives.intra_node", "Simple inside a node"),
          protocol_efficiency("collectives.intra_node.low_latency", "LL's figures inside one node."),
          protocol_overhead("collectives.intra_node.low_latency", "LL inside a node"),
          protocol_efficiency("collectives.intra_node.ll128", "LL128's figures inside one node."),
          protocol_overhead("collectives.intra_node.ll128", "LL128 inside a node"),
          {.path = "collectives.in_switch.efficiency",
           .type = KeyType::Number,
           .presence = Presence::Defaulted,
           .default_text = "1",
           .constraint = Constraint::Fraction,
           .description = "In-switch reduction (NVLS): payload / link bandwidth of a member's traffic to "
                          "and from the reducing switch."},
          {.path = "collectives.in_switch.latency",
           .type = KeyType::Quantity,
           .dimension = Dimension::Time,
           .presence = Presence::Defaulted,
           .default_text = "0 us",
           .constraint = Constraint::NonNegative,
           .description = "In-switch reduction (NVLS): fixed cost paid once per collective (launch, "
                          "multicast synchronisation)."},
          {.path = "collectives.nccl.arch",
           .type = KeyType::Enum,
           .choices = names(kAllGpuArchs, gpu_arch_name),
           .presence = Presence::Defaulted,
           .default_text = std::string(gpu_arch_name(GpuArch::Ampere)),
           .description = "GPU generation whose tables NCCL's tuner uses (algorithm: nccl): volta, ampere "
                          "or hopper (compute capability 7.x, 8.x, 9.x). Other accelerators get the model "
                          "with Ampere's tables."},
          {.path = "collectives.interference.units",
           .type = KeyType::Integer,
           .presence = Presence::Defaulted,
           .default_text = "0",
           .constraint = Constraint::NonNegative,
           .counts = "compute units",
           .description = "Compute units (SMs) a running collective's kernels occupy on each member (NCCL: one "
                          "thread block per channel). Compute overlapping a collective on the same device runs "
                          "U/(U - units) times slower; must be below the accelerator's compute_units "
                          "(docs/frameworks.md)."},
          {.path = "collectives.interference.memory_share",
           .type = KeyType::Number,
           .presence = Presence::Defaulted,
           .default_text = "0",
           .constraint = Constraint::NonNegative,
           .description = "Share of the accelerator's memory bandwidth a running collective's traffic takes, "
                          "below 1. Memory is shared in proportion to demand: a kernel overlapping a collective "
                          "runs 1 + share times slower (the larger of this and the units' factor applies), and a "
                          "transfer through a link that touches a device running a kernel runs 1 + share times "
                          "slower (docs/frameworks.md)."},
          {.path = "collectives.source",
           .presence = Presence::Defaulted,
           .default_text = "",
           .description = "The measurements the collectives figures are fitted to."},
  };
  const auto after = std::find_if(keys.begin(), keys.end(),
                                  [](const KeySpec& k) { return k.path == "node.in_switch_reduction"; });
  const auto kind_keys = node_kind_keys();
  keys.insert(after + 1, kind_keys.begin(), kind_keys.end());
  return keys;
}

}  // namespace

KeyTable make_platform_table() {
  return KeyTable(DocumentKind::Platform,
                  "A machine: which accelerator, how many per node and how they are joined (node), how nodes are "
                  "joined (fabric, when fabric.nodes > 1) and how closely collective libraries reach the links "
                  "(collectives). Keys that belong to one topology may only be given with that topology.",
                  platform_keys());
}

}  // namespace clearfog::config
