#include "cluster/ClusterFile.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdio>

#include "config/ConfigLoader.hpp"
#include "config/PlatformSpec.hpp"
#include "config/ScaleLimits.hpp"
#include "core/Quote.hpp"
#include "core/Units.hpp"
#include "runfile/FileKeys.hpp"
#include "runfile/RunFileReader.hpp"
#include "sweep/SweepSpec.hpp"

namespace clearfog::cluster {
namespace {

// The keys of one job (documented as jobs[].KEY in cluster_file_keys()).
constexpr std::array<runfile::FileKey, 6> kJobKeys = {{{"scenario", "", "", ""},
                                              {"nodes", "", "", ""},
                                              {"name", "", "", ""},
                                              {"start", "", "", ""},
                                              {"iterations", "", "", ""},
                                              {"set", "", "", ""}}};
constexpr std::size_t kTopLevelKeys = 7;  // the first entries of cluster_file_keys()
constexpr int kMaxIterations = 1000;

class ClusterReader : runfile::RunFileReader {
public:
  using runfile::RunFileReader::RunFileReader;

  ClusterSpec read() {
    check_keys(root_, runfile::cluster_file_keys().first(kTopLevelKeys), "cluster", "a cluster file");
    spec_.name = root_["name"] && root_["name"].IsScalar() ? root_["name"].Scalar()
                                                           : std::filesystem::path(name_).stem().string();
    if (root_["description"] && root_["description"].IsScalar()) spec_.description = root_["description"].Scalar();
    if (!root_["platform"])
      error(root_, "platform", "missing: the platform file of the shared machine");
    else if (auto p = existing_path(root_["platform"], "platform"))
      spec_.platform = *p;
    read_placement();
    if (const YAML::Node set = root_["set"]) read_set(set, "set", spec_.platform_set);
    read_jobs();
    finish();
    return spec_;
  }

private:
  void read_placement() {
    const YAML::Node n = root_["placement"];
    if (!n) return;
    const std::string v = n.IsScalar() ? n.Scalar() : "";
    if (v == "packed" || v == "spread")
      spec_.placement = v == "packed" ? Placement::Packed : Placement::Spread;
    else
      error(n, "placement", fmt::format("unknown value {}; allowed: packed, spread", quote(v)));
  }

  void read_jobs() {
    const YAML::Node jobs = root_["jobs"];
    if (!jobs || !jobs.IsSequence() || jobs.size() == 0) {
      error(jobs ? jobs : root_, "jobs", "missing: a non-empty list of jobs (each with scenario and nodes)");
      return;
    }
    spec_.jobs_location = where(jobs);
    for (std::size_t j = 0; j < jobs.size(); ++j) read_job(jobs[j], j);
  }

  void read_job(const YAML::Node& n, std::size_t j) {
    const std::string key = fmt::format("jobs[{}]", j);
    if (!n.IsMap()) {
      error(n, key, "must be a mapping with scenario and nodes");
      return;
    }
    check_keys(n, kJobKeys, "", "");
    ClusterJob job;
    job.location = where(n);
    job.name = n["name"] && n["name"].IsScalar() ? n["name"].Scalar() : fmt::format("job{}", j);
    if (!n["scenario"])
      error(n, key + ".scenario", "missing: the job's scenario file");
    else if (auto p = existing_path(n["scenario"], key + ".scenario"))
      job.scenario = *p;
    read_nodes(n["nodes"], n, key + ".nodes", job.request);
    if (const YAML::Node s = n["start"]) read_start(s, key + ".start", job.start_s);
    if (const YAML::Node it = n["iterations"])
      job.iterations = positive(it, key + ".iterations", kMaxIterations).value_or(1);
    if (const YAML::Node set = n["set"]) read_set(set, key + ".set", job.set);
    spec_.jobs.push_back(std::move(job));
  }

  void read_nodes(const YAML::Node& n, const YAML::Node& job, const std::string& key, JobRequest& out) {
    if (!n) {
      error(job, key, "missing: how many nodes the job gets, or which ones ([0, 1])");
      return;
    }
    if (n.IsScalar()) {
      out.node_count = positive(n, key, config::kMaxDevices).value_or(0);
      return;
    }
    if (!n.IsSequence() || n.size() == 0) {
      error(n, key, "must be a count >= 1 or a non-empty list of node indices");
      return;
    }
    for (const auto& v : n)
      if (auto index = positive_or_zero(v, key)) out.nodes.push_back(*index);
    out.node_count = static_cast<int>(n.size());
  }

  std::optional<int> positive_or_zero(const YAML::Node& v, const std::string& key) {
    if (v.IsScalar() && v.Scalar() == "0") return 0;
    return positive(v, key, config::kMaxDevices - 1);
  }

  void read_start(const YAML::Node& n, const std::string& key, double& out) {
    try {
      out = units::parse(n.IsScalar() ? n.Scalar() : "", units::Dimension::Time);
      if (!(out >= 0)) error(n, key, fmt::format("must be >= 0 s, got {}", quote(n.Scalar())));
    } catch (const units::UnitError& e) {
      error(n, key, e.what());
    }
  }

  void read_set(const YAML::Node& set, const std::string& key, std::vector<config::Override>& out) {
    if (!set.IsMap()) {
      error(set, key, "must be a mapping of scenario key: value, as for run --set");
      return;
    }
    for (const auto& kv : set) {
      if (!kv.first.IsScalar() || kv.first.Scalar().empty())
        error(kv.first, key, "keys must be key paths such as training.micro_batch");
      else
        out.push_back({kv.first.Scalar(), sweep::override_value(kv.second, dir_)});
    }
  }

  ClusterSpec spec_;
};

/// A ConfigError whose diagnostics carry `where` (place_jobs and load_scenario know no file of ours).
ConfigError located(const ConfigError& e, const SourceLocation& where) {
  auto diagnostics = e.diagnostics();
  for (auto& d : diagnostics)
    if (d.location.line == 0) d.location = where;
  return ConfigError(std::move(diagnostics));
}

}  // namespace

ClusterSpec load_cluster_file(const std::filesystem::path& file) {
  const YAML::Node root = runfile::read_run_file(file, "cluster", "a cluster file");
  return ClusterReader(root, file.string(), std::filesystem::absolute(file).parent_path()).read();
}

config::ScenarioSpec load_job_scenario(const ClusterSpec& spec, std::size_t j) {
  const ClusterJob& job = spec.jobs.at(j);
  std::vector<config::Override> overrides = {{"platform", spec.platform.string()},
                                             {"platform.fabric.nodes", std::to_string(job.request.node_count)}};
  overrides.insert(overrides.end(), job.set.begin(), job.set.end());
  try {
    return config::load_scenario(job.scenario, overrides);
  } catch (const ConfigError& e) {
    throw located(e, job.location);
  }
}

std::vector<std::vector<int>> place_cluster_jobs(const ClusterSpec& spec, int cluster_nodes) {
  std::vector<JobRequest> requests;
  for (const auto& job : spec.jobs) requests.push_back(job.request);
  try {
    return place_jobs(requests, cluster_nodes, spec.placement);
  } catch (const ConfigError& e) {
    auto diagnostics = e.diagnostics();
    for (auto& d : diagnostics) {
      std::size_t j = 0;
      d.location = std::sscanf(d.key.c_str(), "jobs[%zu]", &j) == 1 && j < spec.jobs.size()
                       ? spec.jobs[j].location
                       : spec.jobs_location;
    }
    throw ConfigError(std::move(diagnostics));
  }
}

config::PlatformSpec load_cluster_platform(const ClusterSpec& spec) {
  return config::load_platform(spec.platform, spec.platform_set);
}

void check_cluster(const ClusterSpec& spec) {
  const config::PlatformSpec platform = load_cluster_platform(spec);
  place_cluster_jobs(spec, platform.fabric.nodes);
  std::vector<Diagnostic> problems;
  for (std::size_t j = 0; j < spec.jobs.size(); ++j) {
    try {
      load_job_scenario(spec, j);
    } catch (const ConfigError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  if (!problems.empty()) throw ConfigError(std::move(problems));
}

}  // namespace clearfog::cluster
