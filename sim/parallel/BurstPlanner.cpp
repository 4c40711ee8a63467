#include "parallel/BurstPlanner.hpp"

#include <algorithm>
#include <limits>

#include "core/Errors.hpp"

namespace clearfog::parallel {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

int busiest_transfer_samples(int global_batch, int from, int to) {
  // Device d of the wider side exchanges with devices of the narrower one; the busiest device is
  // the one moving most samples in or out.
  int busiest = 0;
  for (int d = 0; d < std::max(from, to); ++d) {
    int out = 0, in = 0;
    for (int e = 0; e < std::max(from, to); ++e) {
      if (e == d) continue;
      if (d < from && e < to) out += samples_moved(global_batch, from, d, to, e);
      if (e < from && d < to) in += samples_moved(global_batch, from, e, to, d);
    }
    busiest = std::max({busiest, out, in});
  }
  return busiest;
}

}  // namespace

int samples_moved(int global_batch, int from, int from_device, int to, int to_device) {
  int n = 0;
  for (int s = from_device; s < global_batch; s += from)
    if (s % to == to_device) ++n;
  return n;
}

double BurstProblem::sync_s(std::size_t l, std::size_t w) const {
  const double width = widths[w];
  if (width < 2 || layers[l].gradient_B <= 0) return 0;
  const bool inside = widths[w] <= node_devices;
  return 2 * (width - 1) / width * layers[l].gradient_B / (inside ? node_link_Bps : link_Bps) +
         2 * (width - 1) * (inside ? node_latency_s : latency_s);
}

double BurstProblem::layer_s(std::size_t l, std::size_t w) const {
  return layers[l].forward_s[w] + layers[l].backward_s[w] + (sync_overlapped ? 0.0 : sync_s(l, w));
}

double BurstProblem::reshard_s(std::size_t l, std::size_t a, std::size_t b) const {
  if (a == b) return 0;
  const int samples = busiest_transfer_samples(global_batch, widths[a], widths[b]);
  if (samples == 0) return 0;
  const bool inside = std::max(widths[a], widths[b]) <= node_devices;
  return 2 * (samples * layers[l].output_B_per_sample / (inside ? node_link_Bps : link_Bps) +
              (inside ? node_latency_s : latency_s));
}

double BurstProblem::amplification(std::size_t l, std::size_t w) const {
  const double alone = layers[l].forward_s[0] + layers[l].backward_s[0];
  const double here = layers[l].forward_s[w] + layers[l].backward_s[w] + sync_s(l, w);
  return alone > 0 ? widths[w] * here / alone : 1.0;
}

BurstPlan plan_burst(const BurstProblem& p) {
  if (p.widths.empty() || p.widths.front() != 1) throw Error("burst planner: the widths must start at 1");
  const std::size_t L = p.layers.size(), W = p.widths.size();
  // best[l][w]: the fastest time through layer l ending on widths[w]; from[l][w]: its predecessor.
  std::vector<std::vector<double>> best(L, std::vector<double>(W, kInfinity));
  std::vector<std::vector<std::size_t>> from(L, std::vector<std::size_t>(W, 0));
  for (std::size_t l = 0; l < L; ++l)
    for (std::size_t w = 0; w < W; ++w) {
      if (w > 0 && p.amplification(l, w) > p.amplification_limit) continue;
      if (l == 0) {
        best[0][w] = p.layer_s(0, w);
        continue;
      }
      for (std::size_t v = 0; v < W; ++v) {
        // The reshard into layer l moves layer l-1's output.
        const double t = best[l - 1][v] + p.reshard_s(l - 1, v, w) + p.layer_s(l, w);
        if (t < best[l][w]) best[l][w] = t, from[l][w] = v;
      }
    }
  BurstPlan plan;
  plan.width_index.assign(L, 0);
  if (L == 0) return plan;
  std::size_t w = static_cast<std::size_t>(std::min_element(best[L - 1].begin(), best[L - 1].end()) - best[L - 1].begin());
  plan.estimated_s = best[L - 1][w];
  for (std::size_t l = L; l-- > 0;) {
    plan.width_index[l] = w;
    plan.device_s += p.widths[w] * p.layer_s(l, w);
    w = from[l][w];
  }
  return plan;
}

BurstPlan plan_uniform(const BurstProblem& p, std::size_t w) {
  BurstPlan plan;
  plan.width_index.assign(p.layers.size(), w);
  for (std::size_t l = 0; l < p.layers.size(); ++l) {
    plan.estimated_s += p.layer_s(l, w);
    plan.device_s += p.widths[w] * p.layer_s(l, w);
  }
  return plan;
}

}  // namespace clearfog::parallel
