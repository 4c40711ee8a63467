// What `clearfog shard` prints: the ranking, and why the winner wins (docs/dlrm.md, "Choosing the
// sharding").
#include <fmt/format.h>

#include "shard/ShardSearch.hpp"

namespace clearfog::shard {

namespace {

nlohmann::ordered_json candidate_json(const ShardCandidate& c) {
  nlohmann::ordered_json j;
  j["origin"] = c.origin;
  j["plan"] = c.plan_text;
  j["status"] = c.status;
  if (c.status == "error") {
    j["message"] = c.message;
    return j;
  }
  j["step_time_s"] = c.step_s;
  j["embedding_comm_s"] = c.embedding_comm_s;
  j["memory_B"] = c.memory_B;
  j["estimate"] = {{"step_s", c.estimate.step_s},
                   {"lookup_imbalance", c.estimate.lookup_imbalance()},
                   {"max_exchanged_B", c.estimate.max_moved_B()},
                   {"max_tables_B", c.estimate.max_table_B()},
                   {"allreduce_s", c.estimate.allreduce_s},
                   {"fits", c.estimate.fits}};
  return j;
}

std::string ms(double s) { return fmt::format("{:.3f}", s * 1e3); }
std::string mb(double b) { return fmt::format("{:.1f}", b / 1e6); }

/// The plan, and where it came from unless it is only one of the exhaustive space's.
std::string label(const ShardCandidate& c) {
  return c.origin == "exhaustive" ? c.plan_text : fmt::format("{} ({})", c.plan_text, c.origin);
}

/// One sentence on why `a` is faster than `b`: the figures of the estimate that differ most.
std::string why(const ShardCandidate& a, const ShardCandidate& b) {
  const auto& ea = a.estimate;
  const auto& eb = b.estimate;
  std::string text = fmt::format("{:.1f} % faster than {} ({} ms vs {} ms simulated)",
                                 (b.step_s / a.step_s - 1) * 100, label(b), ms(a.step_s), ms(b.step_s));
  text += fmt::format("; lookups busiest/mean {:.2f} vs {:.2f}", ea.lookup_imbalance(), eb.lookup_imbalance());
  text += fmt::format("; exchanged {} vs {} MB on the busiest device", mb(ea.max_moved_B()), mb(eb.max_moved_B()));
  if (ea.allreduce_s > 0 || eb.allreduce_s > 0)
    text += fmt::format("; replicated tables' all-reduce {} vs {} ms", ms(ea.allreduce_s), ms(eb.allreduce_s));
  text += fmt::format("; embedding comm waited {} vs {} ms; memory {} vs {} GB", ms(a.embedding_comm_s),
                      ms(b.embedding_comm_s), fmt::format("{:.2f}", a.memory_B / 1e9),
                      fmt::format("{:.2f}", b.memory_B / 1e9));
  return text;
}

std::string row(std::size_t rank, const ShardCandidate& c, double best_s) {
  if (c.status == "error") return fmt::format("{:>4}  error: {} — {}\n", rank, c.message, label(c));
  return fmt::format("{:>4} {:>9} {:>8} {:>10} {:>8.2f} {:>9} {:>7} {:>6}  {}\n", rank, ms(c.step_s),
                     fmt::format("{:+.1f}", (c.step_s / best_s - 1) * 100), ms(c.estimate.step_s),
                     c.estimate.lookup_imbalance(), mb(c.estimate.max_moved_B()),
                     fmt::format("{:.2f}", c.memory_B / 1e9), c.status, label(c));
}

}  // namespace

nlohmann::ordered_json shard_search_json(const ShardSearchResult& r) {
  nlohmann::ordered_json j;
  j["scenario"] = r.scenario;
  j["devices"] = r.group;
  j["exhaustive"] = r.exhaustive;
  j["exhaustive_space"] = r.exhaustive_plans;
  j["simulated"] = r.ranked.size();
  j["pick_rank"] = r.pick + 1;
  j["pick_is_best"] = r.pick_is_best();
  j["pick_slowdown"] = r.pick_slowdown();
  auto& plans = j["plans"] = nlohmann::ordered_json::array();
  for (const auto& c : r.ranked) plans.push_back(candidate_json(c));
  return j;
}

std::string render_shard_search(const ShardSearchResult& r, std::size_t top) {
  if (r.ranked.empty()) return "no sharding plan was simulated\n";
  const auto& best = r.ranked.front();
  std::string out = fmt::format("clearfog shard — scenario {}: {} plans simulated on {} devices{}\n\n", r.scenario,
                                r.ranked.size(), r.group,
                                r.exhaustive ? fmt::format(" (the exhaustive space has {})", r.exhaustive_plans)
                                             : fmt::format(" (the exhaustive space of {} plans not searched)",
                                                           space_size_text(r.exhaustive_plans)));
  out += fmt::format("{:>4} {:>9} {:>8} {:>10} {:>8} {:>9} {:>7} {:>6}  {}\n", "rank", "step ms", "vs best %",
                     "est. ms", "lookups", "exch. MB", "mem. GB", "status", "plan (origin)");
  for (std::size_t i = 0; i < r.ranked.size(); ++i)
    if (i < top || i == r.pick) out += row(i + 1, r.ranked[i], best.step_s);
  out += "(est. ms: the planner's estimate of the embeddings, not simulated; lookups: the busiest device's lookup "
         "time over the mean; exch. MB: all-to-all bytes in and out of the busiest device; mem. GB: the busiest "
         "device's memory estimate; table@d: table-wise on device d, :rw/:cw/:dp row-wise, column-wise, data "
         "parallel)\n";
  out += fmt::format("\nbest: {} — {}\n", best.origin, best.plan_text);
  if (r.ranked.size() > 1 && r.ranked[1].status != "error") out += "  runner-up: " + why(best, r.ranked[1]) + "\n";
  if (r.pick_is_best())
    out += "the planner's pick (estimated, not simulated) is the fastest\n";
  else
    out += fmt::format("the planner's pick (estimated, not simulated) is rank {}, {:.1f} % slower\n  pick: {}\n",
                       r.pick + 1, r.pick_slowdown() * 100, why(best, r.ranked[r.pick]));
  return out;
}

}  // namespace clearfog::shard
