#include "collectives/CollectiveRequest.hpp"

namespace clearfog::collectives {

std::vector<std::vector<double>> wire_matrix(const CollectiveRequest& r) {
  auto m = r.matrix;
  const double factor = r.payload_B > 0 ? r.bytes / r.payload_B : 1.0;
  for (auto& row : m)
    for (double& b : row) b *= factor;
  return m;
}

}  // namespace clearfog::collectives
