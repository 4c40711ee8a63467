#pragma once
// How large a configuration the simulator can hold: the largest value of each count, and of the
// totals derived from several keys (devices = node.devices x fabric.nodes, micro-batches per
// replica), with the memory a larger one would need on the measured cost per unit. The reader
// refuses a key above its limit (so no later check or builder ever sees it); check_scale() refuses
// the totals. docs/reliability.md lists the limits and the measurements behind them.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config/ConfigDocument.hpp"
#include "config/DocumentKind.hpp"
#include "core/Errors.hpp"

namespace clearfog::config {

/// Devices of one platform (node.devices x fabric.nodes). Measured here: a fluid ring all-reduce
/// over 16384 GPUs builds and runs in 13 s and 564 MiB (docs/performance.md), ~35 kB per device;
/// over 65536 it had not finished after 15 minutes (SimGrid's platform build grows with links x
/// zones).
inline constexpr std::int64_t kMaxDevices = 16384;
/// Devices of one node: every pair of a node gets a route (~73 B per pair; `clearfog platform info`
/// on a 4096-device switch node peaks at 1.2 GB).
inline constexpr std::int64_t kMaxNodeDevices = 4096;
/// Forward and backward passes per replica and iteration (global_batch / (dp x micro_batch)).
inline constexpr std::int64_t kMaxMicroBatches = 65536;

/// The memory one unit of a limited count costs the simulator, and how the need grows with it.
struct ScaleCost {
  double bytes = 0;     ///< per unit (or per pair of units when `pairs`); 0: the limit is not about memory
  bool pairs = false;   ///< the cost grows with the square of the count (routes between devices)
  std::string_view basis;  ///< where the figure comes from, or why the limit exists
};

/// The largest value of one Integer key (of a list key: of each element).
struct KeyLimit {
  DocumentKind kind;
  std::string_view path;
  std::int64_t max;
  std::string_view unit;  ///< what is counted: "devices", "layers"
  ScaleCost cost;
};

/// "1.2 GB", "3.4e+08 PB": memory with three significant digits.
std::string memory_text(double bytes);

/// Every limited key; keys not listed are limited only by their type (an int).
const std::vector<KeyLimit>& key_limits();

/// The limit of a key of a document kind, or nullptr.
const KeyLimit* find_key_limit(DocumentKind kind, std::string_view path);

/// The smallest non-zero value of a quantity key where its dimension's plausible range is too wide
/// for the simulator (units::plausible_range).
struct QuantityFloor {
  DocumentKind kind;
  std::string_view path;
  double min;               ///< SI units
  std::string_view reason;
};

/// The floor of a quantity key, or nullptr.
const QuantityFloor* find_quantity_floor(DocumentKind kind, std::string_view path);

/// "at most 4096 devices per node; this machine would need ~3.37e+05 PB for 2147483647 (~73 B per
/// pair of devices: ...)": what to say about `value` above `max`.
std::string over_limit_text(std::int64_t value, std::int64_t max, std::string_view unit, const ScaleCost& cost);

/// Totals over several keys: devices of a platform, switches and links of its fabric,
/// micro-batches of a scenario. Appends problems located at the key that sets the total.
void check_scale(const ConfigDocument& doc, std::vector<Diagnostic>& out);

}  // namespace clearfog::config
