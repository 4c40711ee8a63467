#include "workload/ModelFlops.hpp"

// The closed forms assume ffn_hidden = 4 * hidden, as the papers do; TransformerModel's kernel
// list is the general-f reference.
namespace clearfog::workload {

namespace {
struct Sizes {
  double l, h, s, V;
};
Sizes sizes(const config::WorkloadSpec& w) {
  return Sizes{static_cast<double>(w.layers), static_cast<double>(w.hidden), static_cast<double>(w.seq_length),
               static_cast<double>(w.vocab_size)};
}
}  // namespace

double megatron_parameter_count(const config::WorkloadSpec& w) {
  const auto [l, h, s, V] = sizes(w);
  return 12 * l * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * l * h));
}

double model_flops_per_iteration(const config::WorkloadSpec& w, double batch) {
  const auto [l, h, s, V] = sizes(w);
  return 72 * batch * l * s * h * h * (1 + s / (6 * h) + V / (12 * h * l));
}

double megatron_flops_per_iteration(const config::WorkloadSpec& w, double batch) {
  const auto [l, h, s, V] = sizes(w);
  return 96 * batch * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
}

}  // namespace clearfog::workload
