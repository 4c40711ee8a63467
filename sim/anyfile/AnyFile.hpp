#pragma once
// `clearfog validate` and `clearfog explain` on any clearfog file: the four document kinds
// (accelerator, platform, workload, scenario) and the files of `clearfog sweep` and `compare`.
#include <filesystem>
#include <string>
#include <vector>

#include "config/Override.hpp"

namespace clearfog::anyfile {

/// Validates a file of any kind, as the command that reads it would before running (a sweep: its
/// structure and every axis value; a comparison: its structure, workload and platforms). Returns
/// the kind's name; throws ConfigError with every problem.
/// `overrides` (validate --set) apply to a document file as run --set applies them, and to a
/// comparison as its `set:`; a sweep or cluster file refuses them (located at --set).
std::string validate_any_file(const std::filesystem::path& file, const std::vector<config::Override>& overrides = {});

/// What `clearfog explain` accepts: the four document kinds, the run-file kinds (sweep, compare,
/// cluster) and "all".
std::vector<std::string> explainable_kinds();

/// `clearfog explain KIND [--markdown]` for any kind, "all" for the four document kinds.
std::string explain_kind(const std::string& kind, bool markdown);

}  // namespace clearfog::anyfile
