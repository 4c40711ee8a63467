#include "engine/ForkedPool.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

#include "core/Errors.hpp"
#include "engine/ForkedChild.hpp"

namespace clearfog::engine {
namespace {

struct Child {
  std::size_t index = 0;
  int fd = -1;
  std::string data;
  bool eof = false;
};

}  // namespace

std::vector<ForkedOutcome> run_forked_all(const std::vector<std::function<std::string()>>& bodies, int jobs) {
  std::vector<ForkedOutcome> outcomes(bodies.size());
  std::map<pid_t, Child> running;
  std::size_t next = 0;
  jobs = std::max(1, jobs);
  while (next < bodies.size() || !running.empty()) {
    while (static_cast<int>(running.size()) < jobs && next < bodies.size()) {
      const ForkedChild child = fork_child(bodies[next]);
      running[child.pid] = {next++, child.fd, {}, false};
    }
    // Drain every pipe while the children run: a result larger than the pipe buffer would
    // otherwise block its child forever.
    std::vector<pollfd> polled;
    std::vector<pid_t> owners;
    for (auto& [pid, c] : running)
      if (!c.eof) {
        polled.push_back({c.fd, POLLIN, 0});
        owners.push_back(pid);
      }
    if (!polled.empty() && ::poll(polled.data(), polled.size(), -1) < 0 && errno != EINTR)
      throw Error(fmt::format("poll failed: {}", std::strerror(errno)));
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
    // Reap the children whose pipe is closed.
    for (auto it = running.begin(); it != running.end();) {
      if (!it->second.eof) {
        ++it;
        continue;
      }
      Child& c = it->second;
      const ChildOutcome outcome = decode_child(reap_child(it->first), c.data);
      outcomes[c.index] = {outcome.kind == ChildOutcome::Kind::Ok, outcome.text};
      it = running.erase(it);
    }
  }
  return outcomes;
}

}  // namespace clearfog::engine
