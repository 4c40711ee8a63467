// DualPipe's overlapped forward-and-backward (DeepSeek-V3 report, §3.2.1, Figure 4): the forward
// chunk of one micro-batch and the backward chunk of another are cut into their compute ops and
// issued alternately, their tensor- and expert-parallel collectives on the communication stream.
// A collective of one pass then runs while the compute stream works on the other pass, and waits
// only where its own pass needs its result (docs/pipeline-schedules.md).
#include <fmt/format.h>

#include <array>
#include <utility>

#include "parallel/StepPlanner.hpp"

namespace clearfog::parallel::detail {

using program::Category;
using program::OpIndex;
using program::Stream;

void StepPlanner::run_overlapped(int s, const ChunkPass& a, const ChunkPass& b) {
  // Record each pass's op-emitting calls, as its own chain from the pair's received inputs.
  std::array<std::vector<Deferred>, 2> scripts;
  const auto start = last_;
  const auto saved_stream = std::exchange(collective_stream_, Stream::Comm);
  for (int i = 0; i < 2; ++i) {
    recording_ = &scripts[i];
    run_body(s, i == 0 ? a : b);
  }
  recording_ = nullptr;
  collective_stream_ = saved_stream;

  // Replay them alternately, up to and including one compute op of a pass at a time.
  std::array<decltype(last_), 2> chains{start, start};
  std::array<std::size_t, 2> next{0, 0};
  for (int turn = 0; next[0] < scripts[0].size() || next[1] < scripts[1].size(); turn = 1 - turn) {
    auto& script = scripts[turn];
    last_ = chains[turn];
    while (next[turn] < script.size()) {
      const auto& call = script[next[turn]++];
      call.run();
      if (call.compute) break;
    }
    chains[turn] = last_;
  }

  // The pair's outputs leave once both passes are done: join the two chains.
  last_ = chains[1];
  for (int d = 0; d < dp_; ++d) {
    if (chains[1][d].empty()) last_[d] = chains[0][d];
    if (chains[0][d].empty() || chains[1][d].empty()) continue;
    for (std::size_t i = 0; i < members_[d].size(); ++i) {
      if (chains[0][d][i] == chains[1][d][i]) continue;
      last_[d][i] = step_.plan.ranks[members_[d][i]].add_compute(
          Stream::Compute, Category::Backward, fmt::format("mb{}.mb{}.fb_join", a.micro_batch, b.micro_batch), 0.0,
          {chains[0][d][i], chains[1][d][i]});
    }
  }
}

}  // namespace clearfog::parallel::detail
