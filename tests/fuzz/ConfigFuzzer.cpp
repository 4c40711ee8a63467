// libFuzzer target over everything that reads user text: the YAML loaders of the four document
// kinds (reading, checking and building the specs), the sweep and comparison files, `clearfog
// validate` on any file, and the `--set` parser. The only exception allowed out of them is
// clearfog::ConfigError; anything else (std::logic_error from a builder that met a value the checks
// let through, std::bad_alloc, a yaml-cpp or filesystem exception) escapes and libFuzzer reports it
// as a crash, as it does sanitizer reports, leaks and inputs slower than -timeout.
//
// Input: the first byte picks the reader (Mode), the rest is the file's text; for Mode::Overrides
// each line is one `--set` argument applied to scenarios/quickstart.yaml. The input is written to
// WORK/input.yaml, in a directory laid out like the repository (WORK/accelerators,
// WORK/../platforms, ../workloads, ../scenarios and ../quickstart.yaml), so that the references
// of the shipped files resolve. Built and run by scripts/fuzz.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "config/ConfigLoader.hpp"
#include "config/Override.hpp"
#include "core/Errors.hpp"
#include "anyfile/AnyFile.hpp"
#include "compare/CompareFile.hpp"
#include "sweep/SweepChecks.hpp"
#include "sweep/SweepSpec.hpp"

namespace {

enum class Mode : std::uint8_t { Accelerator, Platform, Workload, Scenario, Sweep, Compare, Validate, Overrides };
constexpr std::uint8_t kModes = 8;

namespace fs = std::filesystem;

/// The repository layout the input sees, made once per process.
struct Workspace {
  fs::path root;   // a private directory
  fs::path work;   // where the input is written
  fs::path input;
  fs::path scenario;  // scenarios/quickstart.yaml, for the overrides

  Workspace() {
    const fs::path source = CLEARFOG_SOURCE_DIR;
    root = fs::temp_directory_path() / ("clearfog-fuzz-" + std::to_string(::getpid()));
    work = root / "work";
    fs::create_directories(work);
    for (const char* dir : {"platforms", "workloads", "scenarios", "tests"})
      fs::create_directory_symlink(source / dir, root / dir);
    fs::create_directory_symlink(source / "platforms" / "accelerators", work / "accelerators");
    fs::create_symlink(source / "scenarios" / "quickstart.yaml", root / "quickstart.yaml");
    input = work / "input.yaml";
    scenario = source / "scenarios" / "quickstart.yaml";
  }
  ~Workspace() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
};

Workspace& workspace() {
  static Workspace w;
  return w;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = text.find('\n', start);
    lines.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return lines;
}

void run(Mode mode, const std::string& text) {
  const Workspace& w = workspace();
  if (mode == Mode::Overrides) {
    std::vector<clearfog::config::Override> overrides;
    for (const auto& line : lines_of(text)) overrides.push_back(clearfog::config::parse_override(line));
    clearfog::config::load_scenario(w.scenario, overrides);
    return;
  }
  {
    std::ofstream out(w.input, std::ios::binary | std::ios::trunc);
    out << text;
  }
  switch (mode) {
    case Mode::Accelerator: clearfog::config::load_accelerator(w.input); break;
    case Mode::Platform: clearfog::config::load_platform(w.input); break;
    case Mode::Workload: clearfog::config::load_workload(w.input); break;
    case Mode::Scenario: clearfog::config::load_scenario(w.input); break;
    case Mode::Sweep: clearfog::sweep::check_sweep_values(clearfog::sweep::load_sweep(w.input)); break;
    case Mode::Compare: clearfog::compare::load_compare_file(w.input); break;
    case Mode::Validate: clearfog::anyfile::validate_any_file(w.input); break;
    case Mode::Overrides: break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto mode = static_cast<Mode>(data[0] % kModes);
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    run(mode, text);
  } catch (const clearfog::ConfigError& e) {
    // Bad input: what every input must end in when it is not valid, each problem with a place
    // (a file or an option) and a message.
    if (e.diagnostics().empty()) std::abort();
    for (const auto& d : e.diagnostics())
      if (d.location.file.empty() || d.message.empty()) std::abort();
  }
  return 0;
}
