#include "config/YamlFile.hpp"

#include <fstream>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

namespace clearfog::config {

SourceLocation location_of(const YAML::Mark& mark, const std::string& file, const SourceLocation& fallback) {
  if (mark.is_null() || mark.line < 0 || mark.column < 0) return fallback;
  return SourceLocation{file, mark.line + 1, mark.column + 1};
}

std::optional<YAML::Node> read_yaml_file(const std::filesystem::path& file, const std::optional<Referrer>& referrer,
                                         std::vector<Diagnostic>& diagnostics) {
  const std::string name = file.string();
  auto cannot_read = [&](const std::string& why) {
    const std::string message = fmt::format("cannot read \"{}\": {}", name, why);
    if (referrer)
      diagnostics.push_back({referrer->location, referrer->key, message});
    else
      diagnostics.push_back({SourceLocation{name, 0, 0}, "", message});
  };

  std::error_code ec;
  const auto status = std::filesystem::status(file, ec);
  if (!std::filesystem::exists(status)) {
    cannot_read("no such file");
    return std::nullopt;
  }
  if (std::filesystem::is_directory(status)) {
    cannot_read("it is a directory, not a YAML file");
    return std::nullopt;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    cannot_read("the file cannot be opened");
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();

  try {
    return YAML::Load(text.str());
  } catch (const YAML::ParserException& e) {
    // e.msg is the bare message; e.what() repeats the position in yaml-cpp's own format.
    diagnostics.push_back({location_of(e.mark, name, SourceLocation{name, 0, 0}), "",
                           fmt::format("malformed YAML: {}", e.msg)});
  } catch (const YAML::Exception& e) {
    diagnostics.push_back({location_of(e.mark, name, SourceLocation{name, 0, 0}), "",
                           fmt::format("malformed YAML: {}", e.msg)});
  }
  return std::nullopt;
}

}  // namespace clearfog::config
