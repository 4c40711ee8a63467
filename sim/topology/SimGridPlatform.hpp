#pragma once
// Turns a ClusterTopology into SimGrid netzones. Each node is a full zone: one host per device
// (plus one for a reducing switch), one split-duplex link per graph edge (so each direction has
// the full per-direction bandwidth), and an explicit route for every ordered device pair taken
// from TopologyGraph::route(). With several nodes, each node zone also has a gateway router and
// one split-duplex link per NIC, and the node zones are the leaves of a SimGrid fat-tree, torus or
// dragonfly zone built from the fabric parameters. Routing is hierarchical: no route table spans
// the cluster. All of it sits under a root full zone that also holds every link (created before any
// zone, which keeps the build O(links log links)); a symmetric replay adds its own zone beside the
// cluster's (engine/QuotientPlatform.hpp). Must be called once per process, after the SimGrid engine
// exists and before it runs; the root is left unsealed.
#include <vector>

#include "topology/ClusterTopology.hpp"

namespace simgrid::s4u {
class Host;
class Link;
class NetZone;
}

namespace clearfog::topology {

struct SimGridPlatform {
  /// index = endpoint: devices node-major, then each node's reducing switch
  /// (ClusterTopology::reduction_switch()).
  std::vector<simgrid::s4u::Host*> hosts;
  simgrid::s4u::NetZone* root = nullptr;  // the cluster's zone is its only child
  /// index = endpoint: the links that touch the device, whose transfers read or write its memory:
  /// its edges of the node graph and its NIC if the NIC serves it alone (empty for a reducing
  /// switch).
  std::vector<std::vector<simgrid::s4u::Link*>> device_links;
};

/// host_speed: the nominal speed given to every host; the engine converts op durations into
/// work amounts with it, so its value does not change results.
///
/// Routes: device to device inside a node as TopologyGraph::route(); device to another node: the
/// device's NIC link (ClusterTopology::nic_of()) up to the node's gateway, the fabric's links, and
/// the destination device's NIC link down, so one device pair is limited to one NIC while a node
/// can inject through all of its NICs at once. A reducing switch's host is reached from device i
/// over device i's port link only; it has no route to other nodes.
SimGridPlatform build_simgrid_platform(const ClusterTopology& cluster, double host_speed);

}  // namespace clearfog::topology
