#pragma once
// Which ranks a replay carries out, on which SimGrid hosts (engine/ActivityReplay.hpp).
#include <vector>

namespace simgrid::s4u {
class Host;
class Link;
}  // namespace simgrid::s4u

namespace clearfog::engine {

struct ReplayRanks {
  std::vector<int> ranks;                          // plan rank replayed by each slot
  std::vector<simgrid::s4u::Host*> hosts;          // host of each slot
  std::vector<int> slot_of_rank;                   // [plan rank] the slot whose timeline it shares (-1: none)
  std::vector<simgrid::s4u::Host*> receiver_host;  // [plan rank] where a replayed send to it goes
  /// [slot] the links its kernels slow (Interference::collective); full replay only
  std::vector<std::vector<simgrid::s4u::Link*>> device_links;
};

}  // namespace clearfog::engine
