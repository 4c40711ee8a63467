// Apache MXNet as NVIDIA's DeepLearningExamples train ResNet-50 v1.5 with it (mxnet-22.10 NGC
// container): the stack of the MXNet rows of shared/reference/resnet50_dgx_a100.csv.
#include "config/FrameworkRegistry.hpp"

namespace clearfog::config::frameworks {

FrameworkProfile mxnet() {
  FrameworkProfile p;
  p.name = "mxnet";
  p.description = "Apache MXNet (NVIDIA DeepLearningExamples' CNN recipes): batch norm fused with its ReLU and "
                  "residual add in cuDNN, Horovod all-reduce overlapped with the backward, multi-precision SGD";
  p.source = "NVIDIA/DeepLearningExamples MxNet/Classification/RN50v1.5/runner (--fuse-bn-relu 1 "
             "--fuse-bn-add-relu 1 with float16, MXNET_EXEC_ENABLE_ADDTO=1, HOROVOD_FUSION_THRESHOLD 64 MB); "
             "cuDNN cudnnBatchNormalizationForwardTrainingEx (CUDNN_BATCHNORM_OPS_BN_ACTIVATION, BN_ADD_ACTIVATION)";
  // MXNet's LayerNorm and masked softmax are single operators, its dense layer adds the bias in a
  // kernel of its own before the activation; no fused attention or loss in these recipes. The
  // batch-norm fusion is what the recipe switches on for float16 (training.batchnorm_relu_fusion:
  // false reproduces its float32 runs, which pass no --fuse flags).
  p.fusions = KernelFusions{.bias_gelu = false, .softmax_mask = true, .layernorm = true, .attention = false,
                            .cross_entropy = false, .batchnorm_relu = true};
  p.p2p = P2pMode::Async;
  p.ddp = DdpFlavour::Torch;           // Horovod reduces fused gradient buffers as the backward produces them
  p.grad_accumulation_fusion = true;   // MXNET_EXEC_ENABLE_ADDTO: gradients accumulate in place
  // SGD with multi_precision keeps fp32 master weights and writes the fp16 copy back; the loss
  // scale is folded into the update's rescale_grad, with no separate unscale pass.
  p.optimizer = OptimizerPasses{.master_copies = true, .fp16_unscale = false};
  // The hybridized graph is issued by MXNet's C++ dependency engine; no measurement of its host cost
  // is at hand, so none is modelled (docs/host-time.md).
  p.host = HostIssue{};
  return p;
}

}  // namespace clearfog::config::frameworks
