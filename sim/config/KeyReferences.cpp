#include "config/KeyReferences.hpp"

#include <fmt/format.h>

#include <optional>

namespace clearfog::config {

namespace {

/// The integer `key` of `doc` as text, or nullopt when the document has no such integer key.
std::optional<std::string> integer_text(const ConfigDocument& doc, std::string_view key) {
  const ConfigValue* value = doc.find(key);
  if (!value || !value->spec || value->spec->type != KeyType::Integer || value->spec->list) return std::nullopt;
  return std::to_string(value->as_integer());
}

/// Calls `on_reference(key)` for each "{key}" of `text` and `on_text(part)` for the text between
/// them; returns false at a "{" without its "}".
template <typename OnText, typename OnReference>
bool scan(std::string_view text, OnText on_text, OnReference on_reference) {
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t open = text.find('{', at);
    if (open == std::string_view::npos) break;
    const std::size_t close = text.find('}', open);
    if (close == std::string_view::npos) return false;
    on_text(text.substr(at, open - at));
    on_reference(text.substr(open + 1, close - open - 1));
    at = close + 1;
  }
  on_text(text.substr(std::min(at, text.size())));
  return true;
}

}  // namespace

std::string expand_key_references(const ConfigDocument& doc, std::string_view path) {
  const std::string& text = doc.get_string(path);
  std::string out;
  const bool closed = scan(
      text, [&](std::string_view part) { out += part; },
      [&](std::string_view key) { out += integer_text(doc, key).value_or(fmt::format("{{{}}}", key)); });
  return closed ? out : text;
}

void check_key_references(const ConfigDocument& doc, std::string_view path, std::vector<Diagnostic>& out) {
  const ConfigValue* value = doc.find(path);
  if (!value) return;
  const std::string& text = value->as_string();
  const auto problem = [&](std::string message) {
    out.push_back({value->location, doc.display_key(path), std::move(message)});
  };
  const bool closed = scan(
      text, [](std::string_view) {},
      [&](std::string_view key) {
        if (!integer_text(doc, key))
          problem(fmt::format("{{{}}} names no integer key of this file; a {{key}} in the name is replaced by that "
                              "key's value, e.g. {{fabric.nodes}}",
                              key));
      });
  if (!closed) problem("a { without its }; write {key} to cite an integer key, e.g. {fabric.nodes}");
}

}  // namespace clearfog::config
