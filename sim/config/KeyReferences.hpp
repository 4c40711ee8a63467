#pragma once
// A platform's name says how many nodes and devices it has by citing the keys that hold them,
// "DGX A100 cluster ({fabric.nodes} nodes)": the name shown is made from the values as resolved
// (after every --set), never from text a --set leaves stale. docs/configuration.md, `name`.
#include <string>
#include <string_view>
#include <vector>

#include "config/ConfigDocument.hpp"
#include "core/Errors.hpp"

namespace clearfog::config {

/// The value of `doc`'s key `path` with every "{key}" in it replaced by that integer key's value in
/// `doc`; a reference check_key_references() rejects is left as written.
std::string expand_key_references(const ConfigDocument& doc, std::string_view path);

/// A "{" without its "}", or a "{key}" that names no integer key of `doc`, in the value of `path`.
void check_key_references(const ConfigDocument& doc, std::string_view path, std::vector<Diagnostic>& out);

}  // namespace clearfog::config
