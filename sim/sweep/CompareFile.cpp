#include "sweep/CompareFile.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <utility>

#include "config/DidYouMean.hpp"
#include "config/ScaleLimits.hpp"
#include "config/YamlFile.hpp"
#include "core/Errors.hpp"
#include "core/Quote.hpp"
#include "sweep/FileKeys.hpp"
#include "sweep/SweepSpec.hpp"

namespace clearfog::sweep {

CompareRequest load_compare_file(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::vector<Diagnostic> problems;
  const auto parsed = config::read_yaml_file(file, std::nullopt, problems);
  if (!parsed) throw ConfigError(std::move(problems));
  const YAML::Node& root = *parsed;
  const auto where = [&](const YAML::Node& n) { return config::location_of(n.Mark(), name, SourceLocation{name, 1, 1}); };
  if (!root.IsMap()) throw ConfigError({{where(root), "", "a comparison file is a mapping that starts with \"kind: compare\""}});

  const auto dir = std::filesystem::absolute(file).parent_path();
  std::vector<Diagnostic> errors;
  const auto known = key_names(compare_file_keys());
  for (const auto& kv : root) {
    if (!kv.first.IsScalar()) {
      errors.push_back({where(kv.first), "", fmt::format("keys must be plain names; known: {}", fmt::join(known, ", "))});
      continue;
    }
    const auto& k = kv.first.Scalar();
    if (std::find(known.begin(), known.end(), k) != known.end()) continue;
    std::string message = fmt::format("unknown key; known: {}", fmt::join(known, ", "));
    if (auto close = config::closest_match(k, known)) message = fmt::format("unknown key; did you mean \"{}\"?", *close);
    errors.push_back({where(kv.first), shorten(k), message});
  }
  if (!root["kind"])
    errors.push_back({where(root), "kind", "missing required key \"kind\"; a comparison file starts with \"kind: compare\""});
  else if (!root["kind"].IsScalar() || root["kind"].Scalar() != "compare")
    errors.push_back({where(root["kind"]), "kind", "must be compare"});
  for (const char* key : {"name", "description"})
    if (root[key] && !root[key].IsScalar()) errors.push_back({where(root[key]), key, "must be a string"});

  CompareRequest req;
  // A path relative to the file that must be a regular file, located at its node if not.
  const auto existing_path = [&](const YAML::Node& n, const std::string& key) -> std::optional<std::filesystem::path> {
    if (!n.IsScalar() || n.Scalar().empty()) {
      errors.push_back({where(n), key, "must be a file path"});
      return std::nullopt;
    }
    auto p = (dir / n.Scalar()).lexically_normal();
    std::error_code ec;
    const auto status = std::filesystem::status(p, ec);
    if (!std::filesystem::exists(status)) {
      errors.push_back({where(n), key, fmt::format("no such file: {}", p.string())});
      return std::nullopt;
    }
    if (!std::filesystem::is_regular_file(status)) {
      errors.push_back({where(n), key, fmt::format("{} is not a regular file", p.string())});
      return std::nullopt;
    }
    return p;
  };
  if (!root["workload"]) {
    errors.push_back({where(root), "workload", "missing: the workload file"});
  } else if (auto p = existing_path(root["workload"], "workload")) {
    req.workload = *p;
  }
  if (!root["platforms"] || !root["platforms"].IsSequence() || root["platforms"].size() == 0) {
    errors.push_back({where(root["platforms"] ? root["platforms"] : root), "platforms",
                      "missing: a non-empty list of platform files"});
  } else {
    for (const auto& n : root["platforms"])
      if (auto p = existing_path(n, "platforms")) req.platforms.push_back(*p);
  }
  // A count >= 1; devices also within what one node may hold (it replaces node.devices).
  const auto positive = [&](const char* key, std::int64_t max) -> std::optional<int> {
    const YAML::Node n = root[key];
    if (!n) return std::nullopt;
    const std::string text = n.IsScalar() ? n.Scalar() : "";
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (!n.IsScalar() || ec != std::errc{} || end != text.data() + text.size() || v < 1) {
      errors.push_back({where(n), key, fmt::format("must be an integer >= 1, got {}", quote(n.IsScalar() ? text : "a collection"))});
      return std::nullopt;
    }
    if (v > max) {
      errors.push_back({where(n), key, fmt::format("must be at most {}, got {}", max, quote(text))});
      return std::nullopt;
    }
    return static_cast<int>(v);
  };
  req.devices = positive("devices", config::kMaxNodeDevices);
  req.global_batch = positive("global_batch", INT_MAX);
  req.micro_batch = positive("micro_batch", INT_MAX);
  if (const YAML::Node n = root["memory_headroom"]) {
    double v = -1;
    const std::string text = n.IsScalar() ? n.Scalar() : "";
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (!n.IsScalar() || ec != std::errc{} || end != text.data() + text.size() || !(v >= 0 && v < 1))
      errors.push_back({where(n), "memory_headroom",
                        fmt::format("must be a number in [0, 1) (the share of device memory kept free), got {}",
                                    quote(n.IsScalar() ? text : "a collection"))});
    else
      req.memory_headroom = v;
  }
  if (const YAML::Node set = root["set"]) {
    if (!set.IsMap()) {
      errors.push_back({where(set), "set", "must be a mapping of scenario key: value, as for run --set"});
    } else {
      for (const auto& kv : set) {
        if (!kv.first.IsScalar() || kv.first.Scalar().empty()) {
          errors.push_back({where(kv.first), "set", "keys must be scenario key paths such as training.optimizer"});
          continue;
        }
        req.set.push_back({kv.first.Scalar(), override_value(kv.second, dir)});
        req.set_locations.push_back(where(kv.second ? kv.second : kv.first));
      }
    }
  }
  if (const YAML::Node search = root["search"]) {
    if (!search.IsMap()) {
      errors.push_back({where(search), "search",
                        fmt::format("must be a mapping of knob: [values]; knobs: {}", fmt::join(search_knob_names(), ", "))});
    } else {
      for (const auto& kv : search) {
        const std::string knob = kv.first.IsScalar() ? kv.first.Scalar() : "";
        std::vector<std::string> values;
        bool scalars = true;
        if (kv.second.IsSequence()) {
          for (const auto& v : kv.second) {
            if (v.IsScalar()) values.push_back(v.Scalar());
            else scalars = false;
          }
        } else if (kv.second.IsScalar()) {
          values.push_back(kv.second.Scalar());
        } else {
          scalars = false;
        }
        std::string problem = scalars ? req.search.restrict(knob, values) : "must be a value or a list of values";
        if (problem.starts_with("unknown knob")) {
          if (auto close = config::closest_match(knob, search_knob_names()))
            problem = fmt::format("unknown knob; did you mean \"{}\"?", *close);
          errors.push_back({where(kv.first), "search." + shorten(knob), problem});
        } else if (!problem.empty()) {
          errors.push_back({where(kv.second ? kv.second : kv.first), "search." + knob, problem});
        }
      }
    }
  }
  if (!errors.empty()) {
    std::stable_sort(errors.begin(), errors.end(), [](const Diagnostic& a, const Diagnostic& b) {
      return std::pair(a.location.line, a.location.column) < std::pair(b.location.line, b.location.column);
    });
    throw ConfigError(std::move(errors));
  }
  return req;
}

}  // namespace clearfog::sweep
