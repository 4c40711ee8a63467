#include "anyfile/AnyFile.hpp"

#include <fmt/format.h>

#include <array>
#include <optional>
#include <string_view>

#include "config/ConfigLoader.hpp"
#include "config/ConfigReference.hpp"
#include "config/YamlFile.hpp"
#include "core/Errors.hpp"
#include "cluster/ClusterFile.hpp"
#include "compare/CompareChecks.hpp"
#include "compare/CompareFile.hpp"
#include "runfile/FileKeys.hpp"
#include "sweep/SweepChecks.hpp"

namespace clearfog::anyfile {
namespace {

constexpr std::array<std::string_view, 3> kRunFileKinds = {"sweep", "compare", "cluster"};

/// The `kind:` of a file when it is written as a plain value; nullopt otherwise (the document
/// validator then reports what is wrong).
std::optional<std::string> written_kind(const std::filesystem::path& file) {
  std::vector<Diagnostic> ignored;
  const auto root = config::read_yaml_file(file, std::nullopt, ignored);
  if (!root || !root->IsMap()) return std::nullopt;
  const YAML::Node kind = (*root)["kind"];
  if (!kind || !kind.IsScalar()) return std::nullopt;
  return kind.Scalar();
}

void validate_compare(const std::filesystem::path& file, const std::vector<config::Override>& overrides) {
  auto request = compare::load_compare_file(file);
  for (const auto& o : overrides) {
    request.set.push_back(o);
    request.set_locations.push_back({"--set", 0, 0});
  }
  compare::check_compare_request(request);
}

}  // namespace

std::string validate_any_file(const std::filesystem::path& file, const std::vector<config::Override>& overrides) {
  const auto kind = written_kind(file);
  if ((kind == "sweep" || kind == "cluster") && !overrides.empty())
    throw ConfigError({{{"--set", 0, 0}, overrides.front().key,
                        fmt::format("{} is a {} file: --set applies to scenario, platform, workload, accelerator "
                                    "and compare files (a sweep's keys go in its base scenario or its axes)",
                                    file.string(), *kind)}});
  if (kind == "sweep") {
    sweep::check_sweep_values(sweep::load_sweep(file));
    return *kind;
  }
  if (kind == "compare") {
    validate_compare(file, overrides);
    return *kind;
  }
  if (kind == "cluster") {
    cluster::check_cluster(cluster::load_cluster_file(file));
    return *kind;
  }
  return std::string(config::kind_name(config::validate_file(file, kRunFileKinds, overrides)));
}

std::vector<std::string> explainable_kinds() {
  std::vector<std::string> kinds;
  for (config::DocumentKind k : config::kAllDocumentKinds) kinds.emplace_back(config::kind_name(k));
  kinds.insert(kinds.end(), kRunFileKinds.begin(), kRunFileKinds.end());
  kinds.emplace_back("all");
  return kinds;
}

std::string explain_kind(const std::string& kind, bool markdown) {
  if (kind == "sweep")
    return runfile::render_file_keys("sweep", "A base scenario run over axes of its keys (`clearfog sweep`, docs/sweeps.md).",
                            runfile::sweep_file_keys(), markdown);
  if (kind == "compare")
    return runfile::render_file_keys("compare", "One workload on several platforms, each with its best parallelism "
                                       "(`clearfog compare`, docs/compare.md).",
                            runfile::compare_file_keys(), markdown);
  if (kind == "cluster")
    return runfile::render_file_keys("cluster", "Several jobs on one platform, simulated together (`clearfog cluster`, "
                                       "docs/cluster.md).",
                            runfile::cluster_file_keys(), markdown);
  if (const auto k = config::parse_kind(kind)) return config::render_key_table(*k, markdown);
  if (markdown) return config::configuration_reference_markdown();
  std::string out;
  for (config::DocumentKind k : config::kAllDocumentKinds) out += config::render_key_table(k, false) + '\n';
  return out;
}

}  // namespace clearfog::anyfile
