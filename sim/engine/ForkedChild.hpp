#pragma once
// One forked child process that runs a function and reports how it ended through a pipe: the
// building block of run_forked() (one child, errors rethrown) and run_forked_all() (a pool).
#include <sys/types.h>

#include <functional>
#include <string>

namespace clearfog::engine {

struct ForkedChild {
  pid_t pid = -1;
  int fd = -1;  // read end of the child's pipe; the caller reads it to EOF, closes it, then reaps
};

/// Forks a child that runs `body` and writes its result (or the exception it threw) to the pipe,
/// then _exit()s without SimGrid teardown. The child dies with its parent.
ForkedChild fork_child(const std::function<std::string()>& body);

/// How a reaped child ended, from its wait status and everything read from its pipe.
struct ChildOutcome {
  enum class Kind { Ok, SimulationError, ConfigError, BudgetError, OtherError, Died };
  Kind kind = Kind::Died;
  std::string text;  // the result when Ok, else the message
};

ChildOutcome decode_child(int wait_status, const std::string& data);

/// waitpid() that retries on EINTR; returns the wait status.
int reap_child(pid_t pid);

}  // namespace clearfog::engine
