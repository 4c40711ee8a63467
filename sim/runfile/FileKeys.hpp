#pragma once
// The keys of the files `clearfog sweep` and `clearfog compare` read, declared once: the loaders
// refuse any other key and `clearfog explain sweep|compare` prints the same table. (Sweep axes are a
// mapping of arbitrary scenario keys, which the config key tables cannot describe.)
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace clearfog::runfile {

struct FileKey {
  std::string_view name;
  std::string_view type;
  std::string_view default_text;  ///< "required" or the value used when the key is left out
  std::string_view description;
};

/// The keys of a sweep file, in documentation order.
std::span<const FileKey> sweep_file_keys();
/// The keys of a comparison file.
std::span<const FileKey> compare_file_keys();
std::span<const FileKey> cluster_file_keys();

/// The names of `keys`, for "unknown key; known: ..." messages.
std::vector<std::string> key_names(std::span<const FileKey> keys);

/// `clearfog explain sweep|compare`: an aligned text table, or Markdown.
std::string render_file_keys(std::string_view kind, std::string_view intro, std::span<const FileKey> keys,
                             bool markdown);

}  // namespace clearfog::runfile
