// custom: devices dev0 … dev<n-1>, the named switches of node.custom.switches, and the edges of
// node.custom.edges, each with its own link. Whether every device can reach every other one is
// checked by TopologyGraph::build once routes exist.
#include <fmt/format.h>

#include <map>

#include "core/Errors.hpp"
#include <algorithm>
#include <numeric>

#include "config/CheckSupport.hpp"
#include "config/KeyTableParts.hpp"
#include "topology/TopologyGraph.hpp"
#include "topology/nodes/CustomNode.hpp"

namespace clearfog::topology::nodes {

namespace {

std::string device_name(std::int64_t i) { return fmt::format("dev{}", i); }

/// Whether `name` is spelt like a device: "dev" and digits.
bool looks_like_device(std::string_view name) {
  return name.size() > 3 && name.starts_with("dev") &&
         std::all_of(name.begin() + 3, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// Union-find over the vertices of a custom node (the graphs are built only later, from a checked document).
class UnionFind {
public:
  explicit UnionFind(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), std::size_t{0}); }
  std::size_t find(std::size_t v) {
    while (parent_[v] != v) v = parent_[v] = parent_[parent_[v]];
    return v;
  }
  void join(std::size_t a, std::size_t b) { parent_[find(a)] = find(b); }

private:
  std::vector<std::size_t> parent_;
};

/// The edges name known vertices, once per pair, and join every device to dev0.
void check_custom_node(const config::ConfigDocument& doc, std::int64_t devices, std::vector<Diagnostic>& out) {
  const config::ConfigValue* switches = config::used(doc, "node.custom.switches");
  const config::ConfigValue* edges = config::used(doc, "node.custom.edges");
  if (!switches || !edges) return;

  // Vertices: dev0 ... dev<n-1>, then the switches.
  std::map<std::string, std::size_t, std::less<>> vertex;
  for (std::int64_t i = 0; i < devices; ++i) vertex.emplace(device_name(i), vertex.size());
  std::vector<std::string> switch_names;
  for (const config::ConfigValue& s : switches->as_list()) {
    const std::string& name = s.as_string();
    if (looks_like_device(name))
      config::report_at(s, fmt::format("\"{}\" is spelt like a device; devices are dev0 ... dev{}, name switches otherwise "
                               "(sw0, pcie0, ...)",
                               name, devices - 1),
                out);
    else if (!vertex.emplace(name, vertex.size()).second)
      config::report_at(s, fmt::format("switch \"{}\" is declared twice", name), out);
    else
      switch_names.push_back(name);
  }
  // "dev0, dev1, sw0" or "dev0 ... dev63, sw0".
  std::vector<std::string> valid{device_name(0)};
  if (devices > 4) valid.push_back("...");
  for (std::int64_t i = devices > 4 ? devices - 1 : 1; i < devices; ++i) valid.push_back(device_name(i));
  valid.insert(valid.end(), switch_names.begin(), switch_names.end());
  const std::string valid_names = fmt::format("{}", fmt::join(valid, ", "));

  UnionFind components(vertex.size());
  std::map<std::pair<std::size_t, std::size_t>, const config::ConfigValue*> joined;  // each pair joined once
  for (const config::ConfigValue& edge : edges->as_list()) {
    const config::ConfigValue* from = edge.field("from");
    const config::ConfigValue* to = edge.field("to");
    bool known = true;
    for (const config::ConfigValue* end : {from, to})
      if (!vertex.count(end->as_string())) {
        config::report_at(*end, fmt::format("unknown device or switch \"{}\"; allowed: {}", end->as_string(), valid_names),
                  out);
        known = false;
      }
    if (!known) continue;
    if (from->as_string() == to->as_string()) {
      config::report_at(edge, fmt::format("the edge joins \"{}\" to itself; an edge joins two different vertices",
                                  from->as_string()),
                out);
      continue;
    }
    const std::size_t a = vertex.find(from->as_string())->second;
    const std::size_t b = vertex.find(to->as_string())->second;
    if (const auto [first, added] = joined.emplace(std::minmax(a, b), &edge); !added) {
      config::report_at(edge,
                fmt::format("\"{}\" and \"{}\" are already joined by {}; join a pair by one edge (with the sum of "
                            "the bandwidths)",
                            from->as_string(), to->as_string(), first->second->key),
                out);
      continue;
    }
    components.join(a, b);
  }

  std::vector<std::string> unreachable;
  for (std::int64_t i = 1; i < devices; ++i)
    if (components.find(static_cast<std::size_t>(i)) != components.find(0)) unreachable.push_back(device_name(i));
  if (!unreachable.empty())
    config::report_at(*edges,
              fmt::format("{} {} not reachable from dev0; every device must be joined to the others by edges",
                          fmt::join(unreachable, ", "), unreachable.size() == 1 ? "is" : "are"),
              out);
}


NodeLayout build_custom(const config::NodeSpec& node) {
  const auto& custom = node.params_as<CustomParams>();
  NodeLayout layout;
  std::map<std::string, std::size_t, std::less<>> vertex_of;
  for (int d = 0; d < node.devices; ++d) vertex_of[layout.vertices[layout.add_device(d)].name] = static_cast<std::size_t>(d);
  for (const std::string& name : custom.switches) {
    if (vertex_of.count(name) != 0)
      throw Error(fmt::format("topology: custom: node.custom.switches: \"{}\" is already a device or switch", name));
    vertex_of[name] = layout.add_switch(name);
  }
  auto endpoint = [&](std::size_t edge, const std::string& name) {
    auto it = vertex_of.find(name);
    if (it == vertex_of.end())
      throw Error(fmt::format("topology: custom: node.custom.edges[{}]: unknown endpoint \"{}\" (devices are dev0 … "
                              "dev{}; switches must be listed in node.custom.switches)",
                              edge, name, node.devices - 1));
    return it->second;
  };
  for (std::size_t e = 0; e < custom.edges.size(); ++e) {
    const CustomEdge& edge = custom.edges[e];
    const std::size_t a = endpoint(e, edge.from);
    const std::size_t b = endpoint(e, edge.to);
    if (a == b) throw Error(fmt::format("topology: custom: node.custom.edges[{}]: \"{}\" is linked to itself", e, edge.from));
    if (edge.link.bandwidth_Bps <= 0)
      throw Error(fmt::format("topology: custom: node.custom.edges[{}] ({} -- {}): bandwidth must be > 0, got {}", e,
                              edge.from, edge.to, edge.link.bandwidth_Bps));
    layout.add_link(a, b, edge.link.bandwidth_Bps, edge.link.latency_s);
  }
  return layout;
}

class CustomNode final : public NodeTopologyType {
public:
  std::string_view name() const override { return "custom"; }
  std::string_view summary() const override { return "the edges of node.custom.edges"; }
  std::vector<config::KeySpec> keys() const override {
    return {{.path = "node.custom.switches",
             .type = config::KeyType::String,
             .presence = config::Presence::Defaulted,
             .default_text = "[]",
             .description = "Names of the vertices of node.custom.edges that are not devices (switches, host "
                            "bridges); they must not look like a device name (dev0, dev1, ...).",
             .list = true},
            {.path = "node.custom.edges",
             .type = config::KeyType::Record,
             .description = "The links of a custom node, each full-duplex. Every device must be reachable from "
                            "dev0.",
             .list = true,
             .fields = {
                 {.path = "from", .description = "One end: a device (dev0 ... dev<n-1>) or a switch name."},
                 {.path = "to", .description = "The other end."},
                 config::bandwidth_key("bandwidth", "Bandwidth per direction."),
                 config::latency_key("latency", "Latency of the link."),
             }}};
  }
  void check(const config::ConfigDocument& doc, std::int64_t devices, std::vector<Diagnostic>& out) const override {
    check_custom_node(doc, devices, out);
  }
  std::shared_ptr<const config::NodeParams> read(const config::ConfigDocument& doc) const override {
    auto p = std::make_shared<CustomParams>();
    p->switches = doc.get_string_list("node.custom.switches");
    for (const config::ConfigValue& edge : doc.at("node.custom.edges").as_list())
      p->edges.push_back(CustomEdge{edge.field("from")->as_string(), edge.field("to")->as_string(),
                                    config::LinkSpec{edge.field("bandwidth")->as_number(),
                                                     edge.field("latency")->as_number()}});
    return p;
  }
  bool uses_node_link() const override { return false; }
  NodeLayout build(const config::NodeSpec& node) const override { return build_custom(node); }
  /// The other kinds connect every device by construction; an edge list may not.
  void check_built(const TopologyGraph& t) const override {
    for (int a = 0; a < t.device_count(); ++a) {
      const RoutesFrom& r = t.routes_from(a);
      for (int b = 0; b < t.device_count(); ++b)
        if (!r.reachable[b])
          throw Error(fmt::format("topology: custom node: dev{} cannot be reached from dev{} (check "
                                  "node.custom.edges; devices forward traffic only on paths without switches)",
                                  b, a));
    }
  }
};

}  // namespace

const NodeTopologyType& custom_node() {
  static const CustomNode kind;
  return kind;
}

}  // namespace clearfog::topology::nodes
