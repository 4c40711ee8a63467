#pragma once
// Pieces shared by the per-kind key tables (AcceleratorKeys.cpp, PlatformKeys.cpp, ...).
#include <array>
#include <stdexcept>
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

/// The value of an enum whose name is `text`; std::logic_error if none is (an Enum key's reader
/// has checked the text against names(all, name_of) before a builder calls this).
template <typename Enum, std::size_t N, typename NameOf>
Enum value_named(const std::array<Enum, N>& all, NameOf name_of, const std::string& text) {
  for (Enum e : all)
    if (name_of(e) == text) return e;
  throw std::logic_error("no enum value named " + text);
}

/// A bandwidth (per direction, > 0) and a latency (>= 0) key, used only with `only_with`.
KeySpec bandwidth_key(std::string path, std::string description, std::vector<Condition> only_with = {});
KeySpec latency_key(std::string path, std::string description, std::vector<Condition> only_with = {});

KeyTable make_accelerator_table();
KeyTable make_platform_table();
KeyTable make_workload_table();
KeyTable make_scenario_table();

}  // namespace clearfog::config
