#include "workload/types/CnnDocument.hpp"

#include <fmt/format.h>

#include <map>
#include <numeric>

#include "config/KeyTableParts.hpp"
#include "workload/types/CnnStages.hpp"

namespace clearfog::workload {

using config::ConfigDocument;
using config::ConfigValue;

namespace {

/// An integer field given in the entry (derived fields are absent until the builder sets them).
std::optional<int> int_field(const ConfigValue& entry, std::string_view name) {
  const ConfigValue* f = entry.field(name);
  if (!f || f->is_derived()) return std::nullopt;
  return static_cast<int>(f->as_integer());
}

std::string string_field(const ConfigValue& entry, std::string_view name) {
  const ConfigValue* f = entry.field(name);
  return f && !f->is_derived() ? f->as_string() : std::string();
}

/// One `network:` entry with PyTorch's defaults, except the convolution's padding, which keeps
/// the size at stride 1 (as every convolution of ResNet and VGG does).
CnnLayer layer_of(const ConfigValue& entry, std::map<CnnLayerKind, int>& counts) {
  CnnLayer l;
  l.kind = config::value_named(kAllCnnLayerKinds, cnn_layer_name, entry.field("type")->as_string());
  const int n = ++counts[l.kind];
  l.name = string_field(entry, "name");
  if (l.name.empty()) l.name = fmt::format("{}{}", cnn_layer_name(l.kind), n);
  l.block = string_field(entry, "block");
  l.input = string_field(entry, "input");
  l.shortcut = string_field(entry, "shortcut");
  l.out = int_field(entry, "out").value_or(0);
  l.kernel = int_field(entry, "kernel").value_or(0);
  l.groups = int_field(entry, "groups").value_or(1);
  l.dilation = int_field(entry, "dilation").value_or(1);
  l.stride = int_field(entry, "stride").value_or(is_pooling(l.kind) ? std::max(l.kernel, 1) : 1);
  l.padding = int_field(entry, "padding").value_or(l.kind == CnnLayerKind::Conv ? l.dilation * (l.kernel - 1) / 2 : 0);
  const ConfigValue* bias = entry.field("bias");
  l.bias = (l.kind == CnnLayerKind::Conv || l.kind == CnnLayerKind::Fc) && bias && bias->as_bool();
  return l;
}

CnnStages stages_of(const ConfigDocument& doc) {
  CnnStages s;
  s.stem = config::value_named(kAllStemKinds, stem_name, doc.get_string("stem"));
  s.stem_channels = doc.get_int("stem_channels");
  s.stride_in = config::value_named(kAllStrideIns, stride_in_name, doc.get_string("stride_in"));
  s.head_pool = config::value_named(kAllHeadPools, head_pool_name, doc.get_string("head_pool"));
  if (doc.find("head_fc")) s.head_fc = doc.get_int_list("head_fc");
  s.head_dropout = doc.get_bool("head_dropout");
  s.classes = doc.find("classes") ? doc.get_int("classes") : 0;
  for (const ConfigValue& e : doc.at("stages").as_list()) {
    CnnStage stage;
    stage.block = config::value_named(kAllStageBlocks, stage_block_name, e.field("block")->as_string());
    stage.count = static_cast<int>(e.field("count")->as_integer());
    stage.channels = static_cast<int>(e.field("channels")->as_integer());
    stage.stride = static_cast<int>(e.field("stride")->as_integer());
    s.stages.push_back(stage);
  }
  return s;
}

std::string stages_text(const CnnStages& s) {
  std::vector<int> counts;
  for (const auto& st : s.stages) counts.push_back(st.count);
  std::string blocks;
  for (const auto& st : s.stages)
    if (blocks.find(stage_block_name(st.block)) == std::string::npos)
      blocks += (blocks.empty() ? "" : "/") + std::string(stage_block_name(st.block));
  return fmt::format("stages {} {}", fmt::join(counts, "-"), blocks);
}

}  // namespace

std::vector<std::string> layer_fields(CnnLayerKind kind) {
  switch (kind) {
    case CnnLayerKind::Conv: return {"out", "kernel", "stride", "padding", "groups", "dilation", "bias"};
    case CnnLayerKind::MaxPool:
    case CnnLayerKind::AvgPool: return {"kernel", "stride", "padding"};
    case CnnLayerKind::Fc: return {"out", "bias"};
    case CnnLayerKind::Add: return {"shortcut"};
    case CnnLayerKind::BatchNorm:
    case CnnLayerKind::Relu:
    case CnnLayerKind::GlobalAvgPool:
    case CnnLayerKind::Flatten:
    case CnnLayerKind::Dropout:
    case CnnLayerKind::Loss: break;
  }
  return {};
}

std::optional<CnnDocument> read_cnn_document(const ConfigDocument& doc) {
  const ConfigValue* network = doc.find("network");
  const ConfigValue* stages = doc.find("stages");
  if ((network == nullptr) == (stages == nullptr) || !doc.find("image.height") || !doc.find("image.width"))
    return std::nullopt;
  CnnDocument d;
  d.image = {doc.get_int("image.height"), doc.get_int("image.width"), doc.get_int("image.channels")};
  d.classes = doc.find("classes") ? doc.get_int("classes") : 0;
  if (network) {
    std::map<CnnLayerKind, int> counts;
    for (const ConfigValue& entry : network->as_list()) {
      d.layers.push_back(layer_of(entry, counts));
      d.entries.push_back(&entry);
    }
    d.form = fmt::format("network of {} layers", d.layers.size());
    return d;
  }
  const CnnStages s = stages_of(doc);
  d.from_stages = true;
  d.layers = expand_stages(s, d.image.channels);
  d.entries.assign(d.layers.size(), nullptr);
  d.form = stages_text(s);
  return d;
}

}  // namespace clearfog::workload
