#pragma once
// The `stages:` form of a cnn workload: a ResNet or VGG network from its stem, stages and head.
#include <vector>

#include "workload/types/CnnSpec.hpp"

namespace clearfog::workload {

/// The layers of the compact form: stem, stages, head, loss (docs/workloads.md). Residual blocks
/// read the image when there is no stem.
std::vector<CnnLayer> expand_stages(const CnnStages& stages, int image_channels);

}  // namespace clearfog::workload
