#include "sweep/CompareFile.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

#include "core/Errors.hpp"

namespace clearfog::sweep {
namespace {

constexpr std::array<std::string_view, 8> kKeys = {"kind",    "name",         "description", "workload",
                                                   "platforms", "devices", "global_batch", "micro_batch"};

}  // namespace

CompareRequest load_compare_file(const std::filesystem::path& file) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(file.string());
  } catch (const YAML::BadFile&) {
    throw ConfigError({{{file.string(), 0, 0}, "", "cannot open the comparison file"}});
  } catch (const YAML::Exception& e) {
    throw ConfigError({{{file.string(), e.mark.line + 1, e.mark.column + 1}, "", "malformed YAML: " + e.msg}});
  }
  const auto where = [&](const YAML::Node& n) {
    const auto mark = n.Mark();
    return SourceLocation{file.string(), mark.is_null() ? 1 : mark.line + 1, mark.is_null() ? 1 : mark.column + 1};
  };
  if (!root.IsMap()) throw ConfigError({{where(root), "", "a comparison file is a mapping (kind: compare, ...)"}});

  const auto dir = std::filesystem::absolute(file).parent_path();
  std::vector<Diagnostic> errors;
  for (const auto& kv : root) {
    const auto k = kv.first.as<std::string>();
    if (std::find(kKeys.begin(), kKeys.end(), k) == kKeys.end())
      errors.push_back({where(kv.first), k, fmt::format("unknown key; known: {}", fmt::join(kKeys, ", "))});
  }
  if (root["kind"] && (!root["kind"].IsScalar() || root["kind"].Scalar() != "compare"))
    errors.push_back({where(root["kind"]), "kind", "must be compare"});

  CompareRequest req;
  // A path relative to the file that must exist, located at its node if not.
  const auto existing_path = [&](const YAML::Node& n, const std::string& key) -> std::optional<std::filesystem::path> {
    if (!n.IsScalar()) {
      errors.push_back({where(n), key, "must be a file path"});
      return std::nullopt;
    }
    auto p = (dir / n.Scalar()).lexically_normal();
    if (!std::filesystem::is_regular_file(p)) {
      errors.push_back({where(n), key, fmt::format("no such file: {}", p.string())});
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
  const auto positive = [&](const char* key) -> std::optional<int> {
    const YAML::Node n = root[key];
    if (!n) return std::nullopt;
    try {
      const int v = n.as<int>();
      if (v > 0) return v;
    } catch (const YAML::Exception&) {
    }
    errors.push_back({where(n), key, fmt::format("must be a positive integer, got \"{}\"", n.IsScalar() ? n.Scalar() : "?")});
    return std::nullopt;
  };
  req.devices = positive("devices");
  req.global_batch = positive("global_batch");
  req.micro_batch = positive("micro_batch");
  if (!errors.empty()) {
    std::stable_sort(errors.begin(), errors.end(), [](const Diagnostic& a, const Diagnostic& b) {
      return std::pair(a.location.line, a.location.column) < std::pair(b.location.line, b.location.column);
    });
    throw ConfigError(std::move(errors));
  }
  return req;
}

}  // namespace clearfog::sweep
