#pragma once
// What the cross-key checks share: reporting a problem at a key, and the dtypes an accelerator
// document declares.
#include <cstdint>
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
/// Keys used only under conditions (KeySpec::only_with): a key given although one of its conditions
/// does not hold; a required key missing although all hold.
void check_conditions(const ConfigDocument& doc, std::vector<Diagnostic>& out);
/// The value of `path` when it is given or defaulted (not derived) and every condition of its key
/// holds; nullptr otherwise, so that checks never judge a value that is not used.
const ConfigValue* used(const ConfigDocument& doc, std::string_view path);
/// "1, 2, 4, 8": the divisors of `n`, for messages that ask for one.
std::string divisors_text(std::int64_t n);
/// A list of factors (`what`: "dimensions", "levels") whose product must be `expected`
/// (node.devices or fabric.nodes), reported at the list.
void check_product(const ConfigValue& factors, std::string_view what, std::int64_t expected,
                   std::string_view expected_key, std::vector<Diagnostic>& out);
/// The dtypes an accelerator document gives a peak for, in kAllDTypes order.
std::vector<std::string> supported_dtypes(const ConfigDocument& accelerator);

}  // namespace clearfog::config
