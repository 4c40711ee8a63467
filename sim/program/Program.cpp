#include "program/Program.hpp"

#include <fmt/format.h>

#include <map>
#include <tuple>

#include "core/Errors.hpp"

namespace clearfog::program {

std::string_view stream_name(Stream s) {
  switch (s) {
    case Stream::Compute: return "compute";
    case Stream::Comm: return "comm";
    case Stream::Gather: return "gather";
  }
  return "?";
}

std::string_view category_name(Category c) {
  switch (c) {
    case Category::Forward: return "forward";
    case Category::Backward: return "backward";
    case Category::Optimizer: return "optimizer";
    case Category::DataParallelComm: return "dp_comm";
    case Category::TensorParallelComm: return "tp_comm";
    case Category::PipelineComm: return "pp_comm";
    case Category::Recompute: return "recompute";
    case Category::ExpertParallelComm: return "ep_comm";
  }
  return "?";
}

OpIndex RankProgram::add_compute(Stream stream, Category category, std::string name,
                                 double duration_s, std::vector<OpIndex> deps) {
  Op op;
  op.kind = OpKind::Compute;
  op.stream = stream;
  op.category = category;
  op.name = std::move(name);
  op.duration_s = duration_s;
  op.deps = std::move(deps);
  ops_.push_back(std::move(op));
  return static_cast<OpIndex>(ops_.size() - 1);
}

OpIndex RankProgram::add_exchange(Stream stream, Category category, std::string name,
                                  std::vector<Transfer> sends, std::vector<Transfer> recvs,
                                  std::vector<OpIndex> deps, double overhead_s) {
  Op op;
  op.kind = OpKind::Exchange;
  op.overhead_s = overhead_s;
  op.stream = stream;
  op.category = category;
  op.name = std::move(name);
  op.sends = std::move(sends);
  op.recvs = std::move(recvs);
  op.deps = std::move(deps);
  ops_.push_back(std::move(op));
  return static_cast<OpIndex>(ops_.size() - 1);
}

void check_plan(const Plan& plan) {
  using Key = std::tuple<int, int, std::uint64_t>;  // (src, dst, tag)
  struct Posted {
    double bytes;
    std::string where;
  };
  std::map<Key, Posted> sends;
  std::map<Key, Posted> recvs;
  const int n = plan.rank_count();
  for (int r = 0; r < n; ++r) {
    const auto& ops = plan.ranks[r].ops();
    for (OpIndex i = 0; i < ops.size(); ++i) {
      const Op& op = ops[i];
      const auto where = fmt::format("rank {} op {} ({})", r, i, op.name);
      // Deps point backwards only: this makes every plan acyclic by construction.
      for (OpIndex d : op.deps)
        if (d >= i) throw SimulationError(fmt::format("{} depends on op {}, which is not earlier", where, d));
      if (!(op.duration_s >= 0) || !(op.overhead_s >= 0))
        throw SimulationError(fmt::format("{} has a negative or NaN duration", where));
      auto post = [&](const Transfer& t, bool is_send) {
        if (t.peer < 0 || t.peer >= n || t.peer == r)
          throw SimulationError(fmt::format("{} names peer {} (ranks 0..{}, not itself)", where, t.peer, n - 1));
        if (!(t.bytes >= 0)) throw SimulationError(fmt::format("{} moves a negative size", where));
        Key key = is_send ? Key{r, t.peer, t.tag} : Key{t.peer, r, t.tag};
        auto& table = is_send ? sends : recvs;
        if (!table.emplace(key, Posted{t.bytes, where}).second)
          throw SimulationError(fmt::format("{} reuses tag {} between ranks {} and {}", where, t.tag,
                                            std::get<0>(key), std::get<1>(key)));
      };
      for (const auto& t : op.sends) post(t, true);
      for (const auto& t : op.recvs) post(t, false);
    }
  }
  for (const auto& [key, s] : sends) {
    auto it = recvs.find(key);
    if (it == recvs.end())
      throw SimulationError(fmt::format("{} sends tag {} to rank {}, which never receives it", s.where,
                                        std::get<2>(key), std::get<1>(key)));
    if (it->second.bytes != s.bytes)
      throw SimulationError(fmt::format("{} sends {} B but {} expects {} B", s.where, s.bytes,
                                        it->second.where, it->second.bytes));
  }
  for (const auto& [key, r] : recvs)
    if (!sends.count(key))
      throw SimulationError(fmt::format("{} waits for tag {} from rank {}, which never sends it", r.where,
                                        std::get<2>(key), std::get<0>(key)));
}

}  // namespace clearfog::program
