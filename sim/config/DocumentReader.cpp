#include "config/DocumentReader.hpp"

#include <algorithm>
#include <climits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "config/ChakraShorthand.hpp"
#include "config/DidYouMean.hpp"
#include "config/KeyTable.hpp"
#include "config/NodeSource.hpp"
#include "config/NodeText.hpp"
#include "config/RawValue.hpp"
#include "config/TypedScalar.hpp"
#include "config/ValueTyper.hpp"
#include "config/YamlFile.hpp"
#include "core/Quote.hpp"

namespace clearfog::config {

namespace {

/// Gives a value, its elements and their fields one location (a default has no position of its own).
void relocate(ConfigValue& value, const SourceLocation& location) {
  value.location = location;
  if (auto* elements = std::get_if<std::vector<ConfigValue>>(&value.data))
    for (ConfigValue& e : *elements) relocate(e, location);
}

std::string last_segment(std::string_view path) {
  const auto dot = path.rfind('.');
  return std::string(dot == std::string_view::npos ? path : path.substr(dot + 1));
}

std::string join_path(std::string_view section, std::string_view name) {
  return section.empty() ? std::string(name) : fmt::format("{}.{}", section, name);
}

/// Reads one document: walks its YAML into raw values (RawValue.hpp), applies the overrides and the
/// chakra shorthand (ChakraShorthand.hpp), reads the referenced documents, then types the values
/// (ValueTyper.hpp). Diagnostics go into `out`: those of this document first (in file order),
/// then those of the documents it references.
class DocumentReader {
public:
  DocumentReader(DocumentKind kind, NodeSource source, std::vector<PendingOverride> overrides)
      : table_(KeyTable::of(kind)), source_(std::move(source)), overrides_(std::move(overrides)) {}

  /// Walks the document rooted at `root`, applies the overrides, reads the referenced documents and
  /// types every value. nullptr when the root is not a mapping of this kind.
  std::shared_ptr<const ConfigDocument> read(const YAML::Node& root, const SourceLocation& root_location,
                                             bool kind_required, std::vector<Diagnostic>& out) {
    doc_ = std::make_shared<ConfigDocument>(table_.kind(), source_.file, source_.display_prefix, root_location);
    if (!check_root(root, root_location, kind_required)) {
      flush(out);
      return nullptr;
    }
    walk(root, "", source_, root_location);
    apply_overrides();
    imply_chakra_workload(table_.kind(), source_, invalid_, raw_);
    std::vector<Diagnostic> from_children;
    read_references(from_children);
    type_values();
    for (const auto& path : invalid_) doc_->set_rejected(path);
    for (const auto& path : misspelt_) doc_->set_rejected(path);
    doc_->set_complete(own_.empty());
    flush(out);
    out.insert(out.end(), from_children.begin(), from_children.end());
    return doc_;
  }

  /// Reads a document from its own file, where `kind:` is required. A file referenced under another
  /// kind is reported at the reference (`referrer`) and not read further.
  static std::shared_ptr<const ConfigDocument> read_file(const std::filesystem::path& file, DocumentKind kind,
                                                         const std::optional<Referrer>& referrer,
                                                         std::vector<PendingOverride> overrides,
                                                         std::vector<Diagnostic>& out) {
    const auto root = read_yaml_file(file, referrer, out);
    if (!root) return nullptr;
    const std::string name = file.string();
    if (referrer && root->IsMap()) {
      // A file of another kind is the referrer's mistake: say so there, not in the file.
      const YAML::Node written_kind = (*root)["kind"];
      if (written_kind && written_kind.IsScalar()) {
        const auto other = parse_kind(written_kind.Scalar());
        if (other && *other != kind) {
          out.push_back({referrer->location, referrer->key,
                         fmt::format("\"{}\" is a {} file (kind: {}); expected {} {} file", name, kind_name(*other),
                                     kind_name(*other), kind == DocumentKind::Accelerator ? "an" : "a",
                                     kind_name(kind))});
          return nullptr;
        }
      }
    }
    return DocumentReader(kind, NodeSource{name, false, ""}, std::move(overrides))
        .read(*root, SourceLocation{name, 1, 1}, /*kind_required=*/true, out);
  }

private:
  void report(SourceLocation location, std::string key, std::string message) {
    own_.push_back({std::move(location), std::move(key), std::move(message)});
  }

  /// Diagnostics of this document in file order (--set ones last, in command-line order).
  void flush(std::vector<Diagnostic>& out) {
    std::stable_sort(own_.begin(), own_.end(), [](const Diagnostic& a, const Diagnostic& b) {
      const auto rank = [](const Diagnostic& d) {
        return std::pair{d.location.line > 0 ? d.location.line : INT_MAX, d.location.column};
      };
      return rank(a) < rank(b);
    });
    out.insert(out.end(), own_.begin(), own_.end());
    own_.clear();
  }

  /// The root must be a mapping whose `kind` names this document's kind. False: stop reading.
  bool check_root(const YAML::Node& root, const SourceLocation& root_location, bool kind_required) {
    const std::string expected(kind_name(table_.kind()));
    if (!root.IsMap()) {
      // In an inline document the key is the reference key ("platform"), in a file it is empty.
      std::string key = source_.display_prefix;
      if (!key.empty()) key.pop_back();
      report(root_location, std::move(key),
             fmt::format("expected a {} mapping that starts with \"kind: {}\", got {}", expected, expected,
                         node_kind_text(root)));
      return false;
    }
    const YAML::Node kind = root["kind"];
    if (!kind) {
      if (kind_required)
        report(root_location, source_.display("kind"),
               fmt::format("missing required key \"kind\"; a {0} file starts with \"kind: {0}\"", expected));
      return true;
    }
    const SourceLocation where = source_.location(kind.Mark(), root_location);
    const std::string text = kind.IsScalar() ? kind.Scalar() : "";
    if (text == expected) return true;
    if (parse_kind(text)) {
      report(where, source_.display("kind"),
             fmt::format("this is a {} document, expected a {} (kind: {})", text, expected, expected));
      return false;
    }
    report(where, source_.display("kind"), type_scalar(*table_.find("kind"), text, {}).error);
    return true;
  }

  /// Records the nodes under `path` (a section, a leaf or a reference) into raw_ / references_.
  void walk(const YAML::Node& node, const std::string& path, const NodeSource& source, const SourceLocation& where) {
    if (const KeySpec* spec = table_.find(path)) {
      if (spec->type == KeyType::Reference) {
        references_.insert_or_assign(path, RawReference{node, source, where, source.display(path)});
        return;
      }
      if (spec->list ? !node.IsSequence() : !node.IsScalar()) {
        report(where, source.display(path),
               fmt::format("expected {}, got {}", expected_text(*spec), node_kind_text(node)));
        invalid_.insert(path);
        return;
      }
      raw_.insert_or_assign(path, RawValue{node, source, where, source.display(path),
                                           source.from_override ? Origin::Overridden : Origin::Given});
      invalid_.erase(path);
      return;
    }

    // A section (or the root).
    if (!doc_->section_location(path)) doc_->set_section_location(path, where);
    if (node.IsNull()) return;  // "sram:" with nothing under it: an empty section
    const auto allowed = table_.children(path);
    if (!node.IsMap()) {
      report(where, source.display(path),
             fmt::format("expected a mapping with keys {}, got {}", fmt::join(allowed, ", "), node_kind_text(node)));
      invalid_.insert(path);
      return;
    }
    for (const auto& entry : node) {
      // Copies: yaml-cpp's iterator yields a temporary pair of node handles.
      const YAML::Node key = entry.first;
      const YAML::Node value = entry.second;
      const SourceLocation key_location = source.location(key.Mark(), where);
      if (!key.IsScalar()) {
        report(key_location, source.display(path),
               fmt::format("keys must be plain names; allowed here: {}", fmt::join(allowed, ", ")));
        continue;
      }
      const std::string& name = key.Scalar();
      if (path.empty() && name == "kind") continue;  // checked by check_root()
      const std::string child = join_path(path, name);
      if (!table_.find(child) && !table_.is_section(child)) {
        report(key_location, source.display(child), unknown_key_message(name, name, allowed, ""));
        // The suggested key is probably the one meant: do not also report it as missing.
        if (auto best = closest_match(name, allowed)) misspelt_.insert(join_path(path, *best));
        continue;
      }
      // Sections are located at their key, so that "missing key" points at "link:".
      walk(value, child, source, table_.is_section(child) ? key_location : source.location(value.Mark(), key_location));
    }
  }

  void apply_overrides() {
    for (auto& o : overrides_) {
      const NodeSource source{source_.file, true, o.display_key.substr(0, o.display_key.size() - o.path.size())};
      if (o.path == "kind") {
        report(override_location(), o.display_key, "the kind of a document cannot be overridden");
        continue;
      }
      if (!o.path.empty() && (table_.find(o.path) || table_.is_section(o.path))) {
        walk(o.value, o.path, source, override_location());
        continue;
      }
      if (const KeySpec* reference = enclosing_reference(o.path)) {
        child_overrides_[reference->path].push_back(
            PendingOverride{o.path.substr(reference->path.size() + 1), o.display_key, o.value});
        continue;
      }
      report_unknown_override(o, source.display_prefix);
    }
  }

  /// The reference key that `path` descends into ("platform" for "platform.node.devices").
  const KeySpec* enclosing_reference(const std::string& path) const {
    for (const auto& k : table_.keys())
      if (k.type == KeyType::Reference && path.size() > k.path.size() && path.starts_with(k.path) &&
          path[k.path.size()] == '.')
        return &k;
    return nullptr;
  }

  void report_unknown_override(const PendingOverride& o, const std::string& display_prefix) {
    // Walk down the known sections; the first segment that is not one is the typo.
    std::string section;
    std::string_view rest = o.path;
    while (true) {
      const auto dot = rest.find('.');
      const std::string segment(rest.substr(0, dot));
      const std::string candidate = join_path(section, segment);
      if (dot == std::string_view::npos || !table_.is_section(candidate)) {
        const std::string prefix = display_prefix + (section.empty() ? "" : section + ".");
        report(override_location(), o.display_key,
               unknown_key_message(o.display_key, segment, table_.children(section), prefix));
        return;
      }
      section = candidate;
      rest = rest.substr(dot + 1);
    }
  }

  void read_references(std::vector<Diagnostic>& out) {
    for (const auto& spec : table_.keys()) {
      if (spec.type != KeyType::Reference) continue;
      auto overrides = std::move(child_overrides_[spec.path]);
      const auto it = references_.find(spec.path);
      if (it == references_.end() && spec.presence == Presence::Optional) {
        // An override of a key inside an absent optional document would otherwise vanish.
        for (const auto& o : overrides)
          report(override_location(), o.display_key,
                 fmt::format("\"{}\" is not given, so its keys cannot be overridden; give it first", spec.path));
        continue;
      }
      if (it == references_.end()) {
        report(doc_->location_of(spec.path), doc_->display_key(spec.path),
               fmt::format("missing required key \"{}\" ({})", spec.path, expected_text(spec)));
        continue;
      }
      const RawReference& ref = it->second;
      std::shared_ptr<const ConfigDocument> child;
      if (ref.node.IsScalar()) {
        // A path: relative to the referencing file, or to the working directory for --set.
        const std::filesystem::path written = ref.node.Scalar();
        const std::filesystem::path file =
            ref.source.from_override || written.is_absolute()
                ? written
                : (std::filesystem::path(ref.source.file).parent_path() / written).lexically_normal();
        child = read_file(file, spec.referenced_kind, Referrer{ref.location, ref.display_key},
                                     std::move(overrides), out);
      } else if (ref.node.IsMap()) {
        NodeSource inline_source{ref.source.file, ref.source.from_override, ref.display_key + "."};
        child = DocumentReader(spec.referenced_kind, std::move(inline_source), std::move(overrides))
                    .read(ref.node, ref.location, /*kind_required=*/false, out);
      } else {
        report(ref.location, ref.display_key,
               fmt::format("expected {}, got {}", expected_text(spec), node_kind_text(ref.node)));
      }
      if (child) doc_->set_child(spec.path, std::move(child));
    }
  }

  /// Types every raw value; fills in defaults; reports missing required keys (those used only
  /// under conditions are left to the semantic checks).
  void type_values() {
    ValueTyper typer(table_.kind(), own_);
    for (const auto& spec : table_.keys()) {
      if (spec.type == KeyType::Kind || spec.type == KeyType::Reference) continue;
      if (const auto it = raw_.find(spec.path); it != raw_.end()) {
        if (auto value = typer.type_value(spec, it->second))
          doc_->set_value(spec.path, std::move(*value));
        else
          invalid_.insert(spec.path);
        continue;
      }
      if (invalid_.count(spec.path) || misspelt_.count(spec.path) || under_section_in(invalid_, spec.path) ||
          under_section_in(misspelt_, spec.path))
        continue;
      const SourceLocation where = doc_->location_of(spec.path);
      switch (spec.presence) {
        case Presence::Required:
          if (!spec.only_with.empty()) break;
          report(where, doc_->display_key(spec.path),
                 fmt::format("missing required key \"{}\" ({})", last_segment(spec.path), expected_text(spec)));
          break;
        case Presence::Defaulted: {
          // A list's default is written as flow YAML ("[]").
          const RawValue raw{spec.list ? YAML::Load(spec.default_text) : YAML::Node(spec.default_text), source_,
                             where, doc_->display_key(spec.path), Origin::Defaulted};
          const std::size_t problems = own_.size();
          auto value = typer.type_value(spec, raw);
          if (!value || own_.size() != problems)
            throw std::logic_error(fmt::format("key table: bad default for {}: {}", spec.path,
                                               own_.empty() ? "" : own_.back().message));
          value->text = spec.default_text;
          relocate(*value, where);
          doc_->set_value(spec.path, std::move(*value));
          break;
        }
        case Presence::Derived:
          doc_->set_value(spec.path, ConfigValue{&spec, std::monostate{}, spec.default_text, Origin::Defaulted, where,
                                                 doc_->display_key(spec.path)});
          break;
        case Presence::Optional: break;
      }
    }
  }

  /// Whether `path` lies under one of `sections` (a section written with the wrong shape, or a
  /// misspelt one whose keys were all reported with it).
  static bool under_section_in(const std::set<std::string>& sections, const std::string& path) {
    for (const auto& section : sections)
      if (path.size() > section.size() && path.starts_with(section) && path[section.size()] == '.') return true;
    return false;
  }

  const KeyTable& table_;
  NodeSource source_;
  std::vector<PendingOverride> overrides_;
  std::shared_ptr<ConfigDocument> doc_;
  std::vector<Diagnostic> own_;
  std::map<std::string, RawValue> raw_;
  std::map<std::string, RawReference> references_;
  std::map<std::string, std::vector<PendingOverride>> child_overrides_;
  std::set<std::string> invalid_;   ///< leaves and sections of the wrong YAML shape; leaves of a bad value
  std::set<std::string> misspelt_;  ///< keys suggested for an unknown key
};

}  // namespace

std::shared_ptr<const ConfigDocument> read_document_file(const std::filesystem::path& file, DocumentKind kind,
                                                         const std::vector<Override>& overrides,
                                                         std::vector<Diagnostic>& diagnostics) {
  std::vector<PendingOverride> pending;
  for (const auto& o : overrides) {
    if (o.key.empty()) {
      diagnostics.push_back(
          {override_location(), "", fmt::format("empty key in --set {}; expected key.path=value", quote("=" + o.value))});
      continue;
    }
    // The value is YAML text of its own: the same refusals as a file (duplicate keys, several
    // documents, aliases without bound), reported at --set with the key.
    std::vector<Diagnostic> problems;
    if (auto value = parse_yaml_text(o.value, "value", problems)) {
      pending.push_back(PendingOverride{o.key, o.key, *value});
      continue;
    }
    for (const Diagnostic& p : problems)
      diagnostics.push_back({override_location(), o.key,
                             fmt::format("cannot read the value {} as YAML: {}", quote(o.value), p.message)});
  }
  return DocumentReader::read_file(file, kind, std::nullopt, std::move(pending), diagnostics);
}

}  // namespace clearfog::config