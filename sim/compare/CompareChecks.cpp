#include "compare/CompareChecks.hpp"

#include <unistd.h>

#include <fstream>
#include <set>

#include "config/ConfigLoader.hpp"
#include "config/DocumentReader.hpp"
#include "core/Errors.hpp"

namespace clearfog::compare {
namespace {

/// Checks the request's `set` entries against the scenario, each key and value on its own, before
/// anything runs; problems are located where each entry is written.
void check_set(const CompareRequest& req, const std::filesystem::path& scenario_file) {
  static const std::set<std::string> kSearched = {"parallelism.tp", "parallelism.pp", "parallelism.dp",
                                                  "training.micro_batch", "training.global_batch"};
  std::vector<Diagnostic> out;
  const auto location = [&](std::size_t i) {
    return i < req.set_locations.size() ? req.set_locations[i] : SourceLocation{"--set", 0, 0};
  };
  for (std::size_t i = 0; i < req.set.size(); ++i)
    if (kSearched.count(req.set[i].key))
      out.push_back({location(i), req.set[i].key,
                     "compare searches the layout and micro-batch; use devices, global_batch or micro_batch "
                     "(--devices, --global-batch, --micro-batch) instead"});
  std::vector<Diagnostic> problems;
  config::read_document_file(scenario_file, config::DocumentKind::Scenario, req.set, problems);
  for (const Diagnostic& d : problems) {
    bool placed = false;
    for (std::size_t i = 0; i < req.set.size() && !placed; ++i) {
      const auto& key = req.set[i].key;
      if (d.location.file == "--set" && (d.key == key || d.key.starts_with(key + ".") || d.key.starts_with(key + "["))) {
        out.push_back({location(i), d.key, d.message});
        placed = true;
      }
    }
    if (!placed && d.location.file == "--set") out.push_back({location(0), d.key, d.message});
  }
  if (!out.empty()) throw ConfigError(std::move(out));
}

}  // namespace

ScratchDir::ScratchDir() {
  std::string name = (std::filesystem::temp_directory_path() / "clearfog-compare-XXXXXX").string();
  if (::mkdtemp(name.data()) == nullptr) throw Error("cannot create a temporary directory");
  dir = name;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

std::optional<std::string> set_value(const CompareRequest& req, const std::string& key) {
  std::optional<std::string> v;
  for (const auto& o : req.set)
    if (o.key == key) v = o.value;
  return v;
}

std::vector<config::Override> set_below(const CompareRequest& req, const std::string& prefix) {
  std::vector<config::Override> out;
  for (const auto& o : req.set)
    if (o.key.starts_with(prefix + ".")) out.push_back({o.key.substr(prefix.size() + 1), o.value});
  return out;
}

std::filesystem::path replaced(const CompareRequest& req, const std::string& key, const std::filesystem::path& file) {
  const auto v = set_value(req, key);
  return v ? std::filesystem::path(*v) : file;
}

void write_scenario_file(const std::filesystem::path& file, const CompareRequest& req,
                         const std::filesystem::path& platform, int global_batch) {
  std::ofstream f(file);
  f << "kind: scenario\nname: compare\n"
    << "platform: " << std::filesystem::absolute(platform).string() << "\n"
    << "workload: " << std::filesystem::absolute(req.workload).string() << "\n"
    << "training:\n  global_batch: " << global_batch << "\n  micro_batch: 1\n"
    << "collectives:\n  fidelity: " << config::fidelity_name(req.search_fidelity) << "\n";
}

void check_compare_request(const CompareRequest& req) {
  const ScratchDir scratch;
  if (!req.set.empty()) {
    const auto check_file = scratch.dir / "set-check.yaml";
    write_scenario_file(check_file, req, req.platforms.front(), 1);
    check_set(req, check_file);
  }
  std::vector<Diagnostic> problems;
  const auto collect = [&](const auto& load) {
    try {
      load();
    } catch (const ConfigError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  };
  collect([&] { config::load_workload(replaced(req, "workload", req.workload), set_below(req, "workload")); });
  for (const auto& file : req.platforms) {
    auto o = set_below(req, "platform");
    if (req.devices) o.push_back({"node.devices", std::to_string(*req.devices)});
    collect([&] { config::load_platform(replaced(req, "platform", file), o); });
  }
  if (!problems.empty()) throw ConfigError(std::move(problems));
}

}  // namespace clearfog::compare
