// The keys of a workload file: `type` and the keys each workload type declares (its file under
// workload/types/), each used only when `type` names a type that declares it.
#include <fmt/format.h>

#include <stdexcept>

#include "config/KeyTableParts.hpp"
#include "config/WorkloadTypeSchema.hpp"

namespace clearfog::config {

namespace {

/// Whether two declarations of one path (by different types) mean the same key.
bool same_declaration(const KeySpec& a, const KeySpec& b) {
  return a.type == b.type && a.dimension == b.dimension && a.choices == b.choices && a.presence == b.presence &&
         a.default_text == b.default_text && a.constraint == b.constraint && a.list == b.list;
}

/// Adds `key` of `type` to `keys`, or widens the "type is ..." condition of an earlier
/// declaration of the same path.
void add_type_key(std::vector<KeySpec>& keys, KeySpec key, const std::string& type) {
  for (auto& k : keys) {
    if (k.path != key.path) continue;
    if (!same_declaration(k, key))
      throw std::logic_error(fmt::format("workload types declare key '{}' differently", key.path));
    k.only_with.front().values.push_back(type);
    return;
  }
  key.only_with.insert(key.only_with.begin(), Condition::one_of("type", {type}));
  keys.push_back(std::move(key));
}

}  // namespace

KeyTable make_workload_table() {
  std::vector<std::string> types;
  for (const auto* t : workload_type_schemas()) types.emplace_back(t->name());
  std::vector<KeySpec> keys = {
      kind_key(DocumentKind::Workload),
      {.path = "name", .description = "Human-readable name, e.g. \"GPT 1.3B\"."},
      {.path = "source", .description = "Paper or code the shape comes from."},
      {.path = "type",
       .type = KeyType::Enum,
       .choices = types,
       .presence = Presence::Defaulted,
       .default_text = "transformer",
       .description = "Workload type: which model family the file describes; each type has its own keys "
                      "(docs/workloads.md). A workload that gives `chakra` is of type chakra, and its name and "
                      "source default to the directory (docs/interop.md)."},
  };
  for (const auto* t : workload_type_schemas())
    for (auto& key : t->keys()) add_type_key(keys, std::move(key), std::string(t->name()));
  std::string intro = "A model to train. `type` selects the workload type:";
  for (const auto* t : workload_type_schemas()) intro += fmt::format(" `{}`: {}", t->name(), t->description());
  return KeyTable(DocumentKind::Workload, intro, std::move(keys));
}

}  // namespace clearfog::config
