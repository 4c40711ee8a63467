// Every key of every clearfog document, declared once, one file per kind (AcceleratorKeys.cpp,
// PlatformKeys.cpp, WorkloadKeys.cpp, ScenarioKeys.cpp). The reader, the validator, `clearfog
// explain` and docs/configuration.md all read these tables; a key that is not here is an error.
#include "config/KeyTableParts.hpp"

namespace clearfog::config {

KeySpec kind_key(DocumentKind kind) {
  return {.path = "kind",
          .type = KeyType::Kind,
          .choices = {std::string(kind_name(kind))},
          .description = "What the file describes; the first line of every file. May be omitted in "
                         "an inline mapping."};
}

const KeyTable& KeyTable::of(DocumentKind kind) {
  static const KeyTable accelerator = make_accelerator_table();
  static const KeyTable platform = make_platform_table();
  static const KeyTable workload = make_workload_table();
  static const KeyTable scenario = make_scenario_table();
  switch (kind) {
    case DocumentKind::Accelerator: return accelerator;
    case DocumentKind::Platform: return platform;
    case DocumentKind::Workload: return workload;
    case DocumentKind::Scenario: return scenario;
  }
  return scenario;
}

}  // namespace clearfog::config
