#pragma once
// The rank files of a Chakra trace directory (docs/interop.md): DIR/et.<rank>.et for ranks
// 0 .. n-1. Shared by the scenario checks (the count against the platform) and the importer.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace clearfog::workload {

/// The directory of `chakra:` as written in a workload document whose file is `document_file`:
/// relative paths are relative to that file's directory.
std::filesystem::path resolve_chakra_dir(const std::string& written, const std::string& document_file);

/// The file of `rank`: "et.<rank>.et".
std::string chakra_rank_file_name(int rank);

/// The rank files of `dir`, rank 0 first, when they are et.0.et .. et.<n-1>.et with none missing
/// and there are `devices` of them; otherwise what is wrong and what is allowed.
struct ChakraRankFiles {
  std::vector<std::filesystem::path> files;
  std::optional<std::string> problem;
};
ChakraRankFiles chakra_rank_files(const std::filesystem::path& dir, int devices);

}  // namespace clearfog::workload
