#pragma once
// A command-line override, `--set key.path=value`. It is applied while the document is read, with
// the same validation as a value written in the file; its diagnostics are located at "--set".
#include <string>

namespace clearfog::config {

/// "--set key.path=value" from the command line, applied with the same validation as the file.
/// `key` is relative to the root of the document being loaded and may descend into referenced
/// documents ("platform.node.link.bandwidth"); `value` is read as YAML: a scalar, or a flow list or mapping.
struct Override {
  std::string key;
  std::string value;
};

/// Parses "a.b=c" (spaces around the key are trimmed); throws ConfigError on a missing '=' or key.
Override parse_override(const std::string& text);

}  // namespace clearfog::config
