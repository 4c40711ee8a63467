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
  double n = sparse_model_parameters;
  for (const auto& p : params)
    if (p.tied_to.empty()) n += p.model_elements;
  return n;
}

namespace {

/// `of` summed over a segment's kernels: where expert ranks run different kernels, their mean (every
/// rank runs the block equally often, so the mean times the devices is the total).
template <typename Of>
double segment_sum(const Segment& s, const Of& of) {
  const auto sum = [&](const std::vector<kernels::Kernel>& kernels) {
    double f = 0;
    for (const auto& k : kernels) f += of(k);
    return f;
  };
  if (s.kernels_by_expert_rank.empty()) return sum(s.kernels);
  double total = 0;
  for (const auto& rank : s.kernels_by_expert_rank) total += sum(rank);
  return total / static_cast<double>(s.kernels_by_expert_rank.size());
}

}  // namespace

double model_flops(const std::vector<Segment>& pass) {
  double f = 0;
  for (const auto& s : pass) f += segment_sum(s, [](const kernels::Kernel& k) { return k.model_flops; });
  return f;
}

double matmul_flops(const std::vector<kernels::Kernel>& kernels) {
  double f = 0;
  for (const auto& k : kernels) f += k.matmul_flops();
  return f;
}

double matmul_flops(const std::vector<Segment>& pass) {
  double f = 0;
  for (const auto& s : pass) f += segment_sum(s, [](const kernels::Kernel& k) { return k.matmul_flops(); });
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
