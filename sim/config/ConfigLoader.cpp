#include "config/ConfigLoader.hpp"

#include <memory>

#include <fmt/format.h>

#include "config/DocumentReader.hpp"
#include "config/SemanticChecks.hpp"
#include "config/SpecBuilder.hpp"
#include "config/YamlFile.hpp"
#include "core/Quote.hpp"

namespace clearfog::config {

namespace {

/// Reads and checks a document; throws one ConfigError with every problem found.
std::shared_ptr<const ConfigDocument> read_valid(const std::filesystem::path& file, DocumentKind kind,
                                                 const std::vector<Override>& overrides) {
  std::vector<Diagnostic> diagnostics;
  auto document = read_document_file(file, kind, overrides, diagnostics);
  if (document) check_semantics(*document, diagnostics);
  if (!diagnostics.empty()) throw ConfigError(std::move(diagnostics));
  return document;
}

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

}  // namespace

Override parse_override(const std::string& text) {
  const auto eq = text.find('=');
  const std::string key = eq == std::string::npos ? "" : trim(text.substr(0, eq));
  if (key.empty())
    throw ConfigError({Diagnostic{SourceLocation{"--set", 0, 0}, "",
                                  fmt::format("expected key.path=value, e.g. "
                                              "\"platform.node.link.bandwidth=150 GB/s\", got {}",
                                              quote(text))}});
  return Override{key, text.substr(eq + 1)};
}

AcceleratorSpec load_accelerator(const std::filesystem::path& file, const std::vector<Override>& overrides) {
  return build_accelerator(*read_valid(file, DocumentKind::Accelerator, overrides));
}

PlatformSpec load_platform(const std::filesystem::path& file, const std::vector<Override>& overrides) {
  return build_platform(*read_valid(file, DocumentKind::Platform, overrides));
}

WorkloadSpec load_workload(const std::filesystem::path& file, const std::vector<Override>& overrides) {
  return build_workload(*read_valid(file, DocumentKind::Workload, overrides));
}

ScenarioSpec load_scenario(const std::filesystem::path& file, const std::vector<Override>& overrides) {
  return build_scenario(*read_valid(file, DocumentKind::Scenario, overrides), file.string());
}

DocumentKind validate_file(const std::filesystem::path& file, std::span<const std::string_view> other_kinds,
                           const std::vector<Override>& overrides) {
  std::vector<Diagnostic> diagnostics;
  const auto root = read_yaml_file(file, std::nullopt, diagnostics);
  if (!root) throw ConfigError(std::move(diagnostics));
  const std::string name = file.string();
  if (!root->IsMap() && !root->IsNull())
    throw ConfigError({Diagnostic{location_of(root->Mark(), name, SourceLocation{name, 1, 1}), "",
                                  fmt::format("a clearfog file is a mapping that starts with \"kind: K\", got {}",
                                              root->IsSequence() ? "a list" : "a single value")}});
  const YAML::Node kind_node = root->IsMap() ? (*root)["kind"] : YAML::Node();
  const auto kind = kind_node && kind_node.IsScalar() ? parse_kind(kind_node.Scalar()) : std::nullopt;
  if (!kind) {
    std::vector<std::string> kinds;
    for (DocumentKind k : kAllDocumentKinds) kinds.emplace_back(kind_name(k));
    kinds.insert(kinds.end(), other_kinds.begin(), other_kinds.end());
    const std::string got = kind_node && kind_node.IsScalar() ? fmt::format("unknown kind {}", quote(kind_node.Scalar()))
                                                              : std::string("missing key \"kind\"");
    throw ConfigError({Diagnostic{location_of(kind_node ? kind_node.Mark() : YAML::Mark::null_mark(), name,
                                              SourceLocation{name, 1, 1}),
                                  "kind", fmt::format("{}; every clearfog file starts with \"kind: K\", K one of: {}",
                                                      got, fmt::join(kinds, ", "))}});
  }
  read_valid(file, *kind, overrides);
  return *kind;
}

}  // namespace clearfog::config
