#pragma once
// Runs the clearfog binary (CLEARFOG_BINARY) with arguments through the shell, for CLI tests.
#include <catch2/catch.hpp>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace clearfog::test {

struct CliOutcome {
  int exit_code;
  std::string output;  // stdout, and stderr when asked for
};

inline CliOutcome run_cli(const std::string& args, bool with_stderr = true) {
  const std::string command =
      std::string(CLEARFOG_BINARY) + " " + args + (with_stderr ? " 2>&1" : " 2>/dev/null");
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string output;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), static_cast<int>(buf.size()), pipe) != nullptr) output += buf.data();
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

}  // namespace clearfog::test
