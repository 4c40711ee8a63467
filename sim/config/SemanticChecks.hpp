#pragma once
// Cross-key checks, run after every value has been read and typed: what a single key's type and
// constraint cannot express (dp*tp*pp = device count, features not simulated yet, ...). Each
// problem is located at the key concerned.
#include <vector>

#include "config/ConfigDocument.hpp"
#include "core/Errors.hpp"

namespace clearfog::config {

/// Checks `document` and the documents it references; appends problems to `diagnostics`.
void check_semantics(const ConfigDocument& document, std::vector<Diagnostic>& diagnostics);

}  // namespace clearfog::config
