#pragma once
// Output paths given on the command line (--out, --csv, --trace, --timeline) are checked before any
// work is done, so that a file in the way of a directory, a missing parent or a missing permission is
// a located error of the option (exit 2), not a library exception after a long simulation.
#include <filesystem>
#include <string_view>

namespace clearfog {

/// Creates `dir` and its parents. Throws ConfigError located at `option` when it cannot.
void prepare_output_directory(const std::filesystem::path& dir, std::string_view option);

/// Checks that `file` can be created or replaced: not a directory, in an existing directory.
/// Throws ConfigError located at `option` otherwise.
void check_output_file(const std::filesystem::path& file, std::string_view option);

}  // namespace clearfog
