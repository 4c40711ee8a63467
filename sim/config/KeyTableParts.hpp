#pragma once
// Pieces shared by the per-kind key tables (AcceleratorKeys.cpp, PlatformKeys.cpp, ...).
#include <array>
#include <string>
#include <vector>

#include "config/KeyTable.hpp"

namespace clearfog::config {

/// The `kind:` key of a document of this kind.
KeySpec kind_key(DocumentKind kind);

/// The names of every value of an enum, for an Enum key's choices.
template <typename Enum, std::size_t N, typename NameOf>
std::vector<std::string> names(const std::array<Enum, N>& all, NameOf name_of) {
  std::vector<std::string> out;
  for (Enum e : all) out.emplace_back(name_of(e));
  return out;
}

KeyTable make_accelerator_table();
KeyTable make_platform_table();
KeyTable make_workload_table();
KeyTable make_scenario_table();

}  // namespace clearfog::config
