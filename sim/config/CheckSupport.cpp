#include "config/CheckSupport.hpp"

#include "core/DType.hpp"

namespace clearfog::config {

void report(const ConfigDocument& doc, std::string_view path, std::string message, std::vector<Diagnostic>& out) {
  out.push_back({doc.location_of(path), doc.display_key(path), std::move(message)});
}

void report_at(const ConfigValue& value, std::string message, std::vector<Diagnostic>& out) {
  out.push_back({value.location, value.key, std::move(message)});
}

std::vector<std::string> supported_dtypes(const ConfigDocument& accelerator) {
  std::vector<std::string> names;
  for (DType d : kAllDTypes)
    if (accelerator.find("peak." + std::string(dtype_name(d)))) names.emplace_back(dtype_name(d));
  return names;
}

}  // namespace clearfog::config
