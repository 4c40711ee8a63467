#pragma once
// Turns a ClusterTopology into SimGrid netzones (one node for now): one host per device, one split-duplex link per
// graph edge (so each direction has the full per-direction bandwidth), and an explicit route for
// every ordered device pair taken from TopologyGraph::route(). Must be called once per process,
// after the SimGrid engine exists and before it runs.
#include <vector>

#include "topology/ClusterTopology.hpp"

namespace simgrid::s4u {
class Host;
}

namespace clearfog::topology {

struct SimGridPlatform {
  std::vector<simgrid::s4u::Host*> hosts;  // index = device
};

/// host_speed: the nominal speed given to every host; the engine converts op durations into
/// work amounts with it, so its value does not change results.
SimGridPlatform build_simgrid_platform(const ClusterTopology& cluster, double host_speed);

}  // namespace clearfog::topology
