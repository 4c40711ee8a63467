#include "parallel/ParallelPlanner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "core/Errors.hpp"
#include "parallel/PipelineSchedule.hpp"
#include "workload/TransformerModel.hpp"

namespace clearfog::parallel {

using config::CollectiveOp;
using program::Category;
using program::OpIndex;
using program::Stream;

namespace {


PipelineScheduleKind schedule_kind(config::PipelineSchedule s) {
  switch (s) {
    case config::PipelineSchedule::GPipe: return PipelineScheduleKind::GPipe;
    case config::PipelineSchedule::OneFOneB: return PipelineScheduleKind::OneFOneB;
    case config::PipelineSchedule::Interleaved: return PipelineScheduleKind::Interleaved;
  }
  return PipelineScheduleKind::OneFOneB;
}

}  // namespace

GroupCollectives plain_group_collectives(int devices, config::Fidelity fidelity) {
  GroupCollectives c;
  c.endpoints = devices;
  c.request = [fidelity](CollectiveOp op, const std::vector<int>& members, double bytes) {
    collectives::CollectiveRequest q;
    q.op = op;
    q.algorithm = op == CollectiveOp::SendRecv || op == CollectiveOp::AllToAll ? config::CollectiveAlgorithm::Direct
                                                                               : config::CollectiveAlgorithm::Ring;
    q.fidelity = fidelity;
    q.ranks = members;
    q.bytes = bytes;
    return q;
  };
  return c;
}

std::vector<int> chunk_layers(const config::ScenarioSpec& scenario) {
  const auto& par = scenario.parallelism;
  const int chunks = par.pp * par.virtual_stages;
  const int layers = scenario.workload.layers;
  if (!par.layer_split.empty()) {
    if (static_cast<int>(par.layer_split.size()) != chunks ||
        std::accumulate(par.layer_split.begin(), par.layer_split.end(), 0) != layers)
      throw Error(fmt::format("scenario '{}': parallelism.layer_split must have {} entries summing to {}",
                              scenario.name, chunks, layers));
    return par.layer_split;
  }
  if (layers % chunks != 0)
    throw Error(fmt::format("scenario '{}': {} layers cannot be split evenly over pp*virtual_stages = {}",
                            scenario.name, layers, chunks));
  return std::vector<int>(static_cast<std::size_t>(chunks), layers / chunks);
}

StepPlan plan_parallel_step(const config::ScenarioSpec& scenario, const kernels::KernelCostModel& costs,
                            const GroupCollectives& coll, const ParallelPlanOptions& options) {
  const auto& w = scenario.workload;
  const auto& training = scenario.training;
  const auto& par = scenario.parallelism;
  const int tp = par.tp, pp = par.pp, dp = par.dp, v = par.virtual_stages;
  const workload::TransformerModel model(w, training.micro_batch, training.precision,
                                         workload::TensorSharding{tp, par.sequence_parallel}, training.attention);
  const double element_B = dtype_bytes(training.precision);
  const std::vector<int> layers = chunk_layers(scenario);
  const int chunks = pp * v;
  const int m = scenario.micro_batches_per_replica();

  StepPlan step;
  step.tp = tp;
  step.pp = pp;
  step.virtual_stages = v;
  step.micro_batches = m;
  auto price = [&](const std::vector<kernels::Kernel>& kernels, const char* pass) {
    return step.price(costs, kernels, pass);
  };
  const auto fwd_parts = model.layer_forward_parts();
  const auto bwd_parts = model.layer_backward_parts();
  const double embedding_fwd_s = price(model.embedding_forward(), "embedding.forward");
  const double attn_fwd_s = price(fwd_parts[0], "layer.forward.attention");
  const double mlp_fwd_s = price(fwd_parts[1], "layer.forward.mlp");
  const double head_fwd_s = price(model.head_forward(), "head.forward");
  const double head_bwd_s = price(model.head_backward(), "head.backward");
  const double mlp_bwd_s = price(bwd_parts[0], "layer.backward.mlp");
  const double attn_bwd_s = price(bwd_parts[1], "layer.backward.attention");
  const double embedding_bwd_s = price(model.embedding_backward(), "embedding.backward");
  // Without gradient-accumulation fusion every micro-batch after the first adds its weight
  // gradients to the accumulated ones (PyTorch autograd: grad += new, one memory-bound kernel per
  // parameter tensor reading both and writing one, 3e bytes per parameter). Fused, the weight-
  // gradient GEMM accumulates into the buffer itself (C += A.B) at no extra traffic.
  double layer_accumulate_s = 0, embedding_accumulate_s = 0;
  if (!training.grad_accumulation_fusion && m > 1) {
    const double accumulate_B = 3 * element_B;
    std::vector<kernels::Kernel> accumulate;
    for (const auto& g : layer_gradient_tensors(w, 0, 1.0, 0)) {
      const double elements = g.bytes / tp;  // bytes_per_element 1: bytes count elements
      accumulate.push_back(kernels::Kernel::make_memory_bound("grad_accumulate." + g.name.substr(g.name.find('.') + 1),
                                                              elements * accumulate_B, elements, training.precision));
    }
    layer_accumulate_s = price(accumulate, "layer.backward.grad_accumulation");
    const double embedding_elements = model.embedding_parameters() / tp;
    embedding_accumulate_s =
        price({kernels::Kernel::make_memory_bound("grad_accumulate.embedding", embedding_elements * accumulate_B,
                                                  embedding_elements, training.precision)},
              "embedding.backward.grad_accumulation");
  }
  // Per-layer backward of micro-batch mb: the accumulation runs at the end (hooks on its gradients).
  const auto layer_accumulate = [&](int mb) { return mb > 0 ? layer_accumulate_s : 0.0; };
  // With pp > 1 the last stage accumulates its own copy of the tied embedding (the logits weight).
  const auto embedding_accumulate = [&](int mb) { return mb > 0 ? embedding_accumulate_s : 0.0; };
  // Averaged over the micro-batches, for the per-stage figures of reports.
  const double mean_accumulate = m > 1 ? (m - 1.0) / m : 0.0;
  double core_s = 0;
  if (training.recompute == config::Recompute::Selective)
    core_s = price(model.attention_core_forward(), "layer.recompute.attention_core");
  const bool full = training.recompute == config::Recompute::Full;
  const double layer_recompute_s = full ? attn_fwd_s + mlp_fwd_s : core_s;

  // Megatron: g/f all-reduces of b*s*h elements, 2 in forward and 2 in backward per layer, 2 more in
  // backward when the forward is recomputed.
  const double tp_bytes = static_cast<double>(training.micro_batch) * w.seq_length * w.hidden * element_B;
  step.tp_bytes_per_collective = tp > 1 ? tp_bytes : 0;
  step.tp_collectives_per_layer = tp > 1 ? (full ? 6 : 4) : 0;
  step.p2p_bytes = pp > 1 ? tp_bytes / (par.scatter_gather ? tp : 1) : 0;
  const PipelineScheduleKind kind = pp == 1 ? PipelineScheduleKind::OneFOneB : schedule_kind(par.schedule);
  const PipelineShape shape{pp, m, kind == PipelineScheduleKind::Interleaved ? v : 1};
  step.ideal_bubble = pp > 1 ? ideal_bubble_fraction(kind, shape) : 0.0;

  // Per device work of the busiest stage, for reports.
  const double per_layer_params = model.parameters_per_layer() / tp;
  std::vector<double> stage_fwd(pp, 0), stage_bwd(pp, 0), stage_rec(pp, 0), stage_params(pp, 0);
  for (int k = 0; k < chunks; ++k) {
    const int s = k % pp;
    stage_fwd[s] += layers[k] * (attn_fwd_s + mlp_fwd_s);
    stage_bwd[s] += layers[k] * (attn_bwd_s + mlp_bwd_s + layer_recompute_s + mean_accumulate * layer_accumulate_s);
    stage_rec[s] += layers[k] * layer_recompute_s;
    stage_params[s] += layers[k] * per_layer_params;
  }
  stage_fwd[0] += embedding_fwd_s;
  stage_bwd[0] += embedding_bwd_s + mean_accumulate * embedding_accumulate_s;
  stage_fwd[pp - 1] += head_fwd_s;
  stage_bwd[pp - 1] += head_bwd_s + (pp > 1 ? mean_accumulate * embedding_accumulate_s : 0.0);
  stage_params[0] += model.embedding_parameters() / tp;
  if (pp > 1) stage_params[pp - 1] += model.embedding_parameters() / tp;  // tied logits copy
  stage_params[pp - 1] += model.head_parameters();
  int busiest = 0;
  for (int s = 0; s < pp; ++s)
    if (stage_fwd[s] + stage_bwd[s] > stage_fwd[busiest] + stage_bwd[busiest]) busiest = s;
  step.forward_s = stage_fwd[busiest];
  step.backward_s = stage_bwd[busiest];
  step.recompute_s = stage_rec[busiest];

  const auto& accelerator = scenario.platform.accelerator;
  const DType update_dtype = accelerator.supports(DType::fp32) ? DType::fp32 : training.precision;
  const bool adam = training.optimizer == config::Optimizer::Adam;
  const double optimizer_shard = par.zero_stage >= 1 ? dp : 1;
  std::vector<double> optimizer_s(pp);
  for (int s = 0; s < pp; ++s)
    optimizer_s[s] = costs.cost(workload::TransformerModel::optimizer_step(stage_params[s] / optimizer_shard, adam,
                                                                           training.precision, update_dtype))
                         .time_s;
  step.optimizer_s = *std::max_element(optimizer_s.begin(), optimizer_s.end());

  const DeviceGrid grid(par);
  step.plan.ranks.resize(std::max(grid.size(), coll.endpoints));
  step.stage_of_rank.assign(grid.size(), 0);
  collectives::TagAllocator tags;
  // Point-to-point tags: one per (direction, source chunk, micro-batch, replica, tensor rank).
  const std::uint64_t p2p_base = tags.allocate(2ull * chunks * m * dp * tp);
  auto p2p_tag = [&](int direction, int chunk, int mb, int d, int t) {
    return p2p_base + ((((static_cast<std::uint64_t>(direction) * chunks + chunk) * m + mb) * dp + d) * tp + t);
  };
  auto stage_of_chunk = [&](int k) { return k % pp; };

  // Gradients of each rank, in the order its last micro-batch's backward produces them.
  struct Ready {
    OpIndex op;
    double parameters;
    std::string name;
  };
  std::vector<std::vector<Ready>> ready(grid.size());
  std::vector<std::vector<OpIndex>> last_backward(grid.size());

  for (int d = 0; d < dp; ++d) {
    for (int s = 0; s < pp; ++s) {
      const std::vector<int> members = grid.tensor_group(d, s);
      for (int r : members) step.stage_of_rank[r] = s;
      const auto order = pipeline_schedule(kind, shape, s);
      // Adds a compute op on every member, each depending on `deps[i]`; returns the ops.
      auto compute = [&](Category c, const std::string& name, double seconds, const std::vector<OpIndex>& deps) {
        std::vector<OpIndex> ops(members.size());
        for (std::size_t i = 0; i < members.size(); ++i) {
          std::vector<OpIndex> dep;
          if (!deps.empty()) dep.push_back(deps[i]);
          ops[i] = step.plan.ranks[members[i]].add_compute(Stream::Compute, c, name, seconds, dep);
        }
        return ops;
      };
      // A Megatron tensor-parallel collective on the compute stream (the critical path).
      auto tensor_collective = [&](const std::string& name, double bytes, std::vector<OpIndex> after) {
        if (tp == 1) return after;
        const std::vector<CollectiveOp> ops = par.sequence_parallel
                                                  ? std::vector<CollectiveOp>{CollectiveOp::ReduceScatter,
                                                                              CollectiveOp::AllGather}
                                                  : std::vector<CollectiveOp>{CollectiveOp::AllReduce};
        for (const CollectiveOp op : ops) {
          auto request = coll.request(op, members, bytes);
          request.stream = Stream::Compute;
          request.category = Category::TensorParallelComm;
          request.name = fmt::format("{}.{}", name, config::collective_op_name(op));
          request.deps.assign(members.size(), {});
          for (std::size_t i = 0; i < members.size(); ++i) request.deps[i] = {after[i]};
          after = collectives::append_collective(step.plan, request, tags);
        }
        return after;
      };

      for (const auto& st : order) {
        const int k = st.chunk * pp + s;
        const int mb = st.micro_batch;
        const int n_layers = layers[k];
        const int first_layer = std::accumulate(layers.begin(), layers.begin() + k, 0);
        const std::string prefix = fmt::format("mb{}.c{}", mb, k);
        std::vector<OpIndex> last;
        if (st.pass == PipelineStep::Pass::Forward) {
          if (k > 0) {
            last.resize(members.size());
            for (std::size_t i = 0; i < members.size(); ++i) {
              const int t = static_cast<int>(i);
              const int src = grid.rank(d, stage_of_chunk(k - 1), t);
              last[i] = step.plan.ranks[members[i]].add_exchange(
                  Stream::Compute, Category::PipelineComm, prefix + ".recv_act", {},
                  {program::Transfer{src, step.p2p_bytes, p2p_tag(0, k - 1, mb, d, t)}});
            }
          } else {
            last = compute(Category::Forward, prefix + ".embedding.fwd", embedding_fwd_s, {});
          }
          if (options.fuse_chunk_layers) {
            last = compute(Category::Forward, prefix + ".layers.fwd", n_layers * (attn_fwd_s + mlp_fwd_s), last);
            last = tensor_collective(prefix + ".tp.fwd", 2.0 * n_layers * tp_bytes, last);
          } else {
            for (int l = first_layer; l < first_layer + n_layers; ++l) {
              last = compute(Category::Forward, fmt::format("mb{}.L{}.fwd.attn", mb, l), attn_fwd_s, last);
              last = tensor_collective(fmt::format("mb{}.L{}.fwd.tp1", mb, l), tp_bytes, last);
              last = compute(Category::Forward, fmt::format("mb{}.L{}.fwd.mlp", mb, l), mlp_fwd_s, last);
              last = tensor_collective(fmt::format("mb{}.L{}.fwd.tp2", mb, l), tp_bytes, last);
            }
          }
          if (k == chunks - 1) {
            last = compute(Category::Forward, prefix + ".head.fwd", head_fwd_s, last);
          } else {
            for (std::size_t i = 0; i < members.size(); ++i) {
              const int t = static_cast<int>(i);
              const int dst = grid.rank(d, stage_of_chunk(k + 1), t);
              step.plan.ranks[members[i]].add_exchange(
                  Stream::Comm, Category::PipelineComm, prefix + ".send_act",
                  {program::Transfer{dst, step.p2p_bytes, p2p_tag(0, k, mb, d, t)}}, {}, {last[i]});
            }
          }
        } else {
          const bool final_mb = mb == m - 1;
          auto record = [&](const std::vector<OpIndex>& ops, double params, const std::string& name) {
            if (!final_mb) return;
            for (std::size_t i = 0; i < members.size(); ++i)
              ready[members[i]].push_back(Ready{ops[i], params, name});
          };
          if (k < chunks - 1) {
            last.resize(members.size());
            for (std::size_t i = 0; i < members.size(); ++i) {
              const int t = static_cast<int>(i);
              const int src = grid.rank(d, stage_of_chunk(k + 1), t);
              last[i] = step.plan.ranks[members[i]].add_exchange(
                  Stream::Compute, Category::PipelineComm, prefix + ".recv_grad", {},
                  {program::Transfer{src, step.p2p_bytes, p2p_tag(1, k + 1, mb, d, t)}});
            }
          } else {
            last = compute(Category::Backward, prefix + ".head.bwd",
                           head_bwd_s + (pp > 1 ? embedding_accumulate(mb) : 0.0), last);
            record(last, model.head_parameters() + (pp > 1 ? model.embedding_parameters() / tp : 0.0), "head");
          }
          if (options.fuse_chunk_layers) {
            if (full) {
              last = compute(Category::Recompute, prefix + ".layers.recompute", n_layers * (attn_fwd_s + mlp_fwd_s),
                             last);
              last = tensor_collective(prefix + ".tp.recompute", 2.0 * n_layers * tp_bytes, last);
            } else if (core_s > 0) {
              last = compute(Category::Recompute, prefix + ".layers.recompute", n_layers * core_s, last);
            }
            last = compute(Category::Backward, prefix + ".layers.bwd",
                           n_layers * (attn_bwd_s + mlp_bwd_s + layer_accumulate(mb)), last);
            last = tensor_collective(prefix + ".tp.bwd", 2.0 * n_layers * tp_bytes, last);
            record(last, n_layers * per_layer_params, prefix + ".layers");
          } else {
            for (int l = first_layer + n_layers - 1; l >= first_layer; --l) {
              if (full) {
                last = compute(Category::Recompute, fmt::format("mb{}.L{}.re.attn", mb, l), attn_fwd_s, last);
                last = tensor_collective(fmt::format("mb{}.L{}.re.tp1", mb, l), tp_bytes, last);
                last = compute(Category::Recompute, fmt::format("mb{}.L{}.re.mlp", mb, l), mlp_fwd_s, last);
                last = tensor_collective(fmt::format("mb{}.L{}.re.tp2", mb, l), tp_bytes, last);
              } else if (core_s > 0) {
                last = compute(Category::Recompute, fmt::format("mb{}.L{}.re.core", mb, l), core_s, last);
              }
              last = compute(Category::Backward, fmt::format("mb{}.L{}.bwd.mlp", mb, l), mlp_bwd_s, last);
              last = tensor_collective(fmt::format("mb{}.L{}.bwd.tp1", mb, l), tp_bytes, last);
              last = compute(Category::Backward, fmt::format("mb{}.L{}.bwd.attn", mb, l),
                             attn_bwd_s + layer_accumulate(mb), last);
              last = tensor_collective(fmt::format("mb{}.L{}.bwd.tp2", mb, l), tp_bytes, last);
              record(last, per_layer_params, fmt::format("L{}", l));
            }
          }
          if (k == 0) {
            last = compute(Category::Backward, prefix + ".embedding.bwd", embedding_bwd_s + embedding_accumulate(mb),
                           last);
            record(last, model.embedding_parameters() / tp, "embedding");
          } else {
            for (std::size_t i = 0; i < members.size(); ++i) {
              const int t = static_cast<int>(i);
              const int dst = grid.rank(d, stage_of_chunk(k - 1), t);
              step.plan.ranks[members[i]].add_exchange(
                  Stream::Comm, Category::PipelineComm, prefix + ".send_grad",
                  {program::Transfer{dst, step.p2p_bytes, p2p_tag(1, k, mb, d, t)}}, {}, {last[i]});
            }
          }
        }
        for (std::size_t i = 0; i < members.size(); ++i) last_backward[members[i]] = {last[i]};
      }
    }
  }

  // Gradient reduction per (stage, tensor rank) data-parallel group, bucketed like DDP; ZeRO 1/2/3
  // reduce-scatter the buckets. Without overlap every bucket waits for the rank's last backward op.
  std::vector<std::vector<OpIndex>> synced(grid.size());  // what the optimizer step waits for
  for (int r = 0; r < grid.size(); ++r) synced[r] = last_backward[r];
  std::vector<std::vector<GradientBucket>> group_buckets(static_cast<std::size_t>(pp * tp));
  const CollectiveOp reduce_op = par.zero_stage >= 1 ? CollectiveOp::ReduceScatter : CollectiveOp::AllReduce;
  for (int s = 0; s < pp; ++s) {
    for (int t = 0; t < tp; ++t) {
      const auto group = grid.data_group(s, t);
      const auto& list = ready[group.front()];
      std::vector<GradientTensor> tensors;
      for (std::size_t i = 0; i < list.size(); ++i)
        tensors.push_back(GradientTensor{list[i].name, list[i].parameters * element_B, static_cast<int>(i)});
      auto& buckets = group_buckets[static_cast<std::size_t>(s * tp + t)];
      if (dp > 1) buckets = make_gradient_buckets(tensors, training.bucket_size_B);
      if (s == 0 && t == 0) {
        step.buckets = buckets;
        step.gradient_bytes = std::accumulate(tensors.begin(), tensors.end(), 0.0,
                                              [](double a, const GradientTensor& g) { return a + g.bytes; });
      }
      for (std::size_t b = 0; b < buckets.size(); ++b) {
        auto request = coll.request(reduce_op, group, buckets[b].bytes);
        request.stream = Stream::Comm;
        request.category = Category::DataParallelComm;
        request.name = fmt::format("s{}.t{}.{}.b{}", s, t, config::collective_op_name(reduce_op), b);
        request.deps.assign(group.size(), {});
        for (std::size_t i = 0; i < group.size(); ++i)
          request.deps[i] = training.overlap_grad_reduce
                                ? std::vector<OpIndex>{ready[group[i]][static_cast<std::size_t>(buckets[b].ready_slot)].op}
                                : last_backward[group[i]];
        const auto reduced = collectives::append_collective(step.plan, request, tags);
        if (b + 1 == buckets.size())
          for (std::size_t i = 0; i < group.size(); ++i) synced[group[i]].push_back(reduced[i]);
      }
    }
  }

  // Megatron ties the input embedding (first stage) to the logits weight (last stage): after the
  // data-parallel reduction the two copies' gradients are summed, V/t x h elements per tensor rank.
  if (pp > 1) {
    const double embedding_B = model.embedding_parameters() / tp * element_B;
    for (int d = 0; d < dp; ++d) {
      for (int t = 0; t < tp; ++t) {
        const std::vector<int> pair = {grid.rank(d, 0, t), grid.rank(d, pp - 1, t)};
        auto request = coll.request(CollectiveOp::AllReduce, pair, embedding_B);
        request.stream = Stream::Comm;
        request.category = Category::DataParallelComm;
        request.name = fmt::format("d{}.t{}.embedding_grad.allreduce", d, t);
        request.deps = {synced[pair[0]], synced[pair[1]]};
        const auto done = collectives::append_collective(step.plan, request, tags);
        for (std::size_t i = 0; i < pair.size(); ++i) synced[pair[i]].push_back(done[i]);
      }
    }
  }

  // The optimizer step, then (ZeRO) the all-gather of the updated parameter shards.
  for (int s = 0; s < pp; ++s) {
    for (int t = 0; t < tp; ++t) {
      const auto group = grid.data_group(s, t);
      std::vector<OpIndex> opt(group.size());
      for (std::size_t i = 0; i < group.size(); ++i)
        opt[i] = step.plan.ranks[group[i]].add_compute(Stream::Compute, Category::Optimizer, "optimizer",
                                                       optimizer_s[s], synced[group[i]]);
      if (par.zero_stage >= 1 && dp > 1) {
        const auto& buckets = group_buckets[static_cast<std::size_t>(s * tp + t)];
        for (std::size_t b = 0; b < buckets.size(); ++b) {
          auto request = coll.request(CollectiveOp::AllGather, group, buckets[b].bytes);
          request.stream = Stream::Comm;
          request.category = Category::DataParallelComm;
          request.name = fmt::format("s{}.t{}.allgather.b{}", s, t, b);
          request.deps.assign(group.size(), {});
          for (std::size_t i = 0; i < group.size(); ++i) request.deps[i] = {opt[i]};
          collectives::append_collective(step.plan, request, tags);
        }
      }
    }
  }
  return step;
}

}  // namespace clearfog::parallel
