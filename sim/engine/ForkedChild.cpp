#include "engine/ForkedChild.hpp"

#include <fmt/format.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "core/Errors.hpp"
#include "core/Interrupt.hpp"

namespace clearfog::engine {
namespace {

// The child's first byte says how it ended; the rest is the payload or the error message.
constexpr char kOk = 'O';
constexpr char kSimulationError = 'S';
constexpr char kConfigError = 'C';
constexpr char kBudgetError = 'B';
constexpr char kOtherError = 'E';

void write_all(int fd, const std::string& data) {
  std::size_t off = 0;
  while (off < data.size()) {
    const ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    off += static_cast<std::size_t>(n);
  }
}

}  // namespace

ForkedChild fork_child(const std::function<std::string()>& body) {
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
    reset_interrupt_handlers();          // the parent's handlers only set its flag
    ::close(fds[0]);
    std::string out;
    try {
      out = kOk + body();
    } catch (const SimulationError& e) {
      out = kSimulationError + std::string(e.what());
    } catch (const ConfigError& e) {
      out = kConfigError + std::string(e.what());
    } catch (const BudgetError& e) {
      out = kBudgetError + std::string(e.what());
    } catch (const std::exception& e) {
      out = kOtherError + std::string(e.what());
    }
    write_all(fds[1], out);
    ::close(fds[1]);
    ::_exit(0);  // no atexit handlers, no SimGrid teardown in the child
  }
  ::close(fds[1]);
  return {pid, fds[0]};
}

ChildOutcome decode_child(int wait_status, const std::string& data) {
  using Kind = ChildOutcome::Kind;
  if (WIFSIGNALED(wait_status))
    return {Kind::Died, fmt::format("simulation process killed by signal {} ({})", WTERMSIG(wait_status),
                                    strsignal(WTERMSIG(wait_status)))};
  if (data.empty()) return {Kind::Died, "simulation process ended without a result"};
  const std::string text = data.substr(1);
  switch (data[0]) {
    case kOk: return {Kind::Ok, text};
    case kSimulationError: return {Kind::SimulationError, text};
    case kConfigError: return {Kind::ConfigError, text};
    case kBudgetError: return {Kind::BudgetError, text};
    default: return {Kind::OtherError, text};
  }
}

int reap_child(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace clearfog::engine
