#include "engine/ForkedPool.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <map>

#include "core/Errors.hpp"
#include "core/Interrupt.hpp"
#include "engine/ForkedChild.hpp"

namespace clearfog::engine {
namespace {

using Clock = std::chrono::steady_clock;
// How often timeouts and signals are looked at while every child is busy.
constexpr int kPollMs = 200;

struct Child {
  std::size_t index = 0;
  int fd = -1;
  std::string data;
  bool eof = false;
  Clock::time_point start;
  bool timed_out = false;
};

/// Reads what every running child has written; a pipe at its end is closed and marked.
void drain(std::map<pid_t, Child>& running) {
  std::vector<pollfd> polled;
  std::vector<pid_t> owners;
  for (auto& [pid, c] : running)
    if (!c.eof) {
      polled.push_back({c.fd, POLLIN, 0});
      owners.push_back(pid);
    }
  if (polled.empty()) return;
  if (::poll(polled.data(), polled.size(), kPollMs) < 0) {
    if (errno == EINTR) return;
    throw Error(fmt::format("poll failed: {}", std::strerror(errno)));
  }
  for (std::size_t i = 0; i < polled.size(); ++i) {
    if ((polled[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
    Child& c = running.at(owners[i]);
    char buf[65536];
    const ssize_t n = ::read(c.fd, buf, sizeof buf);
    if (n > 0) {
      c.data.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      c.eof = true;
      ::close(c.fd);
    }
  }
}

/// Kills (SIGKILL) the children that have run longer than `timeout_s`; their pipes then close.
void kill_late(std::map<pid_t, Child>& running, double timeout_s) {
  if (timeout_s <= 0) return;
  for (auto& [pid, c] : running)
    if (!c.timed_out && std::chrono::duration<double>(Clock::now() - c.start).count() > timeout_s) {
      ::kill(pid, SIGKILL);
      c.timed_out = true;
    }
}

void kill_all(std::map<pid_t, Child>& running) {
  for (auto& [pid, c] : running) {
    ::kill(pid, SIGKILL);
    if (!c.eof) ::close(c.fd);
    reap_child(pid);
  }
  running.clear();
}

}  // namespace

std::vector<ForkedOutcome> run_forked_all(const std::vector<std::function<std::string()>>& bodies,
                                          const ForkedPoolOptions& options) {
  std::vector<ForkedOutcome> outcomes(bodies.size());
  std::map<pid_t, Child> running;
  std::size_t next = 0;
  const int jobs = std::max(1, options.jobs);
  try {
    while (next < bodies.size() || !running.empty()) {
      throw_if_interrupted(fmt::format("{} of {} simulations were done", next - running.size(), bodies.size()));
      while (static_cast<int>(running.size()) < jobs && next < bodies.size()) {
        const ForkedChild child = fork_child(bodies[next]);
        running[child.pid] = {next++, child.fd, {}, false, Clock::now(), false};
      }
      // Drain every pipe while the children run: a result larger than the pipe buffer would
      // otherwise block its child forever.
      drain(running);
      kill_late(running, options.timeout_s);
      if (options.on_wait) options.on_wait();
      // Reap the children whose pipe is closed.
      for (auto it = running.begin(); it != running.end();) {
        if (!it->second.eof) {
          ++it;
          continue;
        }
        Child& c = it->second;
        const ChildOutcome outcome = decode_child(reap_child(it->first), c.data);
        auto& out = outcomes[c.index];
        out = {outcome.kind == ChildOutcome::Kind::Ok, c.timed_out, outcome.text};
        if (c.timed_out && !out.ok) out.text = fmt::format("no result after {:g} s (--timeout)", options.timeout_s);
        if (options.on_finished) options.on_finished(c.index, out);
        it = running.erase(it);
      }
    }
  } catch (...) {
    kill_all(running);
    throw;
  }
  return outcomes;
}

}  // namespace clearfog::engine
