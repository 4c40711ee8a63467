#pragma once
// Build: validated documents -> the plain spec structs the simulator uses. Called only when reading
// and checking found no problem, so every required value is there.
#include "config/AcceleratorSpec.hpp"
#include "config/ConfigDocument.hpp"
#include "config/PlatformSpec.hpp"
#include "config/ScenarioSpec.hpp"
#include "config/WorkloadSpec.hpp"

namespace clearfog::config {

AcceleratorSpec build_accelerator(const ConfigDocument& document);
PlatformSpec build_platform(const ConfigDocument& document);
WorkloadSpec build_workload(const ConfigDocument& document);
/// `file` fills ScenarioSpec::file.
ScenarioSpec build_scenario(const ConfigDocument& document, std::string file);

}  // namespace clearfog::config
