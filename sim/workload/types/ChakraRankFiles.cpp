#include "workload/types/ChakraRankFiles.hpp"

#include <fmt/format.h>

#include <charconv>
#include <set>
#include <system_error>

namespace clearfog::workload {
namespace {

/// The rank of a file named "et.<rank>.et", or nullopt.
std::optional<int> rank_of(const std::string& name) {
  constexpr std::string_view prefix = "et.", suffix = ".et";
  if (name.size() <= prefix.size() + suffix.size() || !name.starts_with(prefix) || !name.ends_with(suffix))
    return std::nullopt;
  const char* first = name.data() + prefix.size();
  const char* last = name.data() + name.size() - suffix.size();
  int rank = 0;
  const auto [end, error] = std::from_chars(first, last, rank);
  if (error != std::errc() || end != last || rank < 0) return std::nullopt;
  return rank;
}

/// The ranks of the rank files in `dir`; nullopt when it cannot be listed.
std::optional<std::set<int>> listed_ranks(const std::filesystem::path& dir) {
  std::error_code error;
  std::filesystem::directory_iterator it(dir, error);
  if (error) return std::nullopt;
  std::set<int> ranks;
  for (; it != std::filesystem::directory_iterator(); it.increment(error)) {
    if (error) return std::nullopt;
    if (const auto rank = rank_of(it->path().filename().string())) ranks.insert(*rank);
  }
  return ranks;
}

}  // namespace

std::filesystem::path resolve_chakra_dir(const std::string& written, const std::string& document_file) {
  const std::filesystem::path path(written);
  if (path.is_absolute() || document_file.empty()) return path;
  return (std::filesystem::path(document_file).parent_path() / path).lexically_normal();
}

std::string chakra_rank_file_name(int rank) { return fmt::format("et.{}.et", rank); }

ChakraRankFiles chakra_rank_files(const std::filesystem::path& dir, int devices) {
  ChakraRankFiles result;
  const auto ranks = listed_ranks(dir);
  if (!ranks) {
    result.problem = fmt::format("\"{}\" is not a readable directory; allowed: a directory of Chakra traces "
                                 "et.0.et .. et.<n-1>.et, one per device",
                                 dir.string());
    return result;
  }
  for (int r = 0; r < static_cast<int>(ranks->size()); ++r)
    if (!ranks->count(r)) {
      result.problem = fmt::format("\"{}\" has {} rank files but no {}; allowed: et.0.et .. et.<n-1>.et with none "
                                   "missing",
                                   dir.string(), ranks->size(), chakra_rank_file_name(r));
      return result;
    }
  if (static_cast<int>(ranks->size()) != devices) {
    result.problem = fmt::format("\"{}\" holds traces of {} ranks; the platform has {} devices; allowed: one trace "
                                 "per device (et.0.et .. et.{}.et)",
                                 dir.string(), ranks->size(), devices, devices - 1);
    return result;
  }
  for (int r = 0; r < devices; ++r) result.files.push_back(dir / chakra_rank_file_name(r));
  return result;
}

}  // namespace clearfog::workload
