#pragma once
// What a comparison request (docs/compare.md) is checked against before anything runs, and the
// small pieces of it that compare_platforms() shares: `set` entries looked up and split by file
// kind, the scenario file every configuration starts from, a scratch directory. Config-only code, so
// that `clearfog validate` and the config fuzzer run the same checks without the simulator.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "config/Override.hpp"
#include "compare/CompareFile.hpp"

namespace clearfog::compare {

/// A private temporary directory, removed with everything in it when the object goes.
struct ScratchDir {
  std::filesystem::path dir;
  ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir();
};

/// The value a `set` entry gives `key`, if any (the last one wins, as with --set).
std::optional<std::string> set_value(const CompareRequest& req, const std::string& key);

/// The request's `set` entries for one kind of file: "platform.x" -> "x" (and likewise for the
/// workload), so that the platform and workload are read as the scenarios will see them.
std::vector<config::Override> set_below(const CompareRequest& req, const std::string& prefix);

/// A file `set` replaces (`platform: other.yaml`), or the given one.
std::filesystem::path replaced(const CompareRequest& req, const std::string& key, const std::filesystem::path& file);

/// The scenario every configuration of `platform` starts from (absolute paths).
void write_scenario_file(const std::filesystem::path& file, const CompareRequest& req,
                         const std::filesystem::path& platform, int global_batch);

/// Every problem of a request found before anything runs — its workload and platform files as its
/// `set` entries change them, and each `set` entry against the scenario — as one ConfigError.
/// compare_platforms() and `clearfog validate` both run it.
void check_compare_request(const CompareRequest& request);

}  // namespace clearfog::compare
