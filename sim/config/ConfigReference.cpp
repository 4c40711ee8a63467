#include "config/ConfigReference.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "config/KeyTable.hpp"
#include "config/ScaleLimits.hpp"
#include "core/Units.hpp"

namespace clearfog::config {

namespace {

struct Row {
  std::string key, type, default_value, allowed, used_when, description;
};

/// `path`: the key's path in its document, "overrides[].first" for a field of a list of records.
std::string element_allowed_text(DocumentKind kind, const KeySpec& key, std::string_view path) {
  switch (key.type) {
    case KeyType::Kind: return key.choices.front();
    case KeyType::Enum: return fmt::format("{}", fmt::join(key.choices, ", "));
    case KeyType::Integer:
    case KeyType::Number: {
      std::string text = constraint_text(key.constraint);
      if (!key.counts.empty()) text = text.empty() ? key.counts : fmt::format("{} {}", text, key.counts);
      if (const KeyLimit* limit = find_key_limit(kind, path))
        text += fmt::format("{}at most {}", text.empty() ? "" : ", ", limit->max);
      return text;
    }
    case KeyType::Quantity: {
      const std::string c = constraint_text(key.constraint);
      const units::Range r = units::plausible_range(key.dimension);
      const QuantityFloor* floor = find_quantity_floor(kind, path);
      return fmt::format("{}{}{} to {}, e.g. {}", c, c.empty() ? "" : ", ",
                         units::format(floor ? floor->min : r.min, key.dimension), units::format(r.max, key.dimension),
                         units::dimension_example(key.dimension));
    }
    case KeyType::String: return "text";
    case KeyType::Bool: return "true, false";
    case KeyType::Reference: return "path or inline mapping";
    case KeyType::Record: return "";
  }
  return "";
}

std::string allowed_text(DocumentKind kind, const KeySpec& key, std::string_view path) {
  if (!key.list) return element_allowed_text(kind, key, path);
  switch (key.type) {
    case KeyType::String: return "names";
    case KeyType::Record: return "mappings (fields below)";
    default: {
      const std::string each = element_allowed_text(kind, key, path);
      return each.empty() ? "" : "each " + each;
    }
  }
}

std::string used_when_text(const KeySpec& key) {
  std::vector<std::string> conditions;
  for (const auto& c : key.only_with) conditions.push_back(condition_text(c));
  return fmt::format("{}", fmt::join(conditions, " and "));
}

Row row(DocumentKind kind, const KeySpec& k, std::string path, std::string used_when) {
  std::string default_value = default_column_text(k);
  if (k.presence == Presence::Defaulted && default_value.empty()) default_value = "\"\"";
  std::string allowed = allowed_text(kind, k, path);
  return {std::move(path), type_text(k), std::move(default_value), std::move(allowed), std::move(used_when),
          k.description};
}

/// One row per key; a list of records is followed by one row per field, "node.custom.edges[].from".
std::vector<Row> rows(DocumentKind kind) {
  std::vector<Row> out;
  for (const auto& k : KeyTable::of(kind).keys()) {
    out.push_back(row(kind, k, k.path, used_when_text(k)));
    for (const auto& f : k.fields) out.push_back(row(kind, f, fmt::format("{}[].{}", k.path, f.path), ""));
  }
  return out;
}

/// Whether any key of the kind is used only under conditions: the tables then get a "used when" column.
bool has_conditions(DocumentKind kind) {
  const auto& keys = KeyTable::of(kind).keys();
  return std::any_of(keys.begin(), keys.end(), [](const KeySpec& k) { return !k.only_with.empty(); });
}

std::string markdown_cell(const std::string& text, bool code) {
  std::string escaped;
  for (char c : text) {
    if (c == '|') escaped += '\\';
    escaped += c;
  }
  return code && !escaped.empty() ? "`" + escaped + "`" : escaped;
}

std::string markdown_table(DocumentKind kind) {
  const bool conditions = has_conditions(kind);
  std::string out = conditions ? "| key | type | default | allowed | used when | description |\n|---|---|---|---|---|---|\n"
                               : "| key | type | default | allowed | description |\n|---|---|---|---|---|\n";
  for (const auto& r : rows(kind)) {
    const bool code_default = r.default_value != "required" && r.default_value != "absent";
    out += fmt::format("| {} | {} | {} | {} |", markdown_cell(r.key, true), markdown_cell(r.type, false),
                       markdown_cell(r.default_value, code_default), markdown_cell(r.allowed, false));
    if (conditions) out += fmt::format(" {} |", markdown_cell(r.used_when, false));
    out += fmt::format(" {} |\n", markdown_cell(r.description, false));
  }
  return out;
}

std::string text_table(DocumentKind kind) {
  const auto all = rows(kind);
  const bool conditions = has_conditions(kind);
  std::array<std::size_t, 5> width = {3, 4, 7, 7, 9};  // the header words
  for (const auto& r : all) {
    width[0] = std::max(width[0], r.key.size());
    width[1] = std::max(width[1], r.type.size());
    width[2] = std::max(width[2], r.default_value.size());
    width[3] = std::max(width[3], r.allowed.size());
    width[4] = std::max(width[4], r.used_when.size());
  }
  const auto line = [&](const std::string& a, const std::string& b, const std::string& c, const std::string& d,
                        const std::string& e, const std::string& f) {
    std::string text = fmt::format("{:<{}}  {:<{}}  {:<{}}  {:<{}}  ", a, width[0], b, width[1], c, width[2], d, width[3]);
    if (conditions) text += fmt::format("{:<{}}  ", e, width[4]);
    return text + f + "\n";
  };
  std::string out = fmt::format("{}: {}\n\n", kind_name(kind), KeyTable::of(kind).intro());
  out += line("KEY", "TYPE", "DEFAULT", "ALLOWED", "USED WHEN", "DESCRIPTION");
  for (const auto& r : all) out += line(r.key, r.type, r.default_value, r.allowed, r.used_when, r.description);
  return out;
}

std::string units_table() {
  using units::Dimension;
  constexpr std::array<Dimension, 6> kDimensions = {Dimension::Time,     Dimension::Bytes,     Dimension::Bandwidth,
                                                    Dimension::FlopRate, Dimension::Frequency, Dimension::Power};
  std::string out = "| quantity | example | units |\n|---|---|---|\n";
  for (Dimension d : kDimensions)
    out += fmt::format("| {} | `{}` | {} |\n", units::dimension_name(d), units::dimension_example(d),
                       units::dimension_units_help(d));
  return out;
}

}  // namespace

std::string render_key_table(DocumentKind kind, bool markdown) {
  return markdown ? markdown_table(kind) : text_table(kind);
}

std::string configuration_reference_markdown() {
  std::string out = R"(# Configuration reference

<!-- Generated from the key tables in sim/config/*Keys.cpp by
     `build/sim/clearfog explain --markdown > docs/configuration.md`; do not edit by hand.
     tests/config/ConfigReference_test.cpp fails when this page is out of date. -->

clearfog reads four kinds of YAML document: an **accelerator** (one chip), a **platform** (a machine
built of accelerators), a **workload** (a model) and a **scenario** (a platform, a workload and how the
model is trained on it). Every key of every kind is declared once, in the tables below; the same
tables drive the validator and `clearfog explain KIND`.

## Files, references and errors

- Every file starts with `kind: accelerator`, `kind: platform`, `kind: workload` or `kind: scenario`.
- A key of type *accelerator*, *platform* or *workload* references another document, either as a path
  (relative to the directory of the file that contains it) or as an inline mapping of the same keys,
  in which `kind` may be omitted. A referenced file must be of the referenced kind.
- Keys are nested: `node.link.bandwidth` is written as `bandwidth` under `link` under `node`.
- A *list* key takes a YAML list, in flow style (`dims: [4, 4, 4]`) or block style (one `- item` per
  line). A *list of records* takes one mapping per element, whose fields are the rows
  `key[].field` below it (`edges: [{from: dev0, to: sw0, bandwidth: 50 GB/s, latency: 1 us}]`).
  A problem with an element is reported at the element, as `node.torus.dims[1]` or
  `node.custom.edges[3].bandwidth` (counted from 0).
- A key with a *used when* condition may only be given when the condition holds (e.g.
  `node.torus.dims` only with `node.topology: torus`); a `required` one is required only then.
- An unknown key is an error (with a suggestion for a likely typo), and so are a missing required key,
  a value of the wrong type, a quantity without a unit or with a unit of another quantity, and a value
  outside its allowed range. All problems of a file and of the files it references are reported at
  once, as `file:line:column: key.path: message`.
- A quantity must lie in the plausible range of its kind (the *allowed* column: 1 kB/s to 1000 PB/s
  for a bandwidth, 1 ps to 1 s for a latency, ...); zero only where the constraint allows it. A count
  with *at most N* is limited by what the simulator can hold; the message says how much memory a larger
  value would need (docs/reliability.md).
- A file is UTF-8 text of at most 4 MiB holding one YAML document; a key given twice in a mapping is an
  error (with both locations), and so is a path that is not a regular file (a directory, a FIFO, a
  device).
- *default* `required` means the key must be given; `absent` means that leaving the key out has the
  meaning given in its description; any other default is used when the key is left out.

## Overrides

`--set key.path=value` changes one value on the command line, with the same checks as a value in the
file. Key paths are relative to the document being loaded (usually the scenario) and may descend into
referenced documents: `--set platform.node.link.bandwidth=150GB/s`. A reference may be replaced:
`--set platform=platforms/dgx-h100.yaml` (a path relative to the current directory). A key left out of
the file, such as one with a default, can be set too. The value is read as YAML: a scalar, or a flow
list or mapping, which replaces the whole list or sets several keys of a section:
`--set platform.node.torus.dims=[2,2,2]`, `--set training={global_batch: 32, micro_batch: 4}`.
Problems with an override are reported at `--set`.

## Units

Quantities are written as a number and a unit, `300 GB/s` or `300GB/s`, and stored in SI units
(seconds, bytes, bytes/s, FLOP/s, Hz, W). A bare number is rejected for a quantity. Decimal prefixes
k M G T P are powers of 1000, binary prefixes Ki Mi Gi Ti Pi powers of 1024. `B` is a byte and `b` a
bit (1/8 byte): `25 Gb/s` = 3.125 GB/s. Integer operations (`OP/s`) count like floating-point ones.

)";
  out += units_table();
  for (DocumentKind kind : kAllDocumentKinds) {
    out += fmt::format("\n## {}\n\n{}\n\n", kind_name(kind), KeyTable::of(kind).intro());
    out += markdown_table(kind);
  }
  return out;
}

}  // namespace clearfog::config
