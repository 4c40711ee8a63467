#include "compare/CompareFile.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <optional>
#include <utility>

#include "config/DidYouMean.hpp"
#include "config/ScaleLimits.hpp"
#include "config/YamlFile.hpp"
#include "core/Errors.hpp"
#include "core/Quote.hpp"
#include "runfile/FileKeys.hpp"
#include "runfile/RunFileReader.hpp"
#include "sweep/SweepSpec.hpp"

namespace clearfog::compare {

namespace {

/// Reads one comparison file into a CompareRequest in named phases, collecting every problem.
class CompareReader : runfile::RunFileReader {
public:
  using runfile::RunFileReader::RunFileReader;

  CompareRequest read() {
    check_keys(root_, runfile::compare_file_keys(), "compare", "a comparison file");
    read_files();
    req_.devices = positive("devices", config::kMaxNodeDevices);
    req_.global_batch = positive("global_batch", INT_MAX);
    req_.micro_batch = positive("micro_batch", INT_MAX);
    read_headroom();
    read_set();
    read_search();
    finish();
    return req_;
  }

private:
  std::optional<int> positive(const char* key, std::int64_t max) {
    const YAML::Node n = root_[key];
    if (!n) return std::nullopt;
    return RunFileReader::positive(n, key, max);
  }

  void read_files() {
    if (!root_["workload"])
      error(root_, "workload", "missing: the workload file");
    else if (auto p = existing_path(root_["workload"], "workload"))
      req_.workload = *p;
    const YAML::Node platforms = root_["platforms"];
    if (!platforms || !platforms.IsSequence() || platforms.size() == 0) {
      error(platforms ? platforms : root_, "platforms", "missing: a non-empty list of platform files");
      return;
    }
    for (const auto& n : platforms)
      if (auto p = existing_path(n, "platforms")) req_.platforms.push_back(*p);
  }

  void read_headroom() {
    const YAML::Node n = root_["memory_headroom"];
    if (!n) return;
    double v = -1;
    const std::string text = n.IsScalar() ? n.Scalar() : "";
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (!n.IsScalar() || ec != std::errc{} || end != text.data() + text.size() || !(v >= 0 && v < 1))
      error(n, "memory_headroom",
            fmt::format("must be a number in [0, 1) (the share of device memory kept free), got {}",
                        quote(n.IsScalar() ? text : "a collection")));
    else
      req_.memory_headroom = v;
  }

  void read_set() {
    const YAML::Node set = root_["set"];
    if (!set) return;
    if (!set.IsMap()) {
      error(set, "set", "must be a mapping of scenario key: value, as for run --set");
      return;
    }
    for (const auto& kv : set) {
      if (!kv.first.IsScalar() || kv.first.Scalar().empty()) {
        error(kv.first, "set", "keys must be scenario key paths such as training.optimizer");
        continue;
      }
      req_.set.push_back({kv.first.Scalar(), sweep::override_value(kv.second, dir_)});
      req_.set_locations.push_back(where(kv.second ? kv.second : kv.first));
    }
  }

  void read_search() {
    const YAML::Node search = root_["search"];
    if (!search) return;
    if (!search.IsMap()) {
      error(search, "search",
            fmt::format("must be a mapping of knob: [values]; knobs: {}", fmt::join(search_knob_names(), ", ")));
      return;
    }
    for (const auto& kv : search) read_knob(kv.first, kv.second);
  }

  /// One `knob: value` or `knob: [values]` of the search section.
  void read_knob(const YAML::Node& key, const YAML::Node& value) {
    const std::string knob = key.IsScalar() ? key.Scalar() : "";
    std::vector<std::string> values;
    bool scalars = true;
    if (value.IsSequence()) {
      for (const auto& v : value) {
        if (v.IsScalar()) values.push_back(v.Scalar());
        else scalars = false;
      }
    } else if (value.IsScalar()) {
      values.push_back(value.Scalar());
    } else {
      scalars = false;
    }
    std::string problem = scalars ? req_.search.restrict(knob, values) : "must be a value or a list of values";
    if (problem.starts_with("unknown knob")) {
      if (auto close = config::closest_match(knob, search_knob_names()))
        problem = fmt::format("unknown knob; did you mean \"{}\"?", *close);
      error(key, "search." + shorten(knob), problem);
    } else if (!problem.empty()) {
      error(value ? value : key, "search." + knob, problem);
    }
  }

  CompareRequest req_;
};

}  // namespace

CompareRequest load_compare_file(const std::filesystem::path& file) {
  const YAML::Node root = runfile::read_run_file(file, "compare", "a comparison file");
  return CompareReader(root, file.string(), std::filesystem::absolute(file).parent_path()).read();
}

}  // namespace clearfog::compare
