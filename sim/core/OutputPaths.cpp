#include "core/OutputPaths.hpp"

#include <unistd.h>

#include <string>
#include <system_error>

#include <fmt/format.h>

#include "core/Errors.hpp"
#include "core/Quote.hpp"

namespace clearfog {

namespace {

[[noreturn]] void refuse(std::string_view option, const std::filesystem::path& path, const std::string& why) {
  throw ConfigError({Diagnostic{SourceLocation{std::string(option), 0, 0}, "",
                                fmt::format("cannot write {}: {}", quote(path.string(), kMaxQuotedPath), why)}});
}

}  // namespace

void prepare_output_directory(const std::filesystem::path& dir, std::string_view option) {
  if (dir.empty()) refuse(option, dir, "the path is empty");
  std::error_code ec;
  // Walk up to the first part that exists: it must be a directory (a file in the way is the usual
  // mistake), then create what is missing.
  for (std::filesystem::path p = dir; !p.empty(); p = p.parent_path()) {
    const auto status = std::filesystem::status(p, ec);
    if (std::filesystem::exists(status)) {
      if (!std::filesystem::is_directory(status))
        refuse(option, dir, fmt::format("{} exists and is not a directory", quote(p.string(), kMaxQuotedPath)));
      break;
    }
    if (p == p.parent_path()) break;
  }
  std::filesystem::create_directories(dir, ec);
  if (ec) refuse(option, dir, ec.message());
  if (::access(dir.c_str(), W_OK | X_OK) != 0) refuse(option, dir, "the directory is not writable");
}

void check_output_file(const std::filesystem::path& file, std::string_view option) {
  if (file.empty()) refuse(option, file, "the path is empty");
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) refuse(option, file, "it is a directory; give a file name");
  const std::filesystem::path dir = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(dir, ec))
    refuse(option, file, fmt::format("the directory {} does not exist", quote(dir.string(), kMaxQuotedPath)));
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    refuse(option, file, fmt::format("the directory {} is not writable", quote(dir.string(), kMaxQuotedPath)));
}

}  // namespace clearfog
