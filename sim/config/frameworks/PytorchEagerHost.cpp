// The host cost of PyTorch's eager mode, shared by every profile whose kernels are launched one by
// one from Python (Megatron-LM, PyTorch FSDP, DeepSpeed): docs/host-time.md, "The values".
#include "config/FrameworkRegistry.hpp"

namespace clearfog::config::frameworks {

HostIssue pytorch_eager_host() {
  HostIssue h;
  // Measured: 4 us per CUDA op in a dispatch-bound model (pytorch/pytorch#82793, A100, PyTorch
  // 1.12, EfficientNet-B5 at batch 1: the step is the op count times this).
  h.forward_launch_s = 4e-6;
  // The backward's ops are issued by the C++ autograd engine: the C++ path of an op takes half of
  // the Python one (pytorch/pytorch#41383: ~1 us of ~2 us), applied to the measured 4 us.
  h.backward_launch_s = 2e-6;
  // Not measured here: one replay costs the host about one eager launch (a single driver call,
  // pytorch.org/blog/accelerating-pytorch-with-cuda-graphs). An assumption, stated in the docs.
  h.graph_launch_s = 4e-6;
  // Megatron-core's all-to-all, all-gather and DeepEP dispatchers and torchtitan's all copy the
  // tokens per expert to the host before the forward exchange (d2h_event.synchronize(),
  // .cpu(), DeepEP's CPU wait for the received counts); the backward reuses them.
  h.moe_dispatch_sync = true;
  return h;
}

}  // namespace clearfog::config::frameworks
