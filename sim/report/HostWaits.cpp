#include "report/HostWaits.hpp"

#include <algorithm>

namespace clearfog::report {

double host_wait_s(const program::RankProgram& program, const engine::RankTimings::Timeline& timings) {
  double total = 0, previous_end = 0;
  for (program::OpIndex i = 0; i < program.size(); ++i) {
    if (program.stream(i) != program::Stream::Compute) continue;
    double ready = previous_end, host_end = -1;
    for (const program::OpIndex d : program.deps(i)) {
      if (program.stream(d) == program::Stream::Host)
        host_end = std::max(host_end, timings[d].end_s);
      else
        ready = std::max(ready, timings[d].end_s);
    }
    total += std::max(0.0, host_end - ready);
    previous_end = timings[i].end_s;
  }
  return total;
}

}  // namespace clearfog::report
