#include "engine/ForkedRun.hpp"

#include <unistd.h>

#include <cerrno>

#include "core/Errors.hpp"
#include "engine/ForkedChild.hpp"
#include "engine/Replay.hpp"

#include <nlohmann/json.hpp>

namespace clearfog::engine {
namespace {

std::string read_all(int fd) {
  std::string data;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    data.append(buf, static_cast<std::size_t>(n));
  }
  return data;
}

}  // namespace

std::string run_forked(const std::function<std::string()>& body) {
  const ForkedChild child = fork_child(body);
  const std::string data = read_all(child.fd);
  ::close(child.fd);
  const ChildOutcome outcome = decode_child(reap_child(child.pid), data);
  switch (outcome.kind) {
    case ChildOutcome::Kind::Ok: return outcome.text;
    case ChildOutcome::Kind::SimulationError: throw SimulationError(outcome.text);
    case ChildOutcome::Kind::BudgetError: throw BudgetError(outcome.text);  // --max-memory: exit 2
    default: throw Error(outcome.text);  // config diagnostics were already formatted by the child
  }
}

SimulationResult simulate_forked(const topology::ClusterTopology& topology, const program::Plan& plan,
                                 const ReplayOptions& options) {
  // nlohmann::json prints doubles with round-trip precision, so timings come back bit-exact.
  const std::string text = run_forked([&] {
    const SimulationResult r = simulate(topology, plan, options);
    nlohmann::json j;
    j["makespan_s"] = r.makespan_s;
    j["ops_executed"] = r.ops_executed;
    j["messages"] = r.messages;
    j["replay"] = {{"mode", r.replay.mode},
                   {"detail", r.replay.detail},
                   {"simulated_ops", r.replay.simulated_ops},
                   {"simulated_messages", r.replay.simulated_messages}};
    auto& ops = j["ops"] = nlohmann::json::array();
    for (const auto& rank : r.ops) {
      auto row = nlohmann::json::array();
      for (const auto& t : rank) row.push_back({t.start_s, t.end_s});
      ops.push_back(std::move(row));
    }
    return j.dump();
  });
  const auto j = nlohmann::json::parse(text);
  SimulationResult r;
  r.makespan_s = j.at("makespan_s").get<double>();
  r.ops_executed = j.at("ops_executed").get<std::uint64_t>();
  r.messages = j.at("messages").get<std::uint64_t>();
  const auto& replay = j.at("replay");
  r.replay.mode = replay.at("mode").get<std::string>();
  r.replay.detail = replay.at("detail").get<std::string>();
  r.replay.simulated_ops = replay.at("simulated_ops").get<std::uint64_t>();
  r.replay.simulated_messages = replay.at("simulated_messages").get<std::uint64_t>();
  for (const auto& row : j.at("ops")) {
    auto& rank = r.ops.emplace_back();
    for (const auto& t : row) rank.push_back(OpTiming{t.at(0).get<double>(), t.at(1).get<double>()});
  }
  return r;
}

}  // namespace clearfog::engine
