#include "engine/ForkedPool.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>

#include "core/Errors.hpp"

namespace clearfog::engine {
namespace {

// The child's first byte says how it ended; the rest is the result or the error message.
constexpr char kOk = 'O';
constexpr char kFailed = 'E';

void write_all(int fd, const std::string& data) {
  std::size_t off = 0;
  while (off < data.size()) {
    const ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    off += static_cast<std::size_t>(n);
  }
}

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
      // Unflushed output would otherwise be written twice, by the parent and by the child.
      std::cout.flush();
      std::cerr.flush();
      std::fflush(nullptr);
      int fds[2];
      if (::pipe(fds) != 0) throw Error(fmt::format("pipe failed: {}", std::strerror(errno)));
      const pid_t pid = ::fork();
      if (pid < 0) throw Error(fmt::format("fork failed: {}", std::strerror(errno)));
      if (pid == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a killed parent leaves no orphan simulations behind
        ::close(fds[0]);
        std::string out;
        try {
          out = kOk + bodies[next]();
        } catch (const std::exception& e) {
          out = kFailed + std::string(e.what());
        }
        write_all(fds[1], out);
        ::close(fds[1]);
        ::_exit(0);  // no atexit handlers, no SimGrid teardown in the child
      }
      ::close(fds[1]);
      running[pid] = {next++, fds[0], {}, false};
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
      int status = 0;
      while (::waitpid(it->first, &status, 0) < 0 && errno == EINTR) {
      }
      Child& c = it->second;
      ForkedOutcome& o = outcomes[c.index];
      if (WIFSIGNALED(status)) {
        o.text = fmt::format("simulation process killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
      } else if (c.data.empty()) {
        o.text = "simulation process ended without a result";
      } else {
        o.ok = c.data[0] == kOk;
        o.text = c.data.substr(1);
      }
      it = running.erase(it);
    }
  }
  return outcomes;
}

}  // namespace clearfog::engine
