#pragma once
// A CNN's layer list as a graph: each layer's input and shortcut resolved, the shapes of the
// tensors it reads and writes, and the blocks a pipeline may cut between (a cut where only one
// tensor is live, never inside a residual unit). Pure; problems are collected (for the workload
// checks to locate), never thrown.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "workload/types/CnnSpec.hpp"

namespace clearfog::workload {

/// A tensor of one image: channels x height x width.
struct TensorDims {
  long long c = 0, h = 0, w = 0;
  [[nodiscard]] double elements() const { return static_cast<double>(c) * static_cast<double>(h) * static_cast<double>(w); }
  [[nodiscard]] bool flat() const { return h == 1 && w == 1; }
  auto operator<=>(const TensorDims&) const = default;
};

/// What is wrong with layer `layer` (its field `field`, or the layer itself when empty).
struct NetworkProblem {
  std::size_t layer = 0;
  std::string field;
  std::string message;
};

inline constexpr long long kImage = -1;       // the producer index of the network's input
inline constexpr long long kUnresolved = -2;  // a reference to no earlier layer (a problem)
/// The most elements one layer's output may hold per image (2^34, 32 GiB in fp16).
inline constexpr long long kMaxTensorElements = 1LL << 34;
/// The name `input` and `shortcut` use for the network's input.
inline constexpr std::string_view kImageName = "image";

struct LayerGraph {
  long long input = kImage;     // the layer whose output it reads
  long long shortcut = kUnresolved;  // add: the other addend
  TensorDims in, out;
  bool known = false;           // shapes inferred (false past a shape problem)
  int consumers = 0;            // later layers reading its output (as input or shortcut)
};

/// Layers [begin, end) of the list, a pipeline unit.
struct BlockSpan {
  std::string name;
  std::size_t begin = 0, end = 0;
};

struct CnnNetwork {
  std::vector<LayerGraph> layers;
  std::vector<BlockSpan> blocks;
  std::vector<NetworkProblem> problems;
  [[nodiscard]] bool ok() const { return problems.empty(); }
};

/// Resolves names, infers shapes (per image) and groups the layers into blocks. Blocks start at
/// the layers that name one (`block:`) or, when none does, at every convolution or fully
/// connected layer where the network can be cut (one tensor live).
CnnNetwork analyze_network(const std::vector<CnnLayer>& layers, const ImageShape& image);

/// The output size of a window of `kernel` (dilated by `dilation`) sliding with `stride` over
/// `size` padded by `padding` on both sides; < 1 when the window does not fit (PyTorch's floor mode).
long long window_output(long long size, int kernel, int stride, int padding, int dilation);

}  // namespace clearfog::workload
