#include "parallel/BurstProgram.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "collectives/Collective.hpp"

namespace clearfog::parallel {
namespace {

using program::Category;
using program::OpIndex;
using program::Stream;
using program::Transfer;
constexpr OpIndex kNoOp = static_cast<OpIndex>(-1);

class BurstBuilder {
public:
  BurstBuilder(const BurstProblem& problem, const BurstPlan& plan, const BurstSchedule& schedule,
               const GroupCollectives& collectives)
      : p_(problem), plan_(plan), schedule_(schedule), collectives_(collectives) {
    plan_out_.ranks.resize(static_cast<std::size_t>(std::max(schedule.devices, collectives.endpoints)));
  }

  program::Plan build() {
    for (int k = 0; k < schedule_.iterations; ++k) iteration();
    return std::move(plan_out_);
  }

private:
  [[nodiscard]] int width(std::size_t l) const { return p_.widths[plan_.width_index[l]]; }

  void iteration() {
    const std::size_t L = p_.layers.size();
    const auto D = static_cast<std::size_t>(schedule_.devices);
    std::vector<OpIndex> arrived(D, kNoOp), done(D, kNoOp);
    std::vector<std::vector<OpIndex>> synced(D);
    for (std::size_t l = 0; l < L; ++l) {
      const auto& layer = p_.layers[l];
      for (int d = 0; d < width(l); ++d)
        done[d] = rank(d).add_compute(Stream::Compute, Category::Forward, layer.name + ".fwd",
                                      layer.forward_s[plan_.width_index[l]], deps_of(arrived[d]));
      if (l + 1 < L) reshard(width(l), width(l + 1), layer.output_B_per_sample, layer.name + ".act", done, arrived);
    }
    std::fill(arrived.begin(), arrived.end(), kNoOp);
    for (std::size_t l = L; l-- > 0;) {
      const auto& layer = p_.layers[l];
      for (int d = 0; d < width(l); ++d)
        done[d] = rank(d).add_compute(Stream::Compute, Category::Backward, layer.name + ".bwd",
                                      layer.backward_s[plan_.width_index[l]], deps_of(arrived[d]));
      all_reduce(l, done, synced);
      if (l > 0)
        reshard(width(l), width(l - 1), p_.layers[l - 1].output_B_per_sample, p_.layers[l - 1].name + ".grad", done,
                arrived);
    }
    for (std::size_t d = 0; d < D; ++d) {
      double optimizer_s = 0;
      for (std::size_t l = 0; l < L; ++l)
        if (static_cast<int>(d) < width(l)) optimizer_s += schedule_.optimizer_s[l];
      if (optimizer_s > 0 || !synced[d].empty())
        rank(static_cast<int>(d)).add_compute(Stream::Compute, Category::Optimizer, "optimizer", optimizer_s, synced[d]);
    }
  }

  program::RankProgram& rank(int d) { return plan_out_.ranks[static_cast<std::size_t>(d)]; }
  static std::vector<OpIndex> deps_of(OpIndex op) { return op == kNoOp ? std::vector<OpIndex>{} : std::vector{op}; }

  /// Samples move from device s mod `from` to device s mod `to`; each device's exchange sends once
  /// its own pass (`done`) ended, and the next pass on a receiving device waits for it (`arrived`).
  void reshard(int from, int to, double bytes_per_sample, const std::string& name, const std::vector<OpIndex>& done,
               std::vector<OpIndex>& arrived) {
    if (from == to) return;
    const std::uint64_t base = tags_.allocate(static_cast<std::uint64_t>(from) * static_cast<std::uint64_t>(to));
    const auto tag = [&](int i, int j) { return base + static_cast<std::uint64_t>(i) * static_cast<std::uint64_t>(to) + j; };
    for (int d = 0; d < std::max(from, to); ++d) {
      std::vector<Transfer> sends, recvs;
      for (int e = 0; e < std::max(from, to); ++e) {
        if (e == d) continue;
        if (d < from && e < to)
          if (const int n = samples_moved(p_.global_batch, from, d, to, e); n > 0)
            sends.push_back({e, n * bytes_per_sample, tag(d, e)});
        if (e < from && d < to)
          if (const int n = samples_moved(p_.global_batch, from, e, to, d); n > 0)
            recvs.push_back({e, n * bytes_per_sample, tag(e, d)});
      }
      if (sends.empty() && recvs.empty()) continue;
      const OpIndex op = rank(d).add_exchange(Stream::P2p, Category::PipelineComm, name, sends, recvs,
                                              d < from ? deps_of(done[d]) : std::vector<OpIndex>{});
      if (!recvs.empty()) arrived[d] = op;  // a device waits only for what it receives
    }
  }

  void all_reduce(std::size_t l, const std::vector<OpIndex>& done, std::vector<std::vector<OpIndex>>& synced) {
    const int w = width(l);
    const double bytes = p_.layers[l].gradient_B;
    if (w < 2 || bytes <= 0) return;
    std::vector<int> members(static_cast<std::size_t>(w));
    std::iota(members.begin(), members.end(), 0);
    auto request = collectives_.request(config::CollectiveOp::AllReduce, members, bytes);
    request.stream = Stream::Comm;
    request.category = Category::DataParallelComm;
    request.name = p_.layers[l].name + ".allreduce";
    request.deps.assign(members.size(), {});
    for (int d = 0; d < w; ++d) request.deps[static_cast<std::size_t>(d)] = {done[static_cast<std::size_t>(d)]};
    const auto ends = collectives::append_collective(plan_out_, request, tags_);
    for (int d = 0; d < w; ++d) synced[static_cast<std::size_t>(d)].push_back(ends[static_cast<std::size_t>(d)]);
  }

  const BurstProblem& p_;
  const BurstPlan& plan_;
  const BurstSchedule& schedule_;
  const GroupCollectives& collectives_;
  program::Plan plan_out_;
  collectives::TagAllocator tags_;
};

}  // namespace

program::Plan build_burst_plan(const BurstProblem& problem, const BurstPlan& plan, const BurstSchedule& schedule,
                               const GroupCollectives& collectives) {
  return BurstBuilder(problem, plan, schedule, collectives).build();
}

double BackgroundJob::iteration_s() const {
  return std::accumulate(forward_s.begin(), forward_s.end(), 0.0) +
         std::accumulate(backward_s.begin(), backward_s.end(), 0.0) + optimizer_s;
}

void add_background(program::Plan& plan, int devices, const BackgroundJob& job, int iterations) {
  for (int d = 0; d < devices; ++d) {
    auto& rank = plan.ranks[static_cast<std::size_t>(d)];
    for (int k = 0; k < iterations; ++k) {
      for (std::size_t l = 0; l < job.forward_s.size(); ++l)
        rank.add_compute(Stream::Background, Category::Forward, fmt::format("background.{}.fwd", l), job.forward_s[l]);
      for (std::size_t l = job.backward_s.size(); l-- > 0;)
        rank.add_compute(Stream::Background, Category::Backward, fmt::format("background.{}.bwd", l), job.backward_s[l]);
      rank.add_compute(Stream::Background, Category::Optimizer, "background.optimizer", job.optimizer_s);
    }
  }
}

}  // namespace clearfog::parallel
