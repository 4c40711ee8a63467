#pragma once
// What `clearfog platform info` reports about a machine: pure figures from the topology, no
// simulation. Bandwidths are per direction.
#include <string>
#include <vector>

#include "config/PlatformSpec.hpp"
#include "topology/ClusterTopology.hpp"

namespace clearfog::topology {

struct PlatformInfo {
  int devices = 0;                       // whole platform
  int nodes = 0;
  double injection_bandwidth_Bps = 0;    // per device: sum of its node links, one direction (least over devices)
  double nic_bandwidth_per_device_Bps = 0;  // fabrics: nic_count · NIC / devices per node; 0 for one node
  /// Fabrics: what one device can inject into the fabric when all of its node's devices do:
  /// min(its NIC share, the node's fabric link / devices per node); 0 for one node.
  double fabric_injection_per_device_Bps = 0;
  double bisection_bandwidth_Bps = 0;    // one direction, between two halves of the devices
  std::string bisection_method;          // "exact: …", "closed form: …", "upper bound: …"
  int diameter_hops = 0;                 // links on the longest device-to-device route
  std::vector<int> ring_order;           // ring order inside one node (local indices)
  /// The rings NCCL's channels take through a whole node (RingFamily.hpp), in local indices; empty
  /// where its devices have no cycle of direct links (every ring crosses a switch).
  std::vector<std::vector<int>> node_rings;
  double node_ring_Bps = 0;  // per ring, one direction
  std::string sketch;                    // drawing of one node (NodeSketch)
};

/// Single node: bisection from NodeBisection, diameter = the longest route in hops. Fabrics:
/// bisection = min(fabric cut (FabricShape), NICs of half the nodes, devices' own links of half
/// the devices); diameter = max(node diameter, NIC + fabric links + NIC).
PlatformInfo analyse_platform(const ClusterTopology& cluster);

/// Plain text for the terminal, one figure per line, then the ring and the sketch.
std::string render_platform_info(const PlatformInfo& info, const config::PlatformSpec& platform);

}  // namespace clearfog::topology
