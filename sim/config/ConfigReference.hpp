#pragma once
// The configuration reference, rendered from the key tables: `clearfog explain KIND` prints one
// table, `clearfog explain --markdown` prints docs/configuration.md. Nothing here is written by
// hand per key, so the reference cannot drift from what the reader accepts.
#include <string>

#include "config/DocumentKind.hpp"

namespace clearfog::config {

/// The keys of one kind: every declared key with its type, default, allowed values and description.
/// `markdown` = a GitHub-flavoured table, otherwise aligned plain text for a terminal.
std::string render_key_table(DocumentKind kind, bool markdown);

/// The whole docs/configuration.md page: files and references, units, overrides, one table per kind.
std::string configuration_reference_markdown();

}  // namespace clearfog::config
