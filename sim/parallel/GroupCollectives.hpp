#pragma once
// Collectives over any group of devices, as planners ask for them: the driver supplies the
// platform's calibration and the algorithm choice; tests use plain_group_collectives().
#include <functional>
#include <vector>

#include "collectives/Collective.hpp"
#include "config/CollectiveSpec.hpp"

namespace clearfog::parallel {

struct GroupCollectives {
  int endpoints = 0;  // ranks of the plan: devices, plus reducing-switch endpoints
  std::function<collectives::CollectiveRequest(config::CollectiveOp op, const std::vector<int>& members,
                                               double bytes)>
      request;
};

/// Ring for all-reduce / reduce-scatter / all-gather, direct for sendrecv and all-to-all, no
/// calibration.
GroupCollectives plain_group_collectives(int devices, config::Fidelity fidelity = config::Fidelity::Step);

}  // namespace clearfog::parallel
