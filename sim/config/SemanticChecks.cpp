#include "config/SemanticChecks.hpp"

#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/DType.hpp"

namespace clearfog::config {

namespace {

void report(const ConfigDocument& doc, std::string_view path, std::string message, std::vector<Diagnostic>& out) {
  out.push_back({doc.location_of(path), doc.display_key(path), std::move(message)});
}

std::vector<std::string> supported_dtypes(const ConfigDocument& accelerator) {
  std::vector<std::string> names;
  for (DType d : kAllDTypes)
    if (accelerator.find("peak." + std::string(dtype_name(d)))) names.emplace_back(dtype_name(d));
  return names;
}

void check_accelerator(const ConfigDocument& doc, std::vector<Diagnostic>& out) {
  if (!doc.complete() || !supported_dtypes(doc).empty()) return;
  std::vector<std::string> keys;
  for (DType d : kAllDTypes) keys.push_back("peak." + std::string(dtype_name(d)));
  report(doc, "peak", fmt::format("no peak given; give at least one of: {}", fmt::join(keys, ", ")), out);
}

void check_platform(const ConfigDocument& doc, std::vector<Diagnostic>& out) {
  constexpr std::string_view kFabricMessage =
      "multi-node fabrics are not simulated yet; remove the fabric section (one node only)";
  if (doc.section_location("fabric")) {
    report(doc, "fabric", std::string(kFabricMessage), out);
    return;
  }
  for (const auto& [path, value] : doc.values())
    if (path.starts_with("fabric.") && !value.is_default()) {
      out.push_back({value.location, value.key, std::string(kFabricMessage)});
      return;
    }
}

void check_workload(const ConfigDocument& doc, std::vector<Diagnostic>& out) {
  const ConfigValue* hidden = doc.find("hidden");
  const ConfigValue* heads = doc.find("heads");
  if (hidden && heads && hidden->as_integer() % heads->as_integer() != 0)
    report(doc, "heads",
           fmt::format("hidden {} must be divisible by heads {} (each head gets hidden/heads elements)",
                       hidden->as_integer(), heads->as_integer()),
           out);
}

void check_not_simulated(const ConfigDocument& doc, std::string_view key, std::string_view what,
                         std::vector<Diagnostic>& out) {
  const ConfigValue* v = doc.find(key);
  if (v && v->as_integer() > 1)
    report(doc, key, fmt::format("{} is not simulated yet; allowed: 1", what), out);
}

void check_scenario(const ConfigDocument& doc, std::vector<Diagnostic>& out) {
  check_not_simulated(doc, "parallelism.tp", "tensor parallelism (tp > 1)", out);
  check_not_simulated(doc, "parallelism.pp", "pipeline parallelism (pp > 1)", out);

  const ConfigValue* dp = doc.find("parallelism.dp");
  const ConfigValue* tp = doc.find("parallelism.tp");
  const ConfigValue* pp = doc.find("parallelism.pp");
  const ConfigDocument* platform = doc.child("platform");
  if (dp && tp && pp && platform && platform->complete() && platform->find("node.devices")) {
    const std::int64_t devices_per_node = platform->find("node.devices")->as_integer();
    constexpr std::int64_t nodes = 1;  // fabric.nodes is rejected until multi-node fabrics are simulated
    const std::int64_t product = dp->as_integer() * tp->as_integer() * pp->as_integer();
    if (product != devices_per_node * nodes)
      report(doc, "parallelism.dp",
             fmt::format("dp*tp*pp = {}*{}*{} = {} must equal the platform's {} devices (node.devices {} x {} node)",
                         dp->as_integer(), tp->as_integer(), pp->as_integer(), product, devices_per_node * nodes,
                         devices_per_node, nodes),
             out);
  }

  const ConfigValue* global_batch = doc.find("training.global_batch");
  const ConfigValue* micro_batch = doc.find("training.micro_batch");
  if (global_batch && micro_batch && dp) {
    const std::int64_t per_step = dp->as_integer() * micro_batch->as_integer();
    if (global_batch->as_integer() % per_step != 0)
      report(doc, "training.global_batch",
             fmt::format("global_batch {} must be divisible by dp*micro_batch = {}*{} = {}",
                         global_batch->as_integer(), dp->as_integer(), micro_batch->as_integer(), per_step),
             out);
  }

  const ConfigValue* precision = doc.find("training.precision");
  const ConfigDocument* accelerator = platform ? platform->child("accelerator") : nullptr;
  if (precision && accelerator && accelerator->complete() &&
      !accelerator->find("peak." + precision->as_string())) {
    const auto* name = accelerator->find("name");
    report(doc, "training.precision",
           fmt::format("the accelerator \"{}\" has no peak for {} (no peak.{} in {}); allowed: {}",
                       name ? name->as_string() : "?", precision->as_string(), precision->as_string(),
                       accelerator->file(), fmt::join(supported_dtypes(*accelerator), ", ")),
           out);
  }
}

}  // namespace

void check_semantics(const ConfigDocument& document, std::vector<Diagnostic>& diagnostics) {
  switch (document.kind()) {
    case DocumentKind::Accelerator: check_accelerator(document, diagnostics); break;
    case DocumentKind::Platform: check_platform(document, diagnostics); break;
    case DocumentKind::Workload: check_workload(document, diagnostics); break;
    case DocumentKind::Scenario: check_scenario(document, diagnostics); break;
  }
  for (const auto& [key, child] : document.children()) check_semantics(*child, diagnostics);
}

}  // namespace clearfog::config
