#pragma once
// moe.trace: a file of expert loads, one line per MoE layer, one number per expert separated by
// commas; '#' starts a comment. Read by the scenario checks (so that validate reports a bad file)
// and by the spec builder, through this one function.
#include <filesystem>
#include <vector>

#include "config/ConfigDocument.hpp"
#include "core/Errors.hpp"

namespace clearfog::config {

/// The loads of `value` (the moe.trace key of a scenario read from `scenario_file`), each row
/// normalized to sum 1. Problems (missing or unreadable file, a non-number, a negative or non-finite
/// load, a row of zeros, rows of different lengths) are appended to `out`, located at the file's
/// line and column when they are in the file, at the key otherwise.
std::vector<std::vector<double>> read_routing_trace(const ConfigValue& value, const std::string& scenario_file,
                                                    std::vector<Diagnostic>& out);

}  // namespace clearfog::config
