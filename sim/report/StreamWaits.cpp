#include "report/StreamWaits.hpp"

#include <algorithm>

namespace clearfog::report {

double stream_wait_s(const program::RankProgram& program, const engine::RankTimings::Timeline& timings,
                     program::Stream waited_on) {
  double total = 0, previous_end = 0;
  for (program::OpIndex i = 0; i < program.size(); ++i) {
    if (program.stream(i) != program::Stream::Compute) continue;
    double ready = previous_end, waited_end = -1;
    for (const program::OpIndex d : program.deps(i)) {
      if (program.stream(d) == waited_on)
        waited_end = std::max(waited_end, timings[d].end_s);
      else
        ready = std::max(ready, timings[d].end_s);
    }
    total += std::max(0.0, waited_end - ready);
    previous_end = timings[i].end_s;
  }
  return total;
}

}  // namespace clearfog::report
