#include "workload/ModelDescription.hpp"

#include <fmt/format.h>

#include "core/Errors.hpp"

namespace clearfog::workload {

double Block::device_parameters() const {
  double n = 0;
  for (const auto& p : params) n += p.elements;
  return n;
}

double Block::model_parameters() const {
  double n = 0;
  for (const auto& p : params)
    if (p.tied_to.empty()) n += p.model_elements;
  return n;
}

double model_flops(const std::vector<Segment>& pass) {
  double f = 0;
  for (const auto& s : pass)
    for (const auto& k : s.kernels) f += k.model_flops;
  return f;
}

double matmul_flops(const std::vector<kernels::Kernel>& kernels) {
  double f = 0;
  for (const auto& k : kernels) f += k.matmul_flops();
  return f;
}

double matmul_flops(const std::vector<Segment>& pass) {
  double f = 0;
  for (const auto& s : pass) f += matmul_flops(s.kernels);
  return f;
}

double ModelDescription::parameters() const {
  double n = 0;
  for (const auto& b : blocks) n += b.model_parameters();
  return n;
}

std::size_t ModelDescription::block_index(const std::string& name) const {
  for (std::size_t i = 0; i < blocks.size(); ++i)
    if (blocks[i].name == name) return i;
  std::vector<std::string> names;
  for (const auto& b : blocks) names.push_back(b.name);
  throw Error(fmt::format("model description ({}): no block '{}'; blocks: {}", type, name, fmt::join(names, ", ")));
}

}  // namespace clearfog::workload
