#pragma once
// What the cross-key checks share: reporting a problem at a key, and the dtypes an accelerator
// document declares.
#include <string>
#include <string_view>
#include <vector>

#include "config/ConfigDocument.hpp"
#include "core/Errors.hpp"

namespace clearfog::config {

/// A problem at `path` of `doc`, located where the key was written (or where it would be).
void report(const ConfigDocument& doc, std::string_view path, std::string message, std::vector<Diagnostic>& out);
/// A problem at `value`'s own location.
void report_at(const ConfigValue& value, std::string message, std::vector<Diagnostic>& out);
/// The dtypes an accelerator document gives a peak for, in kAllDTypes order.
std::vector<std::string> supported_dtypes(const ConfigDocument& accelerator);

}  // namespace clearfog::config
