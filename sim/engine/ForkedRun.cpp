#include "engine/ForkedRun.hpp"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "core/Errors.hpp"
#include "engine/Replay.hpp"

#include <nlohmann/json.hpp>

namespace clearfog::engine {
namespace {

// The child's first byte says how it ended; the rest is the payload or the error message.
constexpr char kOk = 'O';
constexpr char kSimulationError = 'S';
constexpr char kConfigError = 'C';
constexpr char kOtherError = 'E';

void write_all(int fd, const std::string& data) {
  std::size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    off += static_cast<std::size_t>(n);
  }
}

std::string read_all(int fd) {
  std::string data;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    data.append(buf, static_cast<std::size_t>(n));
  }
  return data;
}

}  // namespace

std::string run_forked(const std::function<std::string()>& body) {
  // Unflushed output would otherwise be written twice, by the parent and by the child.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  int fds[2];
  if (::pipe(fds) != 0) throw Error(fmt::format("pipe failed: {}", std::strerror(errno)));
  const pid_t pid = ::fork();
  if (pid < 0) throw Error(fmt::format("fork failed: {}", std::strerror(errno)));
  if (pid == 0) {
    ::close(fds[0]);
    std::string out;
    try {
      out = kOk + body();
    } catch (const SimulationError& e) {
      out = kSimulationError + std::string(e.what());
    } catch (const ConfigError& e) {
      out = kConfigError + std::string(e.what());
    } catch (const std::exception& e) {
      out = kOtherError + std::string(e.what());
    }
    write_all(fds[1], out);
    ::close(fds[1]);
    ::_exit(0);  // no atexit handlers, no SimGrid teardown in the child
  }
  ::close(fds[1]);
  std::string data = read_all(fds[0]);
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status))
    throw Error(fmt::format("simulation process killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status))));
  if (data.empty()) throw Error("simulation process ended without a result");
  const char how = data[0];
  data.erase(0, 1);
  switch (how) {
    case kOk: return data;
    case kSimulationError: throw SimulationError(data);
    case kConfigError: throw Error(data);  // diagnostics were already formatted by the child
    default: throw Error(data);
  }
}

SimulationResult simulate_forked(const topology::ClusterTopology& topology, const program::Plan& plan) {
  // nlohmann::json prints doubles with round-trip precision, so timings come back bit-exact.
  const std::string text = run_forked([&] {
    const SimulationResult r = simulate(topology, plan);
    nlohmann::json j;
    j["makespan_s"] = r.makespan_s;
    j["ops_executed"] = r.ops_executed;
    j["messages"] = r.messages;
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
  for (const auto& row : j.at("ops")) {
    auto& rank = r.ops.emplace_back();
    for (const auto& t : row) rank.push_back(OpTiming{t.at(0).get<double>(), t.at(1).get<double>()});
  }
  return r;
}

}  // namespace clearfog::engine
