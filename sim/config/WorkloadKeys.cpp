// Every key of a workload file, declared once.
#include "config/KeyTableParts.hpp"

namespace clearfog::config {

using units::Dimension;

KeyTable make_workload_table() {
  return KeyTable(DocumentKind::Workload,
                  "A GPT-style decoder-only transformer. `hidden` must be divisible by `heads`.",
                  {
                      kind_key(DocumentKind::Workload),
                      {.path = "name", .description = "Human-readable name, e.g. \"GPT 1.3B\"."},
                      {.path = "source", .description = "Paper or code the shape comes from."},
                      {.path = "layers",
                       .type = KeyType::Integer,
                       .constraint = Constraint::AtLeastOne,
                       .counts = "layers",
                       .description = "Transformer layers."},
                      {.path = "hidden",
                       .type = KeyType::Integer,
                       .constraint = Constraint::AtLeastOne,
                       .counts = "elements",
                       .description = "Hidden size (model width, d_model)."},
                      {.path = "heads",
                       .type = KeyType::Integer,
                       .constraint = Constraint::AtLeastOne,
                       .counts = "heads",
                       .description = "Attention heads per layer."},
                      {.path = "ffn_hidden",
                       .type = KeyType::Integer,
                       .presence = Presence::Derived,
                       .default_text = "4*hidden",
                       .constraint = Constraint::AtLeastOne,
                       .counts = "elements",
                       .description = "Inner size of the MLP block."},
                      {.path = "seq_length",
                       .type = KeyType::Integer,
                       .constraint = Constraint::AtLeastOne,
                       .counts = "tokens",
                       .description = "Tokens per sequence."},
                      {.path = "vocab_size",
                       .type = KeyType::Integer,
                       .constraint = Constraint::AtLeastOne,
                       .counts = "tokens",
                       .description = "Vocabulary size (after padding)."},
                  });
}

}  // namespace clearfog::config
