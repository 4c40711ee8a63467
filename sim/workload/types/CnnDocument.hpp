#pragma once
// A cnn workload document read into its layer list: the `network:` entries with their defaults
// applied, or the `stages:` form expanded. Shared by the type's build, checks and pipeline count.
#include <optional>
#include <string>
#include <vector>

#include "config/ConfigDocument.hpp"
#include "workload/types/CnnSpec.hpp"

namespace clearfog::workload {

struct CnnDocument {
  ImageShape image;
  std::vector<CnnLayer> layers;
  /// Per layer: its `network:` entry (to locate problems), or nullptr for layers the stages made.
  std::vector<const config::ConfigValue*> entries;
  bool from_stages = false;
  int classes = 0;  // `classes`, 0 when not given
  std::string form;
};

/// The document's layers; nullopt when it gives neither or both of `network` and `stages`, or
/// lacks the image (the checks report these).
std::optional<CnnDocument> read_cnn_document(const config::ConfigDocument& doc);

/// The keys a `network:` entry of `kind` may give (besides type, name, block and input).
std::vector<std::string> layer_fields(CnnLayerKind kind);

}  // namespace clearfog::workload
