#pragma once
// Cross-key checks of workload and scenario documents: heads against hidden, the 3D layout against
// the workload and the platform, batch divisibility, precision and collective algorithm against
// what the platform offers.
#include <vector>

#include "config/ConfigDocument.hpp"
#include "core/Errors.hpp"

namespace clearfog::config {

void check_workload(const ConfigDocument& doc, std::vector<Diagnostic>& out);
void check_scenario(const ConfigDocument& doc, std::vector<Diagnostic>& out);

}  // namespace clearfog::config
