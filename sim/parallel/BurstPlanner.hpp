#pragma once
// Burst parallelism (DeepPool, Park et al., MLSys 2022): every layer of a model runs data parallel
// over its own number of devices, chosen so that the iteration is fastest while no layer spends
// more than `amplification_limit` times the device-seconds it takes on one device. Between layers
// of different widths the activations (forward) and their gradients (backward) are resharded.
// Pure: the costs come in per layer and width; docs/burst-parallelism.md gives the equations.
#include <string>
#include <vector>

namespace clearfog::parallel {

struct BurstLayer {
  std::string name;
  /// Per width of the problem (same order): the layer's time on one of its devices, which holds
  /// global_batch / width samples.
  std::vector<double> forward_s, backward_s;
  double gradient_B = 0;           // the layer's gradient, all-reduced among its devices
  double output_B_per_sample = 0;  // the activation the next layer receives (its gradient returns)
};

struct BurstProblem {
  std::vector<int> widths;  // candidate device counts, ascending, the first 1; each divides global_batch
  std::vector<BurstLayer> layers;
  int global_batch = 1;
  double amplification_limit = 2.0;
  /// What the planner assumes of the network (the simulation then runs the real one): each device
  /// sends and receives at link_Bps, every message pays latency_s; groups of at most node_devices
  /// devices (devices 0 .. w-1 share the first node) use the node's link instead.
  double link_Bps = 25e9;
  double latency_s = 5e-6;
  int node_devices = 1;
  double node_link_Bps = 25e9;
  double node_latency_s = 5e-6;
  /// false: a layer's all-reduce adds to the iteration (DeepPool's planner); true: it is hidden
  /// behind the backward of the layers before it (DDP-style overlap) and counts only in the
  /// amplification.
  bool sync_overlapped = false;

  /// Ring all-reduce of layer l's gradient over widths[w]: 2(w-1)/w * G / link + 2(w-1) latencies.
  [[nodiscard]] double sync_s(std::size_t l, std::size_t w) const;
  /// The planner's estimate of layer l on widths[w]: forward, backward and (unless overlapped) the
  /// all-reduce.
  [[nodiscard]] double layer_s(std::size_t l, std::size_t w) const;
  /// Forward activation and backward gradient between widths[a] and widths[b] (0 if equal): the
  /// busiest device's bytes in or out over the link, plus a latency, twice.
  [[nodiscard]] double reshard_s(std::size_t l, std::size_t a, std::size_t b) const;
  /// Device-seconds of layer l on widths[w] (passes and all-reduce) over its passes on one device
  /// (DeepPool's amplification).
  [[nodiscard]] double amplification(std::size_t l, std::size_t w) const;
};

struct BurstPlan {
  std::vector<std::size_t> width_index;  // per layer, into BurstProblem::widths
  double estimated_s = 0;                // the planner's estimate of one iteration
  double device_s = 0;                   // device-seconds of that estimate (layers only)
};

/// The fastest assignment of widths to layers under the amplification limit (width 1 is always
/// allowed): dynamic programming over layers, the state being the previous layer's width.
BurstPlan plan_burst(const BurstProblem& problem);
/// Every layer on widths[w]: plain data parallelism.
BurstPlan plan_uniform(const BurstProblem& problem, std::size_t w);

/// Where samples live: sample s of the global batch on device s mod width, so that for widths
/// that divide each other a device keeps the samples it still owns.
/// Samples device `from_device` (of `from` devices) hands to `to_device` (of `to`).
int samples_moved(int global_batch, int from, int from_device, int to, int to_device);

}  // namespace clearfog::parallel
