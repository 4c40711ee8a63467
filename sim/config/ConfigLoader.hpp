#pragma once
// Parse -> validate -> build. YAML files become the plain spec structs above; every problem of a
// file is collected with its location and thrown at once as clearfog::ConfigError.
#include <filesystem>
#include <span>
#include <string_view>
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

/// Validates any clearfog document file (its `kind:` key says which) with `overrides` applied as
/// `run --set` applies them; returns the kind or throws ConfigError. `other_kinds` are the kinds of
/// files validated elsewhere (sweep, compare), listed with the four document kinds when the kind is
/// unknown.
DocumentKind validate_file(const std::filesystem::path& file, std::span<const std::string_view> other_kinds = {},
                           const std::vector<Override>& overrides = {});

}  // namespace clearfog::config
