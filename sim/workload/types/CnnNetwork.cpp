#include "workload/types/CnnNetwork.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "config/DidYouMean.hpp"

namespace clearfog::workload {

namespace {

std::string dims_text(const TensorDims& d) { return fmt::format("{} x {} x {}", d.c, d.h, d.w); }

class Analyzer {
public:
  Analyzer(const std::vector<CnnLayer>& layers, const ImageShape& image) : layers_(layers), image_(image) {
    net_.layers.resize(layers.size());
  }

  CnnNetwork run() {
    resolve();
    infer_shapes();
    check_structure();
    group_blocks();
    std::stable_sort(net_.problems.begin(), net_.problems.end(),
                     [](const NetworkProblem& a, const NetworkProblem& b) { return a.layer < b.layer; });
    return std::move(net_);
  }

private:
  void problem(std::size_t layer, std::string field, std::string message) {
    net_.problems.push_back({layer, std::move(field), std::move(message)});
  }

  /// The layer named `name` before layer `i`, or kUnresolved (a problem reported at `field`).
  long long find(const std::string& name, std::size_t i, const char* field) {
    if (name == kImageName) return kImage;
    const auto it = index_.find(name);
    if (it != index_.end() && it->second < i) return static_cast<long long>(it->second);
    if (it != index_.end())
      problem(i, field, fmt::format("'{}' is not an earlier layer: a layer can only read outputs computed before it",
                                    name));
    else
      problem(i, field, fmt::format("no layer named '{}' before this one{}", name, suggestion(name, i)));
    return kUnresolved;
  }

  /// "; did you mean 'relu1'?" for a misspelt name of an earlier layer.
  std::string suggestion(const std::string& name, std::size_t i) const {
    std::vector<std::string> earlier = {std::string(kImageName)};
    for (std::size_t k = 0; k < i; ++k) earlier.push_back(layers_[k].name);
    const auto best = config::closest_match(name, earlier);
    return best ? fmt::format("; did you mean '{}'?", *best) : "";
  }

  void resolve() {
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      const CnnLayer& l = layers_[i];
      if (l.name == kImageName)
        problem(i, "name", fmt::format("'{}' names the network's input; give the layer another name", kImageName));
      else if (!index_.emplace(l.name, i).second)
        problem(i, "name", fmt::format("a layer named '{}' comes earlier; names must be unique", l.name));
      auto& g = net_.layers[i];
      g.input = l.input.empty() ? static_cast<long long>(i) - 1 : find(l.input, i, "input");
      if (l.kind == CnnLayerKind::Add) {
        if (l.shortcut.empty())
          problem(i, "", "an add layer needs `shortcut`: the earlier layer whose output it adds to its input");
        g.shortcut = l.shortcut.empty() ? kUnresolved : find(l.shortcut, i, "shortcut");
      }
      if (g.input >= 0) ++net_.layers[static_cast<std::size_t>(g.input)].consumers;
      if (g.shortcut >= 0) ++net_.layers[static_cast<std::size_t>(g.shortcut)].consumers;
      require_sizes(i);
    }
  }

  /// The sizes a layer of its kind cannot do without (the workload keys leave them optional).
  void require_sizes(std::size_t i) {
    const CnnLayer& l = layers_[i];
    const std::string kind(cnn_layer_name(l.kind));
    if ((l.kind == CnnLayerKind::Conv || l.kind == CnnLayerKind::Fc) && l.out < 1)
      problem(i, "", fmt::format("a {} layer needs `out`: its output {}", kind,
                                 l.kind == CnnLayerKind::Conv ? "channels" : "features"));
    if ((l.kind == CnnLayerKind::Conv || is_pooling(l.kind)) && l.kernel < 1)
      problem(i, "", fmt::format("a {} layer needs `kernel`: the side of its square window", kind));
  }

  TensorDims image_dims() const { return {image_.channels, image_.height, image_.width}; }

  void infer_shapes() {
    const TensorDims image = image_dims();
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      auto& g = net_.layers[i];
      if (!known(g.input) || (layers_[i].kind == CnnLayerKind::Add && !known(g.shortcut))) continue;
      if ((layers_[i].kind == CnnLayerKind::Conv || layers_[i].kind == CnnLayerKind::Fc) && layers_[i].out < 1) continue;
      if ((layers_[i].kind == CnnLayerKind::Conv || is_pooling(layers_[i].kind)) && layers_[i].kernel < 1) continue;
      g.in = g.input >= 0 ? net_.layers[static_cast<std::size_t>(g.input)].out : image;
      g.known = shape_of(i, g) && within_limit(i, g);
    }
  }

  /// A tensor of more than kMaxTensorElements per image: sizes past it would overflow the 64-bit
  /// products of the kernels (micro-batch x channels x pixels x window).
  bool within_limit(std::size_t i, const LayerGraph& g) {
    if (g.out.elements() <= static_cast<double>(kMaxTensorElements)) return true;
    problem(i, "", fmt::format("its output ({}) has {:.3g} elements per image, too many: at most 2^34 ({})",
                               dims_text(g.out), g.out.elements(), kMaxTensorElements));
    return false;
  }

  /// Whether the output of `producer` (a layer or the image) has a known shape.
  bool known(long long producer) const {
    return producer == kImage || (producer >= 0 && net_.layers[static_cast<std::size_t>(producer)].known);
  }

  /// Sets g.out from g.in; false (with a problem) when the layer cannot take its input.
  bool shape_of(std::size_t i, LayerGraph& g) {
    const CnnLayer& l = layers_[i];
    const TensorDims in = g.in;
    const std::string kind(cnn_layer_name(l.kind));
    switch (l.kind) {
      case CnnLayerKind::Conv: {
        bool fits = true;
        if (in.c % l.groups != 0) {
          problem(i, "groups", fmt::format("groups {} must divide the input's {} channels", l.groups, in.c));
          fits = false;
        }
        if (l.out % l.groups != 0) {
          problem(i, "out", fmt::format("out {} must be divisible by groups {}", l.out, l.groups));
          fits = false;
        }
        g.out = {l.out, window_output(in.h, l.kernel, l.stride, l.padding, l.dilation),
                 window_output(in.w, l.kernel, l.stride, l.padding, l.dilation)};
        return fits && fits_window(i, g);
      }
      case CnnLayerKind::MaxPool:
      case CnnLayerKind::AvgPool:
        if (2 * l.padding > l.kernel) {
          problem(i, "padding", fmt::format("padding {} must be at most half the kernel {} (PyTorch's pooling)",
                                            l.padding, l.kernel));
          return false;
        }
        g.out = {in.c, window_output(in.h, l.kernel, l.stride, l.padding, 1),
                 window_output(in.w, l.kernel, l.stride, l.padding, 1)};
        return fits_window(i, g);
      case CnnLayerKind::GlobalAvgPool: g.out = {in.c, 1, 1}; return true;
      case CnnLayerKind::Flatten: g.out = {in.c * in.h * in.w, 1, 1}; return true;
      case CnnLayerKind::Fc:
      case CnnLayerKind::Loss:
        if (!in.flat()) {
          problem(i, "", fmt::format("{} needs flat features, but its input is {} (channels x height x width): put a "
                                     "global_avgpool or flatten layer before it",
                                     kind, dims_text(in)));
          return false;
        }
        g.out = l.kind == CnnLayerKind::Fc ? TensorDims{l.out, 1, 1} : TensorDims{0, 0, 0};
        return true;
      case CnnLayerKind::Add: {
        g.out = in;
        const TensorDims added = g.shortcut == kImage ? image_dims()
                                                      : net_.layers[static_cast<std::size_t>(g.shortcut)].out;
        if (added == in) return true;
        problem(i, "shortcut",
                fmt::format("adds '{}' ({}) to its input ({}): channels and sizes must match", l.shortcut,
                            dims_text(added), dims_text(in)));
        return true;  // the sum has its input's shape: later layers are still checked
      }
      case CnnLayerKind::BatchNorm:
      case CnnLayerKind::Relu:
      case CnnLayerKind::Dropout: g.out = in; return true;
    }
    return false;
  }

  bool fits_window(std::size_t i, const LayerGraph& g) {
    if (g.out.h >= 1 && g.out.w >= 1) return true;
    const CnnLayer& l = layers_[i];
    problem(i, "kernel",
            fmt::format("the output would have no pixels: a {}x{} window (stride {}, padding {}{}) does not fit the "
                        "{} x {} input; the input must be at least {} pixels on each side",
                        l.kernel, l.kernel, l.stride, l.padding,
                        l.dilation > 1 ? fmt::format(", dilation {}", l.dilation) : "", g.in.h, g.in.w,
                        static_cast<long long>(l.dilation) * (l.kernel - 1) + 1 - 2LL * l.padding));
    return false;
  }

  void check_structure() {
    const std::size_t n = layers_.size();
    if (n == 0) return;
    for (std::size_t i = 0; i + 1 < n; ++i) {
      if (layers_[i].kind == CnnLayerKind::Loss)
        problem(i, "type", "the loss must be the last layer");
      else if (net_.layers[i].consumers == 0)
        problem(i, "", fmt::format("the output of '{}' is not used by any later layer; every layer but the final "
                                   "loss must feed another",
                                   layers_[i].name));
    }
    if (layers_.back().kind != CnnLayerKind::Loss)
      problem(n - 1, "type", "the network must end with a loss layer (type: loss, the softmax cross-entropy)");
  }

  /// The outputs live across a cut just before layer j: those computed before j and read at or after it.
  std::vector<long long> live_at(std::size_t j) const {
    std::set<long long> live;
    for (std::size_t k = j; k < layers_.size(); ++k) {
      const auto& g = net_.layers[k];
      if (g.input != kUnresolved && g.input < static_cast<long long>(j)) live.insert(g.input);
      if (g.shortcut != kUnresolved && g.shortcut < static_cast<long long>(j)) live.insert(g.shortcut);
    }
    return {live.begin(), live.end()};
  }

  bool cuttable(std::size_t j) const {
    const auto live = live_at(j);
    return live.size() == 1 && live.front() == static_cast<long long>(j) - 1;
  }

  void group_blocks() {
    bool named = false;
    for (const auto& l : layers_) named = named || !l.block.empty();
    std::set<std::string> names;
    for (std::size_t j = 0; j < layers_.size(); ++j) {
      const CnnLayer& l = layers_[j];
      bool starts = j == 0;
      if (named && j > 0 && !l.block.empty()) {
        starts = true;
        if (!cuttable(j)) report_uncuttable(j);
      } else if (!named && j > 0) {
        starts = (l.kind == CnnLayerKind::Conv || l.kind == CnnLayerKind::Fc) && cuttable(j);
      }
      if (!starts) continue;
      const std::string name = l.block.empty() ? l.name : l.block;
      if (!names.insert(name).second)
        problem(j, "block", fmt::format("a block named '{}' comes earlier; block names must be unique", name));
      if (!net_.blocks.empty()) net_.blocks.back().end = j;
      net_.blocks.push_back({name, j, layers_.size()});
    }
  }

  void report_uncuttable(std::size_t j) {
    std::vector<std::string> live;
    for (const long long p : live_at(j)) live.push_back(p >= 0 ? "'" + layers_[static_cast<std::size_t>(p)].name + "'" : "the image");
    problem(j, "block",
            fmt::format("block '{}' cannot start here: {} tensors are live (the outputs of {}); a block must start "
                        "where only the previous layer's output is live, not inside a residual unit",
                        layers_[j].block, live.size(), fmt::join(live, " and ")));
  }

  const std::vector<CnnLayer>& layers_;
  const ImageShape& image_;
  std::map<std::string, std::size_t> index_;
  CnnNetwork net_;
};

}  // namespace

long long window_output(long long size, int kernel, int stride, int padding, int dilation) {
  const long long span = static_cast<long long>(dilation) * (kernel - 1) + 1;
  const long long room = size + 2LL * padding - span;
  return room < 0 ? 0 : room / stride + 1;
}

CnnNetwork analyze_network(const std::vector<CnnLayer>& layers, const ImageShape& image) {
  return Analyzer(layers, image).run();
}

}  // namespace clearfog::workload
