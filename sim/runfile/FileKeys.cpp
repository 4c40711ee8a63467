#include "runfile/FileKeys.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

namespace clearfog::runfile {

namespace {

constexpr std::array<FileKey, 9> kSweepKeys = {{
    {"kind", "kind", "required", "What the file describes: `kind: sweep`."},
    {"name", "string", "the file name", "Name of the sweep, used in reports and plots."},
    {"description", "string", "\"\"", "One line on what the sweep shows."},
    {"base", "path", "required", "The base scenario, relative to the sweep file; every point is this scenario with "
                                 "overrides."},
    {"combine", "enum", "grid", "grid: every combination of the axis values, the first axis varying slowest; zip: "
                                "the i-th value of every axis (axes of equal length)."},
    {"axes", "mapping of key: [values]", "required",
     "Keys of the base scenario, as for `clearfog run --set`, each with the non-empty list of values it takes. "
     "Values ending in .yaml are paths relative to the sweep file. Every key and value is validated before the "
     "first point runs."},
    {"set", "mapping of key: value", "absent", "Overrides applied to every point."},
    {"filter", "name or list of names", "absent",
     "devices_match: a point whose dp*tp*pp differs from the platform's device count is `skipped`, not an "
     "`error`."},
    {"budget", "mapping", "absent",
     "A cost linear in swept keys and its limit: {name, max, base, terms: [{key, cost, per}]}, e.g. an area "
     "budget over accelerator peaks and bandwidths. A point over `max` is `skipped` unsimulated; the others get "
     "a column `name` (docs/sweeps.md, \"Budgets\")."},
}};

constexpr std::array<FileKey, 11> kCompareKeys = {{
    {"kind", "kind", "required", "What the file describes: `kind: compare`."},
    {"name", "string", "the file name", "Name of the comparison."},
    {"description", "string", "\"\"", "One line on what the comparison shows."},
    {"workload", "path", "required", "The workload file, relative to the comparison file."},
    {"platforms", "list of paths", "required", "The platform files compared, relative to the comparison file."},
    {"devices", "integer >= 1", "absent", "Overrides every platform's node.devices."},
    {"global_batch", "integer >= 1", "4 x lcm of the device counts", "Sequences per iteration."},
    {"micro_batch", "integer >= 1", "absent", "A fixed micro-batch; absent: the search tries 1, 2, 4, ... 16."},
    {"memory_headroom", "number in [0, 1)", "0.05",
     "Share of the device memory the best configuration must leave free: one whose memory estimate exceeds "
     "(1 - memory_headroom) x capacity is reported but never chosen (`--memory-headroom`)."},
    {"set", "mapping of key: value", "absent",
     "Scenario overrides (workload.*, platform.*, training.*, ...) applied to every configuration before the "
     "search, as `clearfog run --set`; a ZeRO stage, recomputation, sequence parallelism, attention or "
     "precision given here is not searched. Values ending in .yaml are paths relative to the file."},
    {"search", "mapping of knob: [values]", "every value",
     "Restricts the knobs searched (`--search KNOB=V1,V2`): zero_stage [0, 1, 2, 3], recompute [none, "
     "selective, full, op] (default: all but op), sequence_parallel [false, true], attention [unfused, fused], "
     "precision [fp32, tf32, fp16, bf16, fp8] (default: all but fp8). docs/compare.md says how they are "
     "searched."},
}};

constexpr std::array<FileKey, 13> kClusterKeys = {{
    {"kind", "kind", "required", "What the file describes: `kind: cluster`."},
    {"name", "string", "the file name", "Name of the cluster run."},
    {"description", "string", "\"\"", "One line on what the run shows."},
    {"platform", "path", "required", "The shared machine (a platform file, relative to this file); every job runs "
                                     "on whole nodes of it."},
    {"placement", "enum", "packed", "Where jobs without explicit nodes go. packed: in file order, each job the "
                                    "lowest free nodes; spread: free nodes dealt out one at a time to the jobs in turn."},
    {"jobs", "list of jobs", "required", "The jobs, each a mapping with the keys below; they run together in one "
                                         "simulation and share the platform's links."},
    {"set", "mapping of key: value", "absent",
     "Overrides of the shared machine's platform keys (fabric.fat_tree.up: [1, 4] to oversubscribe the tree, a "
     "link bandwidth, ...). They change the machine the jobs are replayed on; each job is planned on the platform "
     "file resized to its nodes."},
    {"jobs[].scenario", "path", "required", "The job's scenario; its platform is replaced by this file's platform "
                                            "with fabric.nodes set to the job's node count."},
    {"jobs[].nodes", "integer >= 1 or list of node indices", "required",
     "How many whole nodes the job gets (placed by `placement`), or which ones."},
    {"jobs[].name", "string", "job<i>", "Name of the job in the report."},
    {"jobs[].start", "time", "0 s", "When the job's first iteration starts."},
    {"jobs[].iterations", "integer >= 1", "1", "Iterations the job runs, each after the previous one on every rank."},
    {"jobs[].set", "mapping of key: value", "absent",
     "Overrides of the job's scenario, as `clearfog run --set` (applied after the platform is replaced)."},
}};

}  // namespace

std::span<const FileKey> sweep_file_keys() { return kSweepKeys; }
std::span<const FileKey> cluster_file_keys() { return kClusterKeys; }
std::span<const FileKey> compare_file_keys() { return kCompareKeys; }

std::vector<std::string> key_names(std::span<const FileKey> keys) {
  std::vector<std::string> names;
  for (const FileKey& k : keys) names.emplace_back(k.name);
  return names;
}

std::string render_file_keys(std::string_view kind, std::string_view intro, std::span<const FileKey> keys,
                             bool markdown) {
  if (markdown) {
    std::string out = "| key | type | default | description |\n|---|---|---|---|\n";
    for (const FileKey& k : keys)
      out += fmt::format("| `{}` | {} | {} | {} |\n", k.name, k.type, k.default_text, k.description);
    return out;
  }
  std::size_t name_width = 3, type_width = 4, default_width = 7;
  for (const FileKey& k : keys) {
    name_width = std::max(name_width, k.name.size());
    type_width = std::max(type_width, k.type.size());
    default_width = std::max(default_width, k.default_text.size());
  }
  std::string out = fmt::format("{}: {}\n\n", kind, intro);
  const auto line = [&](std::string_view a, std::string_view b, std::string_view c, std::string_view d) {
    return fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", a, name_width, b, type_width, c, default_width, d);
  };
  out += line("KEY", "TYPE", "DEFAULT", "DESCRIPTION");
  for (const FileKey& k : keys) out += line(k.name, k.type, k.default_text, k.description);
  return out;
}

}  // namespace clearfog::runfile
