// Every key of an accelerator file, declared once.
#include "config/KeyTableParts.hpp"
#include "core/DType.hpp"

namespace clearfog::config {

using units::Dimension;

namespace {

KeySpec peak_key(DType dtype, std::string_view unit_word) {
  return {.path = "peak." + std::string(dtype_name(dtype)),
          .type = KeyType::Quantity,
          .dimension = Dimension::FlopRate,
          .presence = Presence::Optional,
          .constraint = Constraint::Positive,
          .description = "Dense peak " + std::string(unit_word) + " in " + std::string(dtype_name(dtype)) +
                         " (no 2:4 sparsity). Absent: the accelerator does not support " +
                         std::string(dtype_name(dtype)) + "."};
}

}  // namespace

KeyTable make_accelerator_table() {
  std::vector<KeySpec> keys = {
      kind_key(DocumentKind::Accelerator),
      {.path = "name", .description = "Human-readable name, e.g. \"NVIDIA A100 SXM4 80GB\"."},
      {.path = "source",
       .description = "Where the figures come from (datasheet, paper) and what is assumed."},
      {.path = "compute_units",
       .type = KeyType::Integer,
       .constraint = Constraint::AtLeastOne,
       .counts = "units",
       .description = "Streaming multiprocessors, cores or matrix units."},
      {.path = "clock",
       .type = KeyType::Quantity,
       .dimension = Dimension::Frequency,
       .constraint = Constraint::Positive,
       .description = "Boost clock."},
  };
  for (DType d : kAllDTypes) keys.push_back(peak_key(d, d == DType::int8 ? "integer rate" : "FLOP rate"));
  std::vector<KeySpec> rest = {
      {.path = "memory.capacity",
       .type = KeyType::Quantity,
       .dimension = Dimension::Bytes,
       .constraint = Constraint::Positive,
       .description = "Off-chip memory (HBM, DRAM) capacity."},
      {.path = "memory.bandwidth",
       .type = KeyType::Quantity,
       .dimension = Dimension::Bandwidth,
       .constraint = Constraint::Positive,
       .description = "Off-chip memory bandwidth (datasheet peak)."},
      {.path = "sram.per_unit",
       .type = KeyType::Quantity,
       .dimension = Dimension::Bytes,
       .presence = Presence::Defaulted,
       .default_text = "0 B",
       .constraint = Constraint::NonNegative,
       .description = "Shared memory / scratchpad per compute unit (maximum configuration)."},
      {.path = "sram.shared",
       .type = KeyType::Quantity,
       .dimension = Dimension::Bytes,
       .presence = Presence::Defaulted,
       .default_text = "0 B",
       .constraint = Constraint::NonNegative,
       .description = "Chip-wide SRAM: L2 cache or on-chip memory."},
      {.path = "power",
       .type = KeyType::Quantity,
       .dimension = Dimension::Power,
       .presence = Presence::Optional,
       .constraint = Constraint::Positive,
       .description = "Thermal design power. Absent: unknown."},
  };
  keys.insert(keys.end(), rest.begin(), rest.end());
  return KeyTable(DocumentKind::Accelerator,
                  "One accelerator chip: its compute units, dense peak throughput per data type, "
                  "memory and power. At least one `peak` must be given.",
                  std::move(keys));
}

}  // namespace clearfog::config
