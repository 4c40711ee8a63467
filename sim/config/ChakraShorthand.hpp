#pragma once
// The chakra workload shorthand, `workload: {chakra: DIR}`: a workload that names a trace directory
// is of type chakra and, when it has no name or source, is named after the directory
// (docs/interop.md).
#include <map>
#include <set>
#include <string>

#include "config/DocumentKind.hpp"
#include "config/NodeSource.hpp"
#include "config/RawValue.hpp"

namespace clearfog::config {

/// In a workload document (`kind`) whose raw values hold "chakra", adds the implied "type",
/// "name" and "source" (as defaults located at the directory) where neither a value nor an invalid
/// one (`invalid`) was written. `source` is the document's; other kinds are left as they are.
void imply_chakra_workload(DocumentKind kind, const NodeSource& source, const std::set<std::string>& invalid,
                           std::map<std::string, RawValue>& raw);

}  // namespace clearfog::config
