#pragma once
// Cross-key checks of accelerator and platform documents: keys used only under conditions, the
// node's links and devices, the fabric's shape against its node count.
#include <vector>

#include "config/ConfigDocument.hpp"
#include "core/Errors.hpp"

namespace clearfog::config {

void check_accelerator(const ConfigDocument& doc, std::vector<Diagnostic>& out);
void check_platform(const ConfigDocument& doc, std::vector<Diagnostic>& out);

}  // namespace clearfog::config
