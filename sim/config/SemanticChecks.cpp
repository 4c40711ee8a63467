#include "config/SemanticChecks.hpp"

#include "config/PlatformChecks.hpp"
#include "config/ScaleLimits.hpp"
#include "config/ScenarioChecks.hpp"

namespace clearfog::config {

void check_semantics(const ConfigDocument& document, std::vector<Diagnostic>& diagnostics) {
  switch (document.kind()) {
    case DocumentKind::Accelerator: check_accelerator(document, diagnostics); break;
    case DocumentKind::Platform: check_platform(document, diagnostics); break;
    case DocumentKind::Workload: check_workload(document, diagnostics); break;
    case DocumentKind::Scenario: check_scenario(document, diagnostics); break;
  }
  check_scale(document, diagnostics);
  for (const auto& [key, child] : document.children()) check_semantics(*child, diagnostics);
}

}  // namespace clearfog::config
