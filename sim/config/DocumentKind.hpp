#pragma once
// The four kinds of clearfog YAML document. Every file starts with `kind: <name>`.
#include <array>
#include <optional>
#include <string_view>

namespace clearfog::config {

enum class DocumentKind { Accelerator, Platform, Workload, Scenario };

inline constexpr std::array<DocumentKind, 4> kAllDocumentKinds = {
    DocumentKind::Accelerator, DocumentKind::Platform, DocumentKind::Workload, DocumentKind::Scenario};

/// The spelling used in `kind:` and in `clearfog explain KIND`: "accelerator", "platform", ...
constexpr std::string_view kind_name(DocumentKind kind) {
  switch (kind) {
    case DocumentKind::Accelerator: return "accelerator";
    case DocumentKind::Platform: return "platform";
    case DocumentKind::Workload: return "workload";
    case DocumentKind::Scenario: return "scenario";
  }
  return "?";
}

constexpr std::optional<DocumentKind> parse_kind(std::string_view name) {
  for (DocumentKind k : kAllDocumentKinds)
    if (kind_name(k) == name) return k;
  return std::nullopt;
}

}  // namespace clearfog::config
