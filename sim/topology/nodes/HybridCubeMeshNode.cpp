// hybrid-cube-mesh: the NVLink2 wiring of a DGX-1 with 8 V100s.
//
// Each V100 has 6 NVLink2 bricks. The GPUs form two quads, {0,1,2,3} and {4,5,6,7}, fully connected
// inside, plus one link from GPU i to GPU i+4 ("hybrid cube-mesh"): 4 neighbours per GPU, so two of
// them are joined by two bricks. Which ones is taken from
//  - NVIDIA, "NVIDIA DGX-1 With Tesla V100 System Architecture" whitepaper (WP-08437-002), figure
//    "DGX-1 uses an 8-GPU hybrid cube-mesh interconnection network topology";
//  - the topology NCCL detects on a DGX-1V (NVIDIA/nccl issue #671, `nvlink ... count="2"`), which
//    matches `nvidia-smi topo -m` on that machine (NV2 = two bricks):
//
//          GPU0 GPU1 GPU2 GPU3 GPU4 GPU5 GPU6 GPU7
//    GPU0   X   NV1  NV1  NV2  NV2   -    -    -
//    GPU1  NV1   X   NV2  NV1   -   NV2   -    -
//    GPU2  NV1  NV2   X   NV2   -    -   NV1   -
//    GPU3  NV2  NV1  NV2   X    -    -    -   NV1
//    GPU4  NV2   -    -    -    X   NV1  NV1  NV2
//    GPU5   -   NV2   -    -   NV1   X   NV2  NV1
//    GPU6   -    -   NV1   -   NV1  NV2   X   NV2
//    GPU7   -    -    -   NV1  NV2  NV1  NV2   X
//
// The double-brick pairs form the cycle 0-3-2-1-5-6-7-4-0, which is the ring NCCL uses at full
// bandwidth on this machine. A pair with two bricks is one link of twice the brick bandwidth.
#include <fmt/format.h>

#include <array>

#include "core/Errors.hpp"
#include "config/CheckSupport.hpp"
#include "topology/nodes/HybridCubeMeshNode.hpp"

namespace clearfog::topology::nodes {
namespace {

struct BrickPair {
  int a;
  int b;
  int bricks;
};

constexpr int kDevices = 8;
constexpr int kBricksPerDevice = 6;  // NVLink2 bricks of one V100 SXM2

constexpr std::array<BrickPair, 16> kWiring = {{
    {0, 1, 1}, {0, 2, 1}, {0, 3, 2}, {0, 4, 2},  //
    {1, 2, 2}, {1, 3, 1}, {1, 5, 2},             //
    {2, 3, 2}, {2, 6, 1},                        //
    {3, 7, 1},                                   //
    {4, 5, 1}, {4, 6, 1}, {4, 7, 2},             //
    {5, 6, 2}, {5, 7, 1},                        //
    {6, 7, 2},
}};

constexpr bool every_device_has_six_bricks() {
  for (int d = 0; d < kDevices; ++d) {
    int bricks = 0;
    for (const BrickPair& p : kWiring)
      if (p.a == d || p.b == d) bricks += p.bricks;
    if (bricks != kBricksPerDevice) return false;
  }
  return true;
}
static_assert(every_device_has_six_bricks(), "DGX-1 wiring: each V100 has exactly 6 NVLink bricks");

NodeLayout build_hybrid_cube_mesh(const config::NodeSpec& node) {
  if (node.devices != kDevices)
    throw Error(fmt::format("topology: hybrid-cube-mesh: node.devices must be {} (DGX-1 wiring), got {}", kDevices,
                            node.devices));
  NodeLayout layout;
  for (int d = 0; d < kDevices; ++d) layout.add_device(d);
  for (const BrickPair& p : kWiring)
    layout.add_link(static_cast<std::size_t>(p.a), static_cast<std::size_t>(p.b), p.bricks * node.link.bandwidth_Bps,
                    node.link.latency_s);
  return layout;
}

class HybridCubeMeshNode final : public NodeTopologyType {
public:
  std::string_view name() const override { return "hybrid-cube-mesh"; }
  std::string_view summary() const override { return "DGX-1's 8 GPUs, NVLink bricks between some pairs"; }
  void check(const config::ConfigDocument& doc, std::int64_t devices, std::vector<Diagnostic>& out) const override {
    if (devices != kDevices)
      config::report(doc, "node.devices",
                     fmt::format("topology hybrid-cube-mesh joins exactly 8 devices (the DGX-1 layout), got {}; "
                                 "use custom for other layouts",
                                 devices),
                     out);
  }
  NodeLayout build(const config::NodeSpec& node) const override { return build_hybrid_cube_mesh(node); }
};

}  // namespace

const NodeTopologyType& hybrid_cube_mesh_node() {
  static const HybridCubeMeshNode kind;
  return kind;
}

}  // namespace clearfog::topology::nodes
