// The cnn workload type's rules between its keys: one form of the network, keys a layer of its
// type uses, and everything analyze_network finds (references, channels, sizes, block cuts),
// located at the entry and key it concerns.
#include <fmt/format.h>

#include <algorithm>

#include "config/CheckSupport.hpp"
#include "workload/types/CnnDocument.hpp"
#include "workload/types/CnnType.hpp"

namespace clearfog::workload {

using config::ConfigDocument;
using config::ConfigValue;

namespace {

constexpr std::array<std::string_view, 6> kStageKeys = {"stem",      "stem_channels", "stride_in",
                                                        "head_pool", "head_fc",       "head_dropout"};
constexpr std::array<std::string_view, 4> kCommonFields = {"type", "name", "block", "input"};

/// Keys given in a `network:` entry that its layer type does not use.
void check_entry_fields(const ConfigValue& entry, std::vector<Diagnostic>& out) {
  const std::string type = entry.field("type")->as_string();
  std::vector<std::string> allowed(kCommonFields.begin(), kCommonFields.end());
  for (const CnnLayerKind kind : kAllCnnLayerKinds)
    if (cnn_layer_name(kind) == type) {
      const auto own = layer_fields(kind);
      allowed.insert(allowed.end(), own.begin(), own.end());
    }
  for (const ConfigValue& field : entry.as_list()) {
    if (field.is_default()) continue;
    if (std::find(allowed.begin(), allowed.end(), field.spec->path) == allowed.end())
      config::report_at(field,
                        fmt::format("`{}` is not used by a {} layer; its keys: {}", field.spec->path, type,
                                    fmt::join(allowed, ", ")),
                        out);
  }
}

void check_network_form(const ConfigDocument& doc, const ConfigValue& network, std::vector<Diagnostic>& out) {
  for (const std::string_view key : kStageKeys)
    if (const ConfigValue* v = doc.find(key); v && !v->is_default())
      config::report_at(*v, "only used with `stages`; this workload lists its layers in `network`", out);
  for (const ConfigValue& entry : network.as_list()) check_entry_fields(entry, out);
}

void check_stages_form(const ConfigDocument& doc, const ConfigValue& stages, std::vector<Diagnostic>& out) {
  if (!doc.find("classes") && !doc.rejected("classes"))
    config::report(doc, "classes",
                   "missing required key \"classes\" (an integer >= 1): the classifier's outputs, needed with `stages`",
                   out);
  for (const ConfigValue& stage : stages.as_list()) {
    const std::string block = stage.field("block")->as_string();
    const ConfigValue* stride = stage.field("stride");
    if ((block == "vgg" || block == "vgg_bn") && stride->as_integer() != 1)
      config::report_at(*stride,
                        fmt::format("a {} stage downsamples with the 2x2 max pool that closes it; stride must be 1, "
                                    "got {}",
                                    block, stride->as_integer()),
                        out);
  }
}

/// Where a problem of the network is reported: the entry's key, the entry, or (for layers the
/// stages made) the `stages` key.
void report_problem(const ConfigDocument& doc, const CnnDocument& d, const NetworkProblem& p,
                    std::vector<Diagnostic>& out) {
  const ConfigValue* entry = d.entries[p.layer];
  if (!entry) {
    config::report(doc, "stages", fmt::format("layer '{}' of the stages: {}", d.layers[p.layer].name, p.message), out);
    return;
  }
  const ConfigValue* field = p.field.empty() ? nullptr : entry->field(p.field);
  const bool written = field && !field->is_default();
  config::report_at(written ? *field : *entry, p.message, out);
}

}  // namespace

void CnnType::check(const ConfigDocument& doc, std::vector<Diagnostic>& out) const {
  const ConfigValue* network = doc.find("network");
  const ConfigValue* stages = doc.find("stages");
  if (!network && !stages) {
    if (!doc.rejected("network") && !doc.rejected("stages"))
      config::report(doc, "",
                     "a cnn workload needs its layers: give `network` (a list of layers) or `stages` (ResNet or VGG "
                     "stages)",
                     out);
    return;
  }
  if (network && stages) {
    config::report(doc, "stages", "give either `network` or `stages`, not both", out);
    return;
  }
  const std::size_t before = out.size();
  if (network) check_network_form(doc, *network, out);
  if (stages) check_stages_form(doc, *stages, out);
  if (out.size() != before) return;  // the layers cannot be read as meant
  const auto d = read_cnn_document(doc);
  if (!d) return;
  const CnnNetwork net = analyze_network(d->layers, d->image);
  for (const NetworkProblem& p : net.problems) report_problem(doc, *d, p, out);
  const ConfigValue* classes = doc.find("classes");
  if (network && classes && net.ok() && net.layers.back().in.c != classes->as_integer())
    config::report_at(*classes,
                      fmt::format("classes {} differs from the {} features the loss receives", classes->as_integer(),
                                  net.layers.back().in.c),
                      out);
}

}  // namespace clearfog::workload
