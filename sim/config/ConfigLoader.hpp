#pragma once
// Parse -> validate -> build. YAML files become the plain spec structs above; every problem of a
// file is collected with its location and thrown at once as clearfog::ConfigError.
#include <filesystem>
#include <string>
#include <vector>

#include "config/AcceleratorSpec.hpp"
#include "config/DocumentKind.hpp"
#include "config/Override.hpp"
#include "config/PlatformSpec.hpp"
#include "config/ScenarioSpec.hpp"
#include "config/WorkloadSpec.hpp"

namespace clearfog::config {

AcceleratorSpec load_accelerator(const std::filesystem::path& file, const std::vector<Override>& overrides = {});
PlatformSpec load_platform(const std::filesystem::path& file, const std::vector<Override>& overrides = {});
WorkloadSpec load_workload(const std::filesystem::path& file, const std::vector<Override>& overrides = {});
ScenarioSpec load_scenario(const std::filesystem::path& file, const std::vector<Override>& overrides = {});

/// Validates any clearfog file (its `kind:` key says which); returns the kind or throws ConfigError.
DocumentKind validate_file(const std::filesystem::path& file);

}  // namespace clearfog::config
