// Runs one case of the bad-input catalogue (tests/bad-inputs/README.md): the clearfog command a case
// file names, under a time limit and a memory limit, and checks its exit code and the exact
// beginning of what it prints. A hang, a crash or memory exhaustion fails the case like a wrong
// message does.
//
//   clearfog_bad_input_driver CASE --binary CLEARFOG --source-dir ROOT --work DIR [--no-memory-limit]
//
// Exit 0: the case holds; 1: it does not (the reason on stderr); 77: a pending case still fails
// (CTest's SKIP_RETURN_CODE), see `# pending:`.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;

namespace {

constexpr int kSkip = 77;
constexpr auto kTimeLimit = std::chrono::seconds(60);
constexpr rlim_t kMemoryLimit = rlim_t{4} << 30;  // address space of the command: 4 GiB

struct Case {
  std::string args;
  int exit_code = 0;
  std::vector<std::string> stderr_lines;  // each the exact beginning of one line, in order
  std::vector<std::string> stdout_lines;
  std::vector<std::string> before;        // shell commands run first
  std::string pending;                    // why the case is known to fail for now
};

struct Places {
  std::string binary, root, dir, case_file, tmp;
};

std::string substitute(std::string text, const Places& p) {
  const std::pair<std::string, std::string> names[] = {
      {"{clearfog}", p.binary}, {"{root}", p.root}, {"{dir}", p.dir}, {"{case}", p.case_file}, {"{tmp}", p.tmp}};
  for (const auto& [name, value] : names)
    for (auto at = text.find(name); at != std::string::npos; at = text.find(name, at + value.size()))
      text.replace(at, name.size(), value);
  return text;
}

/// The "# key: value" lines at the top of a case file (until the first line that is not a comment).
std::optional<Case> read_case(const fs::path& file, std::string& error) {
  std::ifstream in(file, std::ios::binary);
  Case c;
  bool has_args = false, has_exit = false;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.starts_with("#")) break;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(1, colon - 1).erase(0, line[1] == ' ' ? 1 : 0);
    std::string value = line.substr(colon + 1);
    if (value.starts_with(" ")) value.erase(0, 1);
    if (key == "args") c.args = value, has_args = true;
    else if (key == "exit") c.exit_code = std::stoi(value), has_exit = true;
    else if (key == "stderr") c.stderr_lines.push_back(value);
    else if (key == "stdout") c.stdout_lines.push_back(value);
    else if (key == "before") c.before.push_back(value);
    else if (key == "pending") c.pending = value;
  }
  if (!has_args || !has_exit) {
    error = "a case starts with \"# args:\" and \"# exit:\" lines";
    return std::nullopt;
  }
  return c;
}

/// Runs `command` with /bin/sh in its own process group; stdout and stderr to files. The exit
/// code, or nullopt when it ran past the time limit (then it is killed).
std::optional<int> run_shell(const std::string& command, const fs::path& out, const fs::path& err, bool limit_memory) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    if (limit_memory) {
      const rlimit limit{kMemoryLimit, kMemoryLimit};
      ::setrlimit(RLIMIT_AS, &limit);
    }
    if (!std::freopen(out.c_str(), "w", stdout) || !std::freopen(err.c_str(), "w", stderr)) ::_exit(126);
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + kTimeLimit;
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return std::nullopt;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

std::vector<std::string> lines_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

/// Every expected beginning matches the line at its position; the first mismatch otherwise.
std::optional<std::string> mismatch(const std::vector<std::string>& expected, const fs::path& file,
                                    const std::string& stream) {
  const auto lines = lines_of(file);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (i >= lines.size())
      return stream + ": line " + std::to_string(i + 1) + " missing; expected it to start with\n  " + expected[i];
    if (!lines[i].starts_with(expected[i]))
      return stream + ": line " + std::to_string(i + 1) + " is\n  " + lines[i] + "\nexpected it to start with\n  " +
             expected[i];
  }
  return std::nullopt;
}

std::string text_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str().substr(0, 4000);
}

/// Runs the case; empty when it holds, else why not.
std::string check(const Case& c, const Places& p, bool limit_memory) {
  const fs::path out = fs::path(p.tmp) / "stdout", err = fs::path(p.tmp) / "stderr";
  for (const auto& step : c.before) {
    const auto code = run_shell(substitute(step, p), out, err, false);
    if (code != 0) return "setup step failed: " + substitute(step, p) + "\n" + text_of(err);
  }
  const std::string command = substitute("exec {clearfog} " + c.args, p);
  const auto code = run_shell(command, out, err, limit_memory);
  if (!code) return "timed out after 60 s: " + command;
  std::string why;
  if (*code != c.exit_code)
    why = "exit code " + std::to_string(*code) + ", expected " + std::to_string(c.exit_code) + "\n";
  std::vector<std::string> expected_err, expected_out;
  for (const auto& l : c.stderr_lines) expected_err.push_back(substitute(l, p));
  for (const auto& l : c.stdout_lines) expected_out.push_back(substitute(l, p));
  if (auto m = mismatch(expected_err, err, "stderr")) why += *m + "\n";
  if (auto m = mismatch(expected_out, out, "stdout")) why += *m + "\n";
  if (!why.empty()) why = "$ " + command + "\n" + why + "--- stderr ---\n" + text_of(err);
  return why;
}

}  // namespace

int main(int argc, char** argv) {
  Places p;
  std::string work;
  bool limit_memory = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--binary" && i + 1 < argc) p.binary = argv[++i];
    else if (a == "--source-dir" && i + 1 < argc) p.root = argv[++i];
    else if (a == "--work" && i + 1 < argc) work = argv[++i];
    else if (a == "--no-memory-limit") limit_memory = false;
    else if (!a.empty()) p.case_file = a;  // CMake passes an empty argument for an unset option
  }
  if (p.binary.empty() || p.root.empty() || work.empty() || p.case_file.empty()) {
    std::cerr << "usage: clearfog_bad_input_driver CASE --binary CLEARFOG --source-dir ROOT --work DIR\n";
    return 2;
  }
  p.dir = fs::path(p.case_file).parent_path().string();
  p.tmp = (fs::path(work) / fs::path(p.case_file).stem()).string();
  fs::remove_all(p.tmp);
  fs::create_directories(p.tmp);
  ::setenv("CLEARFOG_CACHE_DIR", (fs::path(p.tmp) / "cache").c_str(), 1);

  std::string error;
  const auto c = read_case(p.case_file, error);
  if (!c) {
    std::cerr << p.case_file << ": " << error << '\n';
    return 1;
  }
  const std::string why = check(*c, p, limit_memory);
  if (!c->pending.empty()) {
    if (why.empty()) {
      std::cerr << p.case_file << ": the pending case holds now; remove its \"# pending:\" line\n";
      return 1;
    }
    std::cerr << "pending (" << c->pending << "):\n" << why;
    return kSkip;
  }
  if (!why.empty()) {
    std::cerr << p.case_file << ":\n" << why;
    return 1;
  }
  return 0;
}
