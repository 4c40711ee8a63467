#pragma once
// The platform of a symmetric replay (Symmetry.hpp): a full zone beside the cluster's, with one host
// per representative rank and one per rank that receives from a representative without being one,
// and as its routes the representatives' routes folded onto link classes. It reuses the cluster's
// link objects (the cluster's own routes carry no flow in this replay), dividing the bandwidth of a
// link that stands for k real links' worth of flows by k.
#include "engine/ActivityReplay.hpp"
#include "engine/Symmetry.hpp"

namespace simgrid::s4u {
class NetZone;
}

namespace clearfog::engine {

/// Adds the quotient zone under `root` (unsealed; sealed here) and returns what the replay runs.
ReplayRanks build_quotient_platform(const program::Plan& plan, const SymmetryReduction& reduction,
                                    simgrid::s4u::NetZone* root, double host_speed);

}  // namespace clearfog::engine
