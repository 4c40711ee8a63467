// Every key of a scenario file, declared once.
#include <fmt/format.h>

#include "compression/GradCompression.hpp"
#include "config/CollectiveAlgorithmSchema.hpp"
#include "config/FrameworkRegistry.hpp"
#include "config/KeyTableParts.hpp"
#include "config/ScenarioSpec.hpp"
#include "core/DType.hpp"
#include "schedule/PipelineSchedule.hpp"

namespace clearfog::config {

using units::Dimension;

namespace {

/// The algorithms, and "auto", which means best.
std::vector<std::string> algorithm_choices() {
  std::vector<std::string> choices;
  for (CollectiveAlgorithm a : collective_algorithm_choices()) choices.emplace_back(a.name());
  choices.emplace_back(kBestAlias);
  return choices;
}

/// collectives.algorithm's reference: the policies, then each registered algorithm's summary.
std::string algorithm_description() {
  std::string text =
      "Algorithm of every collective. nccl: NCCL's own choice of algorithm, protocol and channels per operation, "
      "size and group (docs/collectives.md); best: the fastest of the simulated candidates (auto is the same)";
  for (const auto* type : collective_algorithm_schemas())
    text += fmt::format("; {}: {}", type->name(), type->summary());
  return text + ". An algorithm that lacks an operation or cannot run on a group leaves it to nccl; one that can "
                "run on none of the scenario's groups is refused.";
}

/// Each schedule of the registry with its one-line summary.
std::string schedule_description() {
  std::string text = "Pipeline schedule:";
  for (const auto* type : schedule::pipeline_schedules())
    text += fmt::format(" {}: {}.", type->name(), type->summary());
  return text;
}

/// Each gradient-compression method of the registry with its one-line summary.
std::string compression_description() {
  std::string text = "Gradient compression of the data-parallel buckets (docs/grad-compression.md):";
  for (const auto* method : compression::grad_compressions())
    text += fmt::format(" {}: {}.", method->name(), method->summary());
  return text + " Needs parallelism.zero_stage 0.";
}

/// The key is used only with the methods that read `parameter`.
std::vector<Condition> compression_using(std::string_view parameter) {
  return {Condition::one_of("training.grad_compression.method", compression::grad_compressions_using(parameter))};
}

}  // namespace

KeyTable make_scenario_table() {
  return KeyTable(
      DocumentKind::Scenario,
      "One simulation: a platform, a workload, how the model is trained and how it is parallelized. "
      "dp*tp*pp must equal the platform's device count (fabric.nodes x node.devices), global_batch must be divisible by "
      "dp*micro_batch, and the accelerator must have a `peak` for the training precision.",
      {
          kind_key(DocumentKind::Scenario),
          {.path = "name", .description = "Short name, used in reports."},
          {.path = "description",
           .presence = Presence::Defaulted,
           .default_text = "",
           .description = "One line on what the scenario shows."},
          {.path = "platform",
           .type = KeyType::Reference,
           .referenced_kind = DocumentKind::Platform,
           .description = "The machine."},
          {.path = "workload",
           .type = KeyType::Reference,
           .referenced_kind = DocumentKind::Workload,
           .description = "The model."},
          {.path = "framework",
           .type = KeyType::Enum,
           .choices = framework_names(),
           .presence = Presence::Derived,
           .default_text = fmt::format("the platform's framework; {} where it names none", kDefaultFramework),
           .description = "The software stack (docs/frameworks.md): its kernel fusions, pipeline exchanges "
                          "(blocking or asynchronous), DDP flavour, gradient-accumulation fusion, optimizer "
                          "passes and host time. training.overlap_grad_reduce, grad_accumulation_fusion, "
                          "attention and batchnorm_relu_fusion default to the profile's and override it when given."},
          {.path = "training.global_batch",
           .type = KeyType::Integer,
           .constraint = Constraint::AtLeastOne,
           .counts = "sequences",
           .description = "Sequences per iteration, all replicas together."},
          {.path = "training.micro_batch",
           .type = KeyType::Integer,
           .presence = Presence::Defaulted,
           .default_text = "1",
           .constraint = Constraint::AtLeastOne,
           .counts = "sequences",
           .description = "Sequences per forward/backward pass on one replica."},
          {.path = "training.precision",
           .type = KeyType::Enum,
           .choices = names(kTrainingDTypes, dtype_name),
           .presence = Presence::Defaulted,
           .default_text = std::string(dtype_name(DType::bf16)),
           .description = "Data type of the forward and backward passes (mixed precision)."},
          {.path = "training.optimizer",
           .type = KeyType::Enum,
           .choices = names(kAllOptimizers, optimizer_name),
           .presence = Presence::Defaulted,
           .default_text = std::string(optimizer_name(Optimizer::Adam)),
           .description = "Optimizer; decides the optimizer state kept per parameter."},
          {.path = "training.bucket_size",
           .type = KeyType::Quantity,
           .dimension = Dimension::Bytes,
           .presence = Presence::Defaulted,
           .default_text = "25 MB",
           .constraint = Constraint::Positive,
           .description = "Gradient bucket of data-parallel all-reduce (PyTorch DDP default)."},
          {.path = "training.overlap_grad_reduce",
           .type = KeyType::Bool,
           .presence = Presence::Derived,
           .default_text = "the framework's DDP: true for torch, false for local",
           .description = "Reduce each data-parallel gradient bucket as soon as the last micro-batch's backward has "
                          "produced it, overlapped with the rest of the backward (PyTorch DDP; Megatron-core "
                          "--overlap-grad-reduce). false: every bucket waits for the end of the backward (pipeline "
                          "flush), as Megatron-LM did in 2021 (SC21)."},
          {.path = "training.grad_accumulation_fusion",
           .type = KeyType::Bool,
           .presence = Presence::Derived,
           .default_text = "the framework's",
           .description = "Weight-gradient GEMMs accumulate straight into the gradient buffer (C += A.B; Megatron "
                          "--gradient-accumulation-fusion). false: every micro-batch after the first adds its weight "
                          "gradients to the accumulated ones with separate memory-bound kernels (PyTorch autograd: "
                          "read both, write one, 3e bytes per parameter), as Megatron-LM did in 2021."},
          {.path = "training.cuda_graphs",
           .type = KeyType::Bool,
           .presence = Presence::Derived,
           .default_text = "the framework's (false for every shipped profile)",
           .description = "Replay each pass's kernels from captured CUDA graphs: the host pays one graph launch per "
                          "op instead of one launch per kernel (Megatron-core --cuda-graph-impl, MLPerf "
                          "submissions; docs/host-time.md). Without a host model (xla-fused, mxnet) it changes "
                          "nothing."},
          {.path = "training.host_forward_launch",
           .type = KeyType::Quantity,
           .dimension = Dimension::Time,
           .presence = Presence::Derived,
           .default_text = "the framework's (4 us for PyTorch-launched profiles, 0 for xla-fused and mxnet)",
           .constraint = Constraint::NonNegative,
           .description = "Host time per kernel of the forward pass, the recomputation and the optimizer, launched "
                          "from Python: the host this run's scenario is for, where it differs from the profile's "
                          "(a slower CPU, a virtual machine; docs/host-time.md, \"Your host\")."},
          {.path = "training.host_backward_launch",
           .type = KeyType::Quantity,
           .dimension = Dimension::Time,
           .presence = Presence::Derived,
           .default_text = "the framework's (2 us for PyTorch-launched profiles, 0 for xla-fused and mxnet)",
           .constraint = Constraint::NonNegative,
           .description = "Host time per kernel of the backward pass, issued by PyTorch's autograd engine "
                          "(docs/host-time.md, \"Your host\")."},
          {.path = "training.recompute",
           .type = KeyType::Enum,
           .choices = names(kAllRecomputes, recompute_name),
           .presence = Presence::Defaulted,
           .default_text = std::string(recompute_name(Recompute::None)),
           .description = "Activation recomputation (Korthikanti et al. 2022): none; selective: the attention "
                          "core is recomputed in backward; full: each layer's forward is recomputed before its "
                          "backward and only its input is kept; op: torchtitan's per-op selective checkpointing "
                          "(--activation_checkpoint.selective_ac_option op): the outputs of matrix products and "
                          "attention are kept, except every second matrix product of a layer, and everything "
                          "else is recomputed (docs/recompute.md)."},
          {.path = "training.attention",
           .type = KeyType::Enum,
           .choices = names(kAllAttentions, attention_name),
           .presence = Presence::Derived,
           .default_text = "the framework's (unfused for megatron-2022)",
           .description = "Attention kernels. unfused (which the Megatron-era validations were run "
                          "with): QK^T, softmax, dropout and PV as separate kernels that move the b*a*s^2 scores "
                          "through memory; fused: one FlashAttention-2-style kernel per pass (Dao 2022, 2023) with "
                          "no s^2 traffic and no s^2 activations (it keeps a logsumexp per row and recomputes the "
                          "scores in backward, so selective recomputation adds nothing)."},
          {.path = "training.attention_kernel",
           .type = KeyType::Enum,
           .choices = attention_kernel_names(),
           .presence = Presence::Derived,
           .default_text = "the framework's (flash2 for torchtitan, flash1 for pytorch-fsdp, cudnn for megatron-core-2024)",
           .description = "The fused attention kernel, where training.attention is fused: " +
                          attention_kernel_list() +
                          ". They differ in the share of the GEMM efficiency each sustains on a part, which the "
                          "accelerator file gives per kernel (attention.<kernel>.forward_share; docs/compute-model.md, "
                          "\"Fused attention\"): on an H100, FlashAttention-2 runs at about 0.62 of cuDNN's rate."},
          {.path = "training.pointwise_fusion",
           .type = KeyType::Bool,
           .presence = Presence::Derived,
           .default_text = "the framework's (false for torchtitan, true otherwise)",
           .description = "RMSNorm, the SwiGLU gate and the rotary embedding each in one fused kernel (Megatron, "
                          "Transformer Engine, torch.compile's Inductor). false: PyTorch eager ops, one kernel per "
                          "op, the norm and the rotary embedding in fp32, as torchtitan runs them without "
                          "torch.compile (docs/frameworks.md, \"Eager pointwise ops\"). Set true for a "
                          "torchtitan run with --training.compile."},
          {.path = "training.projection_fusion",
           .type = KeyType::Bool,
           .presence = Presence::Derived,
           .default_text = "the framework's (false for torchtitan, true otherwise)",
           .description = "Q, K and V projected by one GEMM, and a gated MLP's gate and up projections by one "
                          "(Megatron's fused weights). false: one nn.Linear each, as torchtitan's and Hugging "
                          "Face's Llama modules run them: three and two GEMMs of the same FLOPs, and autograd "
                          "adds their input gradients with one kernel per extra projection."},
          {.path = "training.master_copies",
           .type = KeyType::Bool,
           .presence = Presence::Derived,
           .default_text = "the framework's (true for Megatron, DeepSpeed and mxnet; false for FSDP and torchtitan)",
           .description = "Mixed precision keeps fp32 master weights apart from the 16-bit model: each step copies "
                          "the gradients into them and the updated weights back (Megatron's Float16Optimizer, apex "
                          "O2). false: the optimizer updates fp32 parameters in place (FSDP, torchtitan)."},
          {.path = "training.overlap_param_gather",
           .type = KeyType::Bool,
           .presence = Presence::Derived,
           .default_text = "the framework's (true for megatron-core-2024, false otherwise)",
           .description = "With zero_stage 1 or 2: the all-gather of the updated parameter shards runs behind the "
                          "next step's forward, bucket by bucket, each layer waiting for its own bucket "
                          "(Megatron-core --overlap-param-gather). false: it runs after the optimizer step, "
                          "before the next forward can start."},
          {.path = "training.grad_reduce_dtype",
           .type = KeyType::Enum,
           .choices = {"fp32", "bf16", "fp16"},
           .presence = Presence::Derived,
           .default_text = "the framework's (fp32 for torchtitan, and for megatron-2022 and megatron-core-2024 "
                           "with bf16 parameters; else the gradients' own type)",
           .description = "Type the data-parallel gradients are summed and reduced in (Megatron's "
                          "--accumulate-allreduce-grads-in-fp32, NeMo's grad_reduce_in_fp32, FSDP's "
                          "MixedPrecisionPolicy reduce_dtype): the bytes every gradient reduction moves, and "
                          "with Megatron the fp32 main gradients the optimizer reads without a copy."},
          {.path = "training.batchnorm_relu_fusion",
           .type = KeyType::Bool,
           .presence = Presence::Derived,
           .default_text = "the framework's (false but for mxnet)",
           .description = "CNNs: each batch norm followed by a ReLU, or by a residual add and a ReLU, runs as one "
                          "cuDNN kernel per pass (NHWC batch norm with its activation; MXNet --fuse-bn-relu and "
                          "--fuse-bn-add-relu): the ReLU's and the add's round trips through memory vanish and the "
                          "ReLU's gradient comes from a bitmask (docs/frameworks.md, \"Fusions\"). Modelled for "
                          "16-bit channels-last tensors, as the recipe runs it: true is refused otherwise, and a "
                          "profile's fusion leaves such runs unfused."},
          {.path = "training.grad_compression.method",
           .type = KeyType::Enum,
           .choices = compression::grad_compression_names(),
           .presence = Presence::Defaulted,
           .default_text = "none",
           .description = compression_description()},
          {.path = "training.grad_compression.rank",
           .type = KeyType::Integer,
           .presence = Presence::Defaulted,
           .default_text = "4",
           .constraint = Constraint::AtLeastOne,
           .counts = "rank",
           .description = "Rank r of PowerSGD's factors P (n x r) and Q (m x r) per n x m gradient matrix.",
           .only_with = compression_using("rank")},
          {.path = "training.grad_compression.ratio",
           .type = KeyType::Number,
           .presence = Presence::Defaulted,
           .default_text = "0.01",
           .constraint = Constraint::Positive,
           .description = "Share of each bucket's elements top-k sends, in (0, 1]: k = ceil(ratio*n).",
           .only_with = compression_using("ratio")},
          {.path = "training.grad_compression.error_feedback",
           .type = KeyType::Bool,
           .presence = Presence::Defaulted,
           .default_text = "true",
           .description = "Keep what top-k did not send and add it to the next gradient (two more memory-bound "
                          "passes per bucket).",
           .only_with = compression_using("error_feedback")},
          {.path = "training.grad_compression.bits",
           .type = KeyType::Integer,
           .presence = Presence::Defaulted,
           .default_text = "8",
           .constraint = Constraint::AtLeastOne,
           .counts = "bits",
           .description = "Bits per element QSGD sends, 1 to 32.",
           .only_with = compression_using("bits")},
          {.path = "parallelism.dp",
           .type = KeyType::Integer,
           .presence = Presence::Defaulted,
           .default_text = "1",
           .constraint = Constraint::AtLeastOne,
           .counts = "replicas",
           .description = "Data-parallel degree."},
          {.path = "parallelism.tp",
           .type = KeyType::Integer,
           .presence = Presence::Defaulted,
           .default_text = "1",
           .constraint = Constraint::AtLeastOne,
           .counts = "devices",
           .description = "Tensor-parallel degree (Megatron column/row-parallel attention and MLP); must divide "
                          "workload.heads."},
          {.path = "parallelism.pp",
           .type = KeyType::Integer,
           .presence = Presence::Defaulted,
           .default_text = "1",
           .constraint = Constraint::AtLeastOne,
           .counts = "stages",
           .description = "Pipeline-parallel degree: the layers are split over this many stages."},
          {.path = "parallelism.sequence_parallel",
           .type = KeyType::Bool,
           .presence = Presence::Defaulted,
           .default_text = "false",
           .description = "Sequence parallelism (Korthikanti et al. 2022): each tensor-parallel all-reduce becomes a "
                          "reduce-scatter plus an all-gather, layernorm and dropout are sharded over tp."},
          {.path = "parallelism.virtual_stages",
           .type = KeyType::Integer,
           .presence = Presence::Defaulted,
           .default_text = "1",
           .constraint = Constraint::AtLeastOne,
           .counts = "model chunks per device",
           .description = "Model chunks per device for the interleaved schedule (v); 1 otherwise."},
          {.path = "parallelism.schedule",
           .type = KeyType::Enum,
           .choices = schedule::pipeline_schedule_names(),
           .presence = Presence::Defaulted,
           .default_text = "1f1b",
           .description = schedule_description()},
          {.path = "parallelism.layer_split",
           .type = KeyType::Integer,
           .presence = Presence::Optional,
           .constraint = Constraint::AtLeastOne,
           .counts = "pipeline units",
           .description = "Pipeline units (transformer layers, CNN blocks) of each model chunk in model order "
                          "(pp x virtual_stages entries summing to the workload's units). Absent: "
                          "parallelism.partition decides.",
           .list = true},
          {.path = "parallelism.partition",
           .type = KeyType::Enum,
           .choices = names(kAllStagePartitionChoices, stage_partition_choice_name),
           .presence = Presence::Defaulted,
           .default_text = "auto",
           .description = "How model chunks split the workload's pipeline units when layer_split is absent: even "
                          "(equal counts, Megatron-LM; needs divisibility), balanced (contiguous units with the "
                          "least maximal forward+backward time per chunk, embeddings and heads included), auto "
                          "(the workload type's choice: even for transformers, balanced for CNNs)."},
          {.path = "parallelism.scatter_gather",
           .type = KeyType::Bool,
           .presence = Presence::Defaulted,
           .default_text = "true",
           .description = "Megatron's scatter/gather optimization: activations between stages travel as tp slices "
                          "of b*s*h/tp elements, gathered over NVLink on arrival."},
          {.path = "parallelism.zero_stage",
           .type = KeyType::Integer,
           .presence = Presence::Defaulted,
           .default_text = "0",
           .constraint = Constraint::NonNegative,
           .counts = "stage",
           .description = "ZeRO / FSDP sharding over the data-parallel group: 0 none (gradient all-reduce); 1 "
                          "optimizer states (reduce-scatter after the last micro-batch, optimizer on the shard, "
                          "all-gather of the updated parameters); 2 + gradients (reduce-scatter after every "
                          "micro-batch's backward); 3 + parameters (FULL_SHARD: each layer's parameters "
                          "all-gathered before its forward and again before its backward, prefetched one layer "
                          "ahead on a gather stream; no all-gather after the optimizer; a framework whose "
                          "pipeline stages keep their parameters, torchtitan's FSDP2, gathers once a step and "
                          "reduce-scatters once under pp > 1, docs/parallelism.md)."},
          {.path = "parallelism.shard_group",
           .type = KeyType::Integer,
           .presence = Presence::Derived,
           .default_text = "parallelism.dp (shard over the whole data group)",
           .constraint = Constraint::Positive,
           .counts = "replica",
           .description = "With zero_stage >= 1: shard over groups of this many consecutive data-parallel replicas "
                          "and replicate across the groups (PyTorch FSDP HYBRID_SHARD, FSDP2 HSDP): parameter "
                          "all-gathers and gradient reduce-scatters stay inside a group, then each shard's "
                          "gradient is all-reduced over the replicas holding it. Must divide dp; dp: plain "
                          "ZeRO / FULL_SHARD over the whole data group."},
          {.path = "parallelism.ep",
           .type = KeyType::Integer,
           .presence = Presence::Defaulted,
           .default_text = "1",
           .constraint = Constraint::AtLeastOne,
           .counts = "devices",
           .description = "Expert parallelism (Megatron-LM): a MoE workload's experts are split over ep "
                          "consecutive data-parallel replicas (ep divides dp and the experts); their "
                          "gradients are reduced over the dp/ep replicas that hold the same experts."},
          {.path = "parallelism.order",
           .type = KeyType::String,
           .presence = Presence::Defaulted,
           .default_text = "[tp, pp, dp]",
           .description = "Placement of the device grid: the axes tp, pp, dp from fastest- to slowest-varying "
                          "rank index. The default keeps tensor-parallel groups inside a node.",
           .list = true},
          {.path = "collectives.algorithm",
           .type = KeyType::Enum,
           .choices = algorithm_choices(),
           .presence = Presence::Defaulted,
           .default_text = std::string(collective_algorithm_name(CollectiveAlgorithm::nccl())),
           .description = algorithm_description()},
          {.path = "collectives.fidelity",
           .type = KeyType::Enum,
           .choices = names(kAllFidelityChoices, fidelity_choice_name),
           .presence = Presence::Defaulted,
           .default_text = std::string(fidelity_choice_name(FidelityChoice::Auto)),
           .description = fmt::format(
               "step: every step of an algorithm is a simulated message (O(P^2) events for a ring); fluid: "
               "one flow per link for the whole collective (O(P) events); auto: step up to {} devices, "
               "fluid above (the summary says when it chose fluid).",
               kAutoStepMaxDevices)},
          {.path = "moe.routing",
           .type = KeyType::Enum,
           .choices = names(kAllRoutings, routing_name),
           .presence = Presence::Defaulted,
           .default_text = "balanced",
           .description = "How each MoE layer spreads a micro-batch's tokens over its experts: balanced (every "
                          "expert top_k*tokens/experts), zipf (expert loads proportional to 1/rank^s, the "
                          "ranks a seeded shuffle per layer), trace (loads read from moe.trace)."},
          {.path = "moe.zipf_exponent",
           .type = KeyType::Number,
           .presence = Presence::Defaulted,
           .default_text = "1",
           .constraint = Constraint::NonNegative,
           .description = "s of the zipf routing (0 is balanced).",
           .only_with = {Condition::one_of("moe.routing", {"zipf"})}},
          {.path = "moe.seed",
           .type = KeyType::Integer,
           .presence = Presence::Defaulted,
           .default_text = "0",
           .constraint = Constraint::NonNegative,
           .counts = "seed",
           .description = "Seed of the zipf routing's per-layer shuffle of the experts.",
           .only_with = {Condition::one_of("moe.routing", {"zipf"})}},
          {.path = "moe.trace",
           .type = KeyType::String,
           .description = "A file of expert loads, relative to the scenario: one line per MoE layer (cycled "
                          "when there are fewer lines than layers), one number per expert separated by "
                          "commas (token counts or shares; each line is normalized); '#' starts a comment.",
           .only_with = {Condition::one_of("moe.routing", {"trace"})}},
          {.path = "moe.dispatcher",
           .type = KeyType::Enum,
           .choices = names(kAllDispatchers, dispatcher_name),
           .presence = Presence::Defaulted,
           .default_text = "alltoall",
           .description = "How dispatch and combine move tokens: alltoall (Megatron-Core's all-to-all dispatcher: "
                          "one copy per token and chosen expert) or deepep (DeepEP: one copy per token and "
                          "device holding one of its experts; across nodes one per token and node, sent to the "
                          "rail peer and forwarded over the node's links)."},
          {.path = "moe.dispatch_precision",
           .type = KeyType::Enum,
           .choices = names(kAllDTypes, dtype_name),
           .presence = Presence::Derived,
           .default_text = "the activations' type: training.precision, bf16 when that is fp8",
           .description = "Element type of the tokens the dispatch all-to-all sends (DeepSeek-V3 sends fp8 and "
                          "combines in bf16); the combine always sends the activations' type (bf16 with fp8 "
                          "training, which runs only the weight GEMMs in fp8)."},
          {.path = "stragglers.devices",
           .type = KeyType::Record,
           .presence = Presence::Optional,
           .description = "Devices that compute slower (or faster) than the accelerator file says: every "
                          "compute op of the device (forward, backward, recompute, optimizer, encode "
                          "kernels) lasts `slowdown` times its priced duration; communication is "
                          "unchanged. Absent: no fixed stragglers.",
           .list = true,
           .fields =
               {
                   {.path = "device", .type = KeyType::Integer, .constraint = Constraint::NonNegative,
                    .counts = "device", .description = "Device index, 0 ... devices-1."},
                   {.path = "slowdown", .type = KeyType::Number, .constraint = Constraint::Positive,
                    .description = "Factor on its compute time, 0.01 ... 100 (1.2: 20 % slower)."},
               }},
          {.path = "stragglers.sigma",
           .type = KeyType::Number,
           .presence = Presence::Defaulted,
           .default_text = "0",
           .constraint = Constraint::NonNegative,
           .description = "Noise: every device's compute slowdown is drawn log-normal, exp(sigma * z) with z "
                          "standard normal (at most 1); a device listed in stragglers.devices keeps its "
                          "given factor instead."},
          {.path = "stragglers.seed",
           .type = KeyType::Integer,
           .presence = Presence::Defaulted,
           .default_text = "0",
           .constraint = Constraint::NonNegative,
           .counts = "seed",
           .description = "Seed of the stragglers.sigma draw (the same seed, the same factors on every machine)."},
          {.path = "simulation.granularity",
           .type = KeyType::Enum,
           .choices = names(kAllGranularities, granularity_name),
           .presence = Presence::Defaulted,
           .default_text = std::string(granularity_name(Granularity::Auto)),
           .description = "Ops of a 3D-parallel plan: layer: a compute op and tensor-parallel collectives per "
                          "layer; chunk: one op per run of a model chunk's layers and pass (the same busy "
                          "times, far fewer events), a backward run ending where a data-parallel gradient "
                          "bucket closes, so that its reduction overlaps the backward as at layer "
                          "granularity; auto: chunk when collectives.fidelity is (or auto chooses) fluid, "
                          "else layer."},
      });
}

}  // namespace clearfog::config
