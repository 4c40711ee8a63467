#pragma once
// DIR/sweep.json: which sweep the points of an output directory belong to (its name, its file and
// the fingerprint of its points). `--resume` keeps the points of DIR only when the fingerprints
// agree; `clearfog merge` joins only shards of one sweep.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sweep/SweepSpec.hpp"

namespace clearfog::sweep {

void write_manifest(const std::filesystem::path& out_dir, const SweepSpec& spec);

/// Refuses (ConfigError at --resume) an output directory that holds points of another sweep, or
/// points without a manifest; an empty directory passes.
void check_resumable(const std::filesystem::path& out_dir, const SweepSpec& spec);

/// The manifest the shard directories share; ConfigError when one is not a sweep output directory,
/// has no readable manifest, or belongs to another sweep.
nlohmann::ordered_json same_sweep_manifest(const std::vector<std::string>& dirs);

}  // namespace clearfog::sweep
