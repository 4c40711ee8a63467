#include "config/NodeTopologySchema.hpp"
#include "config/ScaleLimits.hpp"

#include <array>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "config/CheckSupport.hpp"
#include "config/PlatformSpec.hpp"
#include "core/CheckedMath.hpp"

namespace clearfog::config {

namespace {

/// Links of a platform's fabric (switch to switch and node to switch). SimGrid creates each link
/// and checks its name against every zone, so the build grows with links x zones: 16384 GPUs on a
/// two-level fat tree (~6000 fabric links) take 13 s to build (docs/performance.md).
constexpr std::int64_t kMaxFabricLinks = 4 * kMaxDevices;
/// Links of one node. Measured here with `clearfog platform info` on full meshes: 256 devices
/// (32,640 links) 2.0 s and 47 MB, 512 devices 13 s and 85 MB, 1024 devices (523,776 links) 49 s
/// and 238 MB (~390 B per link; the time grows with the square of the links).
constexpr std::int64_t kMaxNodeLinks = 1024 * 1023 / 2;
constexpr double kBytesPerNodeLink = 390;
/// Dimensions of a torus fabric and levels of a fat tree: SimGrid builds a zone per level.
constexpr std::size_t kMaxFabricLevels = 8;

// ---- Costs --------------------------------------------------------------------------------------

constexpr ScaleCost kRouteCost{73, true,
                               "~73 B per pair of devices: the node's routes; `clearfog platform info` on a "
                               "4096-device switch node peaks at 1.2 GB"};
constexpr ScaleCost kDeviceCost{35e3, false,
                                "~35 kB per device: a fluid ring all-reduce over 16384 GPUs builds and runs in "
                                "13 s and 564 MiB; over 65536 it did not finish in 15 minutes"};
constexpr ScaleCost kLayerCost{1.2e3, false,
                               "~1.2 kB per layer and micro-batch on each device: a forward and a backward op "
                               "of ~600 B (4.7 M ops in 2.8 GiB, docs/performance.md)"};
constexpr ScaleCost kGemmShape{0, false, "GEMM shapes (micro_batch x seq_length x hidden, ffn_hidden, vocab_size) "
                                         "are 64-bit integers"};
constexpr ScaleCost kHardware{0, false, "no hardware comes close"};
constexpr ScaleCost kImageShape{0, false, "convolution shapes (micro_batch x channels x height x width) are 64-bit "
                                          "integers"};
constexpr ScaleCost kExpertCost{0, false,
                                "one GEMM group and one routing share per expert in every MoE layer; the largest "
                                "published models route over 256 experts"};
constexpr ScaleCost kWindow{0, false, "a window or step wider than the largest image"};

const std::vector<KeyLimit> kKeyLimits = {
    {DocumentKind::Accelerator, "compute_units", 16'777'216, "compute units", {0, false, "WSE-2 has 850,000 cores"}},
    {DocumentKind::Accelerator, "simd.width", 4096, "bits", {0, false, "the widest SIMD registers (SVE) hold 2048 bits"}},

    {DocumentKind::Platform, "node.devices", kMaxNodeDevices, "devices per node", kRouteCost},
    {DocumentKind::Platform, "node.pcie.switches", kMaxNodeDevices, "PCIe switches", kHardware},
    {DocumentKind::Platform, "node.torus.dims", kMaxNodeDevices, "devices along a dimension", kRouteCost},
    {DocumentKind::Platform, "fabric.nodes", kMaxDevices, "nodes", kDeviceCost},
    {DocumentKind::Platform, "fabric.nic.count", kMaxNodeDevices, "NICs per node", kHardware},
    {DocumentKind::Platform, "fabric.fat_tree.down", kMaxDevices, "children per switch", kDeviceCost},
    {DocumentKind::Platform, "fabric.fat_tree.up", kMaxDevices, "parents per switch", kDeviceCost},
    {DocumentKind::Platform, "fabric.fat_tree.parallel", kMaxDevices, "parallel links", kDeviceCost},
    {DocumentKind::Platform, "fabric.torus.dims", kMaxDevices, "nodes along a dimension", kDeviceCost},
    {DocumentKind::Platform, "fabric.dragonfly.groups", kMaxDevices, "groups", kDeviceCost},
    {DocumentKind::Platform, "fabric.dragonfly.group_links", kMaxDevices, "links", kDeviceCost},
    {DocumentKind::Platform, "fabric.dragonfly.chassis", kMaxDevices, "chassis", kDeviceCost},
    {DocumentKind::Platform, "fabric.dragonfly.chassis_links", kMaxDevices, "links", kDeviceCost},
    {DocumentKind::Platform, "fabric.dragonfly.routers", kMaxDevices, "routers", kDeviceCost},
    {DocumentKind::Platform, "fabric.dragonfly.router_links", kMaxDevices, "links", kDeviceCost},
    {DocumentKind::Platform, "fabric.dragonfly.nodes_per_router", kMaxDevices, "nodes", kDeviceCost},

    {DocumentKind::Workload, "layers", 16384, "layers", kLayerCost},
    {DocumentKind::Workload, "hidden", 1 << 20, "elements", kGemmShape},
    {DocumentKind::Workload, "ffn_hidden", 1 << 22, "elements", kGemmShape},
    {DocumentKind::Workload, "heads", 1 << 16, "heads", kGemmShape},
    {DocumentKind::Workload, "seq_length", 1 << 22, "tokens", kGemmShape},
    {DocumentKind::Workload, "vocab_size", 1 << 24, "tokens", kGemmShape},
    {DocumentKind::Workload, "kv_heads", 1 << 16, "heads", kGemmShape},
    {DocumentKind::Workload, "head_dim", 1 << 20, "elements", kGemmShape},
    {DocumentKind::Workload, "q_lora_rank", 1 << 20, "elements", kGemmShape},
    {DocumentKind::Workload, "kv_lora_rank", 1 << 20, "elements", kGemmShape},
    {DocumentKind::Workload, "qk_nope_head_dim", 1 << 20, "elements", kGemmShape},
    {DocumentKind::Workload, "qk_rope_head_dim", 1 << 20, "elements", kGemmShape},
    {DocumentKind::Workload, "v_head_dim", 1 << 20, "elements", kGemmShape},
    {DocumentKind::Workload, "experts", 1 << 16, "experts", kExpertCost},
    {DocumentKind::Workload, "top_k", 1 << 16, "experts", kExpertCost},
    {DocumentKind::Workload, "shared_experts", 1 << 16, "experts", kExpertCost},
    {DocumentKind::Workload, "expert_ffn_hidden", 1 << 22, "elements", kGemmShape},
    {DocumentKind::Workload, "first_dense_layers", 16384, "layers", kLayerCost},
    {DocumentKind::Workload, "overrides[].first", 16384, "layers", kLayerCost},
    {DocumentKind::Workload, "overrides[].count", 16384, "layers", kLayerCost},
    {DocumentKind::Workload, "overrides[].ffn_hidden", 1 << 22, "elements", kGemmShape},
    {DocumentKind::Workload, "overrides[].kv_heads", 1 << 16, "heads", kGemmShape},
    {DocumentKind::Workload, "image.height", 1 << 16, "pixels", kImageShape},
    {DocumentKind::Workload, "image.width", 1 << 16, "pixels", kImageShape},
    {DocumentKind::Workload, "image.channels", 1 << 16, "channels", kImageShape},
    {DocumentKind::Workload, "classes", 1 << 24, "classes", kGemmShape},
    {DocumentKind::Workload, "network[].out", 1 << 20, "channels", kImageShape},
    {DocumentKind::Workload, "network[].kernel", 4096, "pixels", kWindow},
    {DocumentKind::Workload, "network[].stride", 1 << 16, "pixels", kWindow},
    {DocumentKind::Workload, "network[].padding", 1 << 16, "pixels", kWindow},
    {DocumentKind::Workload, "network[].dilation", 4096, "pixels", kWindow},
    {DocumentKind::Workload, "network[].groups", 1 << 20, "groups", kImageShape},
    {DocumentKind::Workload, "stages[].count", 4096, "blocks", kLayerCost},
    {DocumentKind::Workload, "stages[].channels", 1 << 20, "channels", kImageShape},
    {DocumentKind::Workload, "stages[].stride", 1 << 16, "pixels", kWindow},
    {DocumentKind::Workload, "stem_channels", 1 << 20, "channels", kImageShape},
    {DocumentKind::Workload, "head_fc", 1 << 24, "features", kGemmShape},
    {DocumentKind::Workload, "dense_features", 1 << 24, "features", kGemmShape},
    {DocumentKind::Workload, "embedding_dim", 1 << 20, "elements", kGemmShape},
    {DocumentKind::Workload, "tables[].dim", 1 << 20, "elements", kGemmShape},
    {DocumentKind::Workload, "tables[].count", 1 << 16, "tables", kGemmShape},
    {DocumentKind::Workload, "tables[].rank", kMaxDevices, "devices", kDeviceCost},
    {DocumentKind::Workload, "tables[].shards", kMaxDevices, "devices", kDeviceCost},
    {DocumentKind::Workload, "tables[].host", kMaxDevices, "nodes", kDeviceCost},
    {DocumentKind::Workload, "bottom_mlp", 1 << 24, "features", kGemmShape},
    {DocumentKind::Workload, "top_mlp", 1 << 24, "features", kGemmShape},
    {DocumentKind::Workload, "cross_layers", 16384, "layers", kLayerCost},
    {DocumentKind::Workload, "cross_rank", 1 << 22, "elements", kGemmShape},
    {DocumentKind::Workload, "bottom_mlp_rank", kMaxDevices, "devices", kDeviceCost},

    {DocumentKind::Scenario, "training.micro_batch", 1 << 16, "sequences", kGemmShape},
    {DocumentKind::Scenario, "parallelism.dp", kMaxDevices, "replicas", kDeviceCost},
    {DocumentKind::Scenario, "parallelism.tp", kMaxDevices, "devices", kDeviceCost},
    {DocumentKind::Scenario, "parallelism.pp", kMaxDevices, "stages", kDeviceCost},
    {DocumentKind::Scenario, "parallelism.ep", kMaxDevices, "replicas", kDeviceCost},
    {DocumentKind::Scenario, "parallelism.virtual_stages", 16384, "model chunks per device", kLayerCost},
    {DocumentKind::Scenario, "parallelism.layer_split", 16384, "layers", kLayerCost},
};

const std::vector<QuantityFloor> kQuantityFloors = {
    {DocumentKind::Platform, "collectives.chunk", 64.0 * 1024,
     "every chunk is a simulated message in every step; NCCL moves 512 KiB slices (NCCL_BUFFSIZE 4 MiB over "
     "NCCL_STEPS 8)"},
};

// ---- Totals -------------------------------------------------------------------------------------

const ConfigValue* integer(const ConfigDocument& doc, std::string_view path) {
  const ConfigValue* v = doc.find(path);
  return v && std::holds_alternative<std::int64_t>(v->data) ? v : nullptr;
}

std::vector<std::int64_t> int_list(const ConfigDocument& doc, std::string_view path) {
  std::vector<std::int64_t> out;
  if (const ConfigValue* v = doc.find(path); v && !v->is_derived())
    for (const ConfigValue& e : v->as_list()) out.push_back(e.as_integer());
  return out;
}

/// Links of a SimGrid fat tree: level i holds prod(up[<i]) x prod(down[>=i]) nodes or switches,
/// each with up[i] x parallel[i] links to its parents (the three lists have one entry per level).
/// nullopt when the count leaves int64.
std::optional<std::int64_t> fat_tree_links(const std::vector<std::int64_t>& down, const std::vector<std::int64_t>& up,
                                           const std::vector<std::int64_t>& parallel) {
  std::int64_t total = 0;
  for (std::size_t level = 0; level < down.size(); ++level) {
    std::optional<std::int64_t> count = 1;
    for (std::size_t j = 0; j < down.size() && count; ++j)
      count = checked_mul(*count, j < level ? up[j] : down[j]);
    if (count) count = checked_mul(*count, up[level]);
    if (count) count = checked_mul(*count, parallel[level]);
    const auto sum = count ? checked_add(total, *count) : std::nullopt;
    if (!sum) return std::nullopt;
    total = *sum;
  }
  return total;
}

/// Links of a SimGrid dragonfly: every node to its router, then all-to-all between the routers of
/// a chassis, the chassis of a group and the groups, `*_links` per pair.
std::optional<std::int64_t> dragonfly_links(const std::array<std::int64_t, 7>& d) {
  const auto [groups, group_links, chassis, chassis_links, routers, router_links, nodes] = d;
  const auto pairs = [](std::int64_t n) { return n * (n - 1) / 2; };  // n <= kMaxDevices: no overflow
  const std::array<std::array<std::int64_t, 4>, 4> terms = {{{groups, chassis, routers, nodes},
                                                             {groups, chassis, pairs(routers), router_links},
                                                             {groups, pairs(chassis), routers, chassis_links},
                                                             {pairs(groups), group_links, 1, 1}}};
  std::int64_t total = 0;
  for (const auto& term : terms) {
    const auto product = checked_product(term);
    const auto sum = product ? checked_add(total, *product) : std::nullopt;
    if (!sum) return std::nullopt;
    total = *sum;
  }
  return total;
}

void check_fabric_links(const ConfigDocument& doc, std::vector<Diagnostic>& out) {
  const ConfigValue* topology = doc.find("fabric.topology");
  if (!topology || topology->is_derived()) return;
  const auto kind = parse_fabric_topology(topology->as_string());
  std::optional<std::int64_t> links;
  std::string_view key;
  switch (*kind) {
    case FabricTopology::FatTree: {
      key = "fabric.fat_tree.down";
      const auto down = int_list(doc, key);
      if (down.empty()) return;
      if (down.size() > kMaxFabricLevels) {
        report(doc, key, fmt::format("has {} levels; at most {} (SimGrid builds a zone per level)", down.size(),
                                     kMaxFabricLevels),
               out);
        return;
      }
      // Derived up and parallel counts are 1 per level; lists of another length are reported by
      // the fabric check.
      auto up = int_list(doc, "fabric.fat_tree.up");
      auto parallel = int_list(doc, "fabric.fat_tree.parallel");
      if (up.empty()) up.assign(down.size(), 1);
      if (parallel.empty()) parallel.assign(down.size(), 1);
      if (up.size() != down.size() || parallel.size() != down.size()) return;
      links = fat_tree_links(down, up, parallel);
      break;
    }
    case FabricTopology::Torus: {
      key = "fabric.torus.dims";
      if (const auto dims = int_list(doc, key); dims.size() > kMaxFabricLevels)
        report(doc, key, fmt::format("has {} dimensions; at most {}", dims.size(), kMaxFabricLevels), out);
      return;  // links: 2 per node and dimension, bounded by fabric.nodes
    }
    case FabricTopology::Dragonfly: {
      key = "fabric.dragonfly.nodes_per_router";
      std::array<std::int64_t, 7> d{};
      std::size_t i = 0;
      for (const char* name : {"groups", "group_links", "chassis", "chassis_links", "routers", "router_links",
                               "nodes_per_router"}) {
        const ConfigValue* v = integer(doc, fmt::format("fabric.dragonfly.{}", name));
        if (!v) return;
        d[i++] = v->as_integer();
      }
      links = dragonfly_links(d);
      break;
    }
  }
  if (!links || *links > kMaxFabricLinks)
    report(doc, key,
           fmt::format("the fabric would have {} links, too many: at most {} ({} devices x 4); this machine would "
                       "need ~{} ({})",
                       links ? std::to_string(*links) : "more than 2^63", kMaxFabricLinks, kMaxDevices,
                       memory_text((links ? static_cast<double>(*links) : 9.2e18) * kDeviceCost.bytes),
                       kDeviceCost.basis),
           out);
}

/// A node's links: a full mesh joins every pair, so its links grow with the square of the devices.
void check_node_links(const ConfigDocument& doc, std::vector<Diagnostic>& out) {
  const ConfigValue* devices = integer(doc, "node.devices");
  const ConfigValue* topology = doc.find("node.topology");
  const auto kind = topology ? parse_node_topology(topology->as_string()) : std::nullopt;
  if (!devices || !kind) return;
  const std::int64_t n = devices->as_integer();
  const std::int64_t links = kind->schema().link_count(n);  // n <= kMaxNodeDevices
  if (links > kMaxNodeLinks)
    report_at(*devices,
              fmt::format("a {} node of {} devices has {} links, too many: at most {} (a full mesh of 1024 "
                          "devices); this machine would need ~{} and far longer to build them (`clearfog platform "
                          "info` on a 1024-device full mesh: 49 s, 238 MB); use a switch or a torus",
                          kind->name(), n, links, kMaxNodeLinks, memory_text(static_cast<double>(links) * kBytesPerNodeLink)),
              out);
}

void check_platform_scale(const ConfigDocument& doc, std::vector<Diagnostic>& out) {
  check_node_links(doc, out);
  const ConfigValue* devices = integer(doc, "node.devices");
  const ConfigValue* nodes = integer(doc, "fabric.nodes");
  if (devices && nodes) {
    const auto total = checked_mul(devices->as_integer(), nodes->as_integer());
    if (!total || *total > kMaxDevices)
      report(doc, "fabric.nodes",
             fmt::format("node.devices x fabric.nodes = {} x {} = {} devices is too many: {}", devices->as_integer(),
                         nodes->as_integer(), total ? std::to_string(*total) : "more than 2^63",
                         over_limit_text(total.value_or(INT64_MAX), kMaxDevices, "devices", kDeviceCost)),
             out);
  }
  if (nodes && nodes->as_integer() > 1) check_fabric_links(doc, out);
}

void check_scenario_scale(const ConfigDocument& doc, std::vector<Diagnostic>& out) {
  const ConfigValue* global_batch = integer(doc, "training.global_batch");
  const ConfigValue* micro_batch = integer(doc, "training.micro_batch");
  const ConfigValue* dp = integer(doc, "parallelism.dp");
  if (!global_batch || !micro_batch || !dp) return;
  const auto per_step = checked_mul(dp->as_integer(), micro_batch->as_integer());
  if (!per_step || global_batch->as_integer() % *per_step != 0) return;  // reported by the batch check
  const std::int64_t micro_batches = global_batch->as_integer() / *per_step;
  if (micro_batches > kMaxMicroBatches)
    report(doc, "training.global_batch",
           fmt::format("global_batch / (dp x micro_batch) = {} / ({} x {}) = {} micro-batches per replica is too many: {}",
                       global_batch->as_integer(), dp->as_integer(), micro_batch->as_integer(), micro_batches,
                       over_limit_text(micro_batches, kMaxMicroBatches, "micro-batches", kLayerCost)),
           out);
}

}  // namespace

std::string memory_text(double bytes) {
  constexpr std::array<std::pair<double, const char*>, 5> kPrefixes = {
      {{1e15, "PB"}, {1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "kB"}}};
  for (const auto& [factor, symbol] : kPrefixes)
    if (bytes >= factor) return fmt::format("{:.3g} {}", bytes / factor, symbol);
  return fmt::format("{:.3g} B", bytes);
}

const std::vector<KeyLimit>& key_limits() { return kKeyLimits; }

const KeyLimit* find_key_limit(DocumentKind kind, std::string_view path) {
  for (const KeyLimit& l : kKeyLimits)
    if (l.kind == kind && l.path == path) return &l;
  return nullptr;
}

const QuantityFloor* find_quantity_floor(DocumentKind kind, std::string_view path) {
  for (const QuantityFloor& f : kQuantityFloors)
    if (f.kind == kind && f.path == path) return &f;
  return nullptr;
}

std::string over_limit_text(std::int64_t value, std::int64_t max, std::string_view unit, const ScaleCost& cost) {
  std::string text = fmt::format("at most {} {}", max, unit);
  if (cost.bytes > 0) {
    const double count = static_cast<double>(value);
    const double need = cost.bytes * (cost.pairs ? count * count : count);
    text += fmt::format("; this machine would need ~{} for {} ({})", memory_text(need), value, cost.basis);
  } else {
    text += fmt::format(" ({})", cost.basis);
  }
  return text;
}

void check_scale(const ConfigDocument& doc, std::vector<Diagnostic>& out) {
  switch (doc.kind()) {
    case DocumentKind::Platform: check_platform_scale(doc, out); break;
    case DocumentKind::Scenario: check_scenario_scale(doc, out); break;
    case DocumentKind::Accelerator:
    case DocumentKind::Workload: break;
  }
}

}  // namespace clearfog::config
