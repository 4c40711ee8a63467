#include "workload/types/CnnFusion.hpp"

namespace clearfog::workload {

namespace {

/// The one layer that reads layer `i`'s output, if exactly one read does (an add reading the same
/// layer as input and shortcut reads it twice).
std::vector<std::optional<std::size_t>> sole_readers(const CnnNetwork& net) {
  std::vector<int> count(net.layers.size(), 0);
  std::vector<std::optional<std::size_t>> reader(net.layers.size());
  const auto note = [&](long long producer, std::size_t j) {
    if (producer < 0) return;
    const auto p = static_cast<std::size_t>(producer);
    if (++count[p] == 1) reader[p] = j;
    else reader[p].reset();
  };
  for (std::size_t j = 0; j < net.layers.size(); ++j) {
    note(net.layers[j].input, j);
    note(net.layers[j].shortcut, j);
  }
  return reader;
}

/// Each layer's block.
std::vector<std::size_t> blocks_of(const CnnNetwork& net) {
  std::vector<std::size_t> block(net.layers.size(), 0);
  for (std::size_t k = 0; k < net.blocks.size(); ++k)
    for (std::size_t i = net.blocks[k].begin; i < net.blocks[k].end; ++i) block[i] = k;
  return block;
}

}  // namespace

std::vector<BatchNormReluChain> batchnorm_relu_chains(const std::vector<CnnLayer>& layers, const CnnNetwork& net) {
  std::vector<BatchNormReluChain> chains;
  const auto reader = sole_readers(net);
  const auto block = blocks_of(net);
  // The sole reader of `i`, reading it as its (main) input, of kind `kind`, in `i`'s block (a
  // fused kernel belongs to one pipeline unit).
  const auto reads_as_input = [&](std::size_t i, CnnLayerKind kind) -> std::optional<std::size_t> {
    const auto j = reader[i];
    if (j && layers[*j].kind == kind && net.layers[*j].input == static_cast<long long>(i) && block[*j] == block[i])
      return j;
    return std::nullopt;
  };
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (layers[i].kind != CnnLayerKind::BatchNorm) continue;
    if (const auto relu = reads_as_input(i, CnnLayerKind::Relu)) {
      chains.push_back({i, std::nullopt, *relu});
    } else if (const auto add = reads_as_input(i, CnnLayerKind::Add)) {
      if (const auto after = reads_as_input(*add, CnnLayerKind::Relu)) chains.push_back({i, add, *after});
    }
  }
  return chains;
}

}  // namespace clearfog::workload
