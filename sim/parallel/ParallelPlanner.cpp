#include "parallel/ParallelPlanner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "core/Errors.hpp"
#include "parallel/GridSymmetries.hpp"
#include "parallel/ParameterGathers.hpp"
#include "parallel/PassCosts.hpp"
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
  const PassCosts priced = price_passes(scenario, model, layers, costs, step);
  const double per_layer_params = model.parameters_per_layer() / tp;
  const bool full = training.recompute == config::Recompute::Full;
  // Per-layer backward of micro-batch mb: the accumulation runs at the end (hooks on its gradients).
  const auto layer_accumulate = [&](int mb) { return mb > 0 ? priced.layer_accumulate_s : 0.0; };
  // With pp > 1 the last stage accumulates its own copy of the tied embedding (the logits weight).
  const auto embedding_accumulate = [&](int mb) { return mb > 0 ? priced.embedding_accumulate_s : 0.0; };
  // Megatron: g/f all-reduces of b*s*h elements, 2 in forward and 2 in backward per layer, 2 more in
  // backward when the forward is recomputed.
  const double tp_bytes = static_cast<double>(training.micro_batch) * w.seq_length * w.hidden * element_B;
  step.tp_bytes_per_collective = tp > 1 ? tp_bytes : 0;
  step.tp_collectives_per_layer = tp > 1 ? (full ? 6 : 4) : 0;
  // Between stages each tensor rank sends its 1/t of the activation when the sequence is already
  // sharded (sequence parallelism) or with Narayanan et al.'s scatter/gather, which then re-forms
  // the whole tensor with an all-gather over the receiver's tensor group (NVLink); else the whole
  // b*s*h tensor.
  const bool sharded_p2p = tp > 1 && (par.sequence_parallel || par.scatter_gather);
  const bool regather_p2p = tp > 1 && !par.sequence_parallel && par.scatter_gather;
  step.p2p_bytes = pp > 1 ? tp_bytes / (sharded_p2p ? tp : 1) : 0;
  const PipelineScheduleKind kind = pp == 1 ? PipelineScheduleKind::OneFOneB : schedule_kind(par.schedule);
  const PipelineShape shape{pp, m, kind == PipelineScheduleKind::Interleaved ? v : 1};
  step.ideal_bubble = pp > 1 ? ideal_bubble_fraction(kind, shape) : 0.0;

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

  // ZeRO-2/3 keep only a shard of the accumulated gradients: every micro-batch's backward pass
  // reduce-scatters its own. ZeRO-3 also shards the parameters and gathers them unit by unit.
  const bool reduce_every_pass = par.zero_stage >= 2 && dp > 1;
  const bool gather_parameters = par.zero_stage >= 3 && dp > 1;
  ParameterGathers gathers(step.plan, tags, coll);
  const double embedding_params = model.embedding_parameters() / tp;
  // The last stage's head: the final layernorm plus, with pp > 1, its copy of the tied embedding.
  const double head_params = model.head_parameters() + (pp > 1 ? embedding_params : 0.0);

  // Gradients of each rank, in the order a backward pass produces them: of the whole stage in its
  // last micro-batch (`ready`), of the current pass (`pass_ready`, ZeRO-2/3).
  struct Ready {
    OpIndex op;
    double parameters;
    std::string name;
  };
  std::vector<std::vector<Ready>> ready(grid.size()), pass_ready(grid.size());
  std::vector<std::vector<OpIndex>> last_backward(grid.size());
  std::vector<std::vector<OpIndex>> synced(grid.size());  // reductions the optimizer step waits for

  auto buckets_of = [&](const std::vector<Ready>& list) {
    std::vector<GradientTensor> tensors;
    for (std::size_t i = 0; i < list.size(); ++i)
      tensors.push_back(GradientTensor{list[i].name, list[i].parameters * element_B, static_cast<int>(i)});
    return dp > 1 ? make_gradient_buckets(tensors, training.bucket_size_B) : std::vector<GradientBucket>{};
  };
  // Reduces the gradients listed in `lists` over the data group `group`, bucketed like DDP, on the
  // communication stream; without overlap every bucket waits for the member's last backward op.
  const CollectiveOp reduce_op = par.zero_stage >= 1 ? CollectiveOp::ReduceScatter : CollectiveOp::AllReduce;
  auto reduce_gradients = [&](const std::vector<int>& group, const std::vector<std::vector<Ready>>& lists,
                              const std::string& label) {
    const auto buckets = buckets_of(lists[group.front()]);
    for (std::size_t b = 0; b < buckets.size(); ++b) {
      auto request = coll.request(reduce_op, group, buckets[b].bytes);
      request.stream = Stream::Comm;
      request.category = Category::DataParallelComm;
      request.name = fmt::format("{}.{}.b{}", label, config::collective_op_name(reduce_op), b);
      request.deps.assign(group.size(), {});
      const auto slot = static_cast<std::size_t>(buckets[b].ready_slot);
      for (std::size_t i = 0; i < group.size(); ++i)
        request.deps[i] = training.overlap_grad_reduce ? std::vector<OpIndex>{lists[group[i]][slot].op}
                                                       : last_backward[group[i]];
      const auto reduced = collectives::append_collective(step.plan, request, tags);
      if (b + 1 == buckets.size())
        for (std::size_t i = 0; i < group.size(); ++i) synced[group[i]].push_back(reduced[i]);
    }
  };

  // Stage by stage, pass by pass in schedule order, and replica by replica inside a pass, so that
  // the collectives over a data group (ZeRO) find every member's ops already laid out. Each rank's
  // ops still follow its schedule; point-to-point messages match by tag, whatever the order.
  for (int s = 0; s < pp; ++s) {
    std::vector<std::vector<int>> members(dp);  // tensor group of each replica
    for (int d = 0; d < dp; ++d) {
      members[d] = grid.tensor_group(d, s);
      for (int r : members[d]) step.stage_of_rank[r] = s;
    }
    std::vector<std::vector<OpIndex>> last(dp);  // per replica and member: the latest compute-stream op
    // A compute op on every member of replica d after its latest op and its pending parameter gather.
    auto compute = [&](int d, Category c, const std::string& name, double seconds) {
      auto& after = last[d];
      std::vector<OpIndex> ops(members[d].size());
      for (std::size_t i = 0; i < ops.size(); ++i) {
        std::vector<OpIndex> dep;
        if (!after.empty()) dep.push_back(after[i]);
        if (const auto gathered = gathers.take(members[d][i])) dep.push_back(*gathered);
        ops[i] = step.plan.ranks[members[d][i]].add_compute(Stream::Compute, c, name, seconds, dep);
      }
      after = ops;
    };
    // A Megatron tensor-parallel collective on the compute stream (the critical path).
    auto tensor_collective = [&](int d, const std::string& name, double bytes) {
      if (tp == 1) return;
      const std::vector<CollectiveOp> ops = par.sequence_parallel
                                                ? std::vector<CollectiveOp>{CollectiveOp::ReduceScatter,
                                                                            CollectiveOp::AllGather}
                                                : std::vector<CollectiveOp>{CollectiveOp::AllReduce};
      for (const CollectiveOp op : ops) {
        auto request = coll.request(op, members[d], bytes);
        request.stream = Stream::Compute;
        request.category = Category::TensorParallelComm;
        request.name = fmt::format("{}.{}", name, config::collective_op_name(op));
        request.deps.assign(members[d].size(), {});
        for (std::size_t i = 0; i < members[d].size(); ++i) request.deps[i] = {last[d][i]};
        last[d] = collectives::append_collective(step.plan, request, tags);
      }
    };
    // Activations (direction 0) or their gradients (1) between neighbouring chunks' stages.
    auto receive = [&](int d, int direction, int from_chunk, int mb, const std::string& name) {
      last[d].resize(members[d].size());
      for (std::size_t i = 0; i < members[d].size(); ++i) {
        const int t = static_cast<int>(i);
        const int src = grid.rank(d, stage_of_chunk(from_chunk), t);
        last[d][i] = step.plan.ranks[members[d][i]].add_exchange(
            Stream::Compute, Category::PipelineComm, name, {},
            {program::Transfer{src, step.p2p_bytes, p2p_tag(direction, from_chunk, mb, d, t)}});
      }
      if (!regather_p2p) return;
      auto request = coll.request(CollectiveOp::AllGather, members[d], tp_bytes);
      request.stream = Stream::Compute;
      request.category = Category::PipelineComm;
      request.name = name + ".allgather";
      request.deps.assign(members[d].size(), {});
      for (std::size_t i = 0; i < members[d].size(); ++i) request.deps[i] = {last[d][i]};
      last[d] = collectives::append_collective(step.plan, request, tags);
    };
    auto send = [&](int d, int direction, int k, int to_chunk, int mb, const std::string& name) {
      for (std::size_t i = 0; i < members[d].size(); ++i) {
        const int t = static_cast<int>(i);
        const int dst = grid.rank(d, stage_of_chunk(to_chunk), t);
        step.plan.ranks[members[d][i]].add_exchange(
            Stream::Comm, Category::PipelineComm, name,
            {program::Transfer{dst, step.p2p_bytes, p2p_tag(direction, k, mb, d, t)}}, {}, {last[d][i]});
      }
    };
    // One unit of parameters (a layer, the embedding, the head, a fused chunk) on every replica:
    // under ZeRO-3 each data group first gathers its `params` (per device) and the unit's first
    // compute op waits for them.
    auto unit = [&](double params, const std::string& name, const auto& ops_of_replica) {
      if (gather_parameters)
        for (int t = 0; t < tp; ++t)
          gathers.gather(grid.data_group(s, t), params * element_B, fmt::format("{}.t{}.gather", name, t));
      for (int d = 0; d < dp; ++d) ops_of_replica(d);
      if (gather_parameters)
        for (int d = 0; d < dp; ++d)
          for (std::size_t i = 0; i < members[d].size(); ++i) gathers.release(members[d][i], last[d][i]);
    };

    for (const auto& st : pipeline_schedule(kind, shape, s)) {
      const int k = st.chunk * pp + s;
      const int mb = st.micro_batch;
      const int n_layers = layers[k];
      const int first_layer = std::accumulate(layers.begin(), layers.begin() + k, 0);
      const std::string prefix = fmt::format("mb{}.c{}", mb, k);
      for (auto& l : last) l.clear();
      if (st.pass == PipelineStep::Pass::Forward) {
        if (k > 0) {
          for (int d = 0; d < dp; ++d) receive(d, 0, k - 1, mb, prefix + ".recv_act");
        } else {
          unit(embedding_params, prefix + ".embedding.fwd",
               [&](int d) { compute(d, Category::Forward, prefix + ".embedding.fwd", priced.embedding_fwd_s); });
        }
        if (options.fuse_chunk_layers) {
          unit(n_layers * per_layer_params, prefix + ".layers.fwd", [&](int d) {
            compute(d, Category::Forward, prefix + ".layers.fwd", n_layers * (priced.attn_fwd_s + priced.mlp_fwd_s));
            tensor_collective(d, prefix + ".tp.fwd", 2.0 * n_layers * tp_bytes);
          });
        } else {
          for (int l = first_layer; l < first_layer + n_layers; ++l) {
            unit(per_layer_params, fmt::format("mb{}.L{}.fwd", mb, l), [&](int d) {
              compute(d, Category::Forward, fmt::format("mb{}.L{}.fwd.attn", mb, l), priced.attn_fwd_s);
              tensor_collective(d, fmt::format("mb{}.L{}.fwd.tp1", mb, l), tp_bytes);
              compute(d, Category::Forward, fmt::format("mb{}.L{}.fwd.mlp", mb, l), priced.mlp_fwd_s);
              tensor_collective(d, fmt::format("mb{}.L{}.fwd.tp2", mb, l), tp_bytes);
            });
          }
        }
        if (k == chunks - 1) {
          unit(head_params, prefix + ".head.fwd",
               [&](int d) { compute(d, Category::Forward, prefix + ".head.fwd", priced.head_fwd_s); });
        } else {
          for (int d = 0; d < dp; ++d) send(d, 0, k, k + 1, mb, prefix + ".send_act");
        }
      } else {
        // The gradients of replica d's members are ready after its latest op.
        auto record = [&](int d, double params, const std::string& name) {
          for (std::size_t i = 0; i < members[d].size(); ++i) {
            const Ready g{last[d][i], params, name};
            if (mb == m - 1) ready[members[d][i]].push_back(g);
            if (reduce_every_pass) pass_ready[members[d][i]].push_back(g);
          }
        };
        if (k < chunks - 1) {
          for (int d = 0; d < dp; ++d) receive(d, 1, k + 1, mb, prefix + ".recv_grad");
        } else {
          unit(head_params, prefix + ".head.bwd", [&](int d) {
            compute(d, Category::Backward, prefix + ".head.bwd",
                    priced.head_bwd_s + (pp > 1 ? embedding_accumulate(mb) : 0.0));
            record(d, head_params, "head");
          });
        }
        if (options.fuse_chunk_layers) {
          unit(n_layers * per_layer_params, prefix + ".layers.bwd", [&](int d) {
            if (full) {
              compute(d, Category::Recompute, prefix + ".layers.recompute",
                      n_layers * (priced.attn_fwd_s + priced.mlp_fwd_s));
              tensor_collective(d, prefix + ".tp.recompute", 2.0 * n_layers * tp_bytes);
            } else if (priced.core_s > 0) {
              compute(d, Category::Recompute, prefix + ".layers.recompute", n_layers * priced.core_s);
            }
            compute(d, Category::Backward, prefix + ".layers.bwd",
                    n_layers * (priced.attn_bwd_s + priced.mlp_bwd_s + layer_accumulate(mb)));
            tensor_collective(d, prefix + ".tp.bwd", 2.0 * n_layers * tp_bytes);
            record(d, n_layers * per_layer_params, prefix + ".layers");
          });
        } else {
          for (int l = first_layer + n_layers - 1; l >= first_layer; --l) {
            // The recomputed forward uses the backward's gather.
            unit(per_layer_params, fmt::format("mb{}.L{}.bwd", mb, l), [&](int d) {
              if (full) {
                compute(d, Category::Recompute, fmt::format("mb{}.L{}.re.attn", mb, l), priced.attn_fwd_s);
                tensor_collective(d, fmt::format("mb{}.L{}.re.tp1", mb, l), tp_bytes);
                compute(d, Category::Recompute, fmt::format("mb{}.L{}.re.mlp", mb, l), priced.mlp_fwd_s);
                tensor_collective(d, fmt::format("mb{}.L{}.re.tp2", mb, l), tp_bytes);
              } else if (priced.core_s > 0) {
                compute(d, Category::Recompute, fmt::format("mb{}.L{}.re.core", mb, l), priced.core_s);
              }
              compute(d, Category::Backward, fmt::format("mb{}.L{}.bwd.mlp", mb, l), priced.mlp_bwd_s);
              tensor_collective(d, fmt::format("mb{}.L{}.bwd.tp1", mb, l), tp_bytes);
              compute(d, Category::Backward, fmt::format("mb{}.L{}.bwd.attn", mb, l),
                      priced.attn_bwd_s + layer_accumulate(mb));
              tensor_collective(d, fmt::format("mb{}.L{}.bwd.tp2", mb, l), tp_bytes);
              record(d, per_layer_params, fmt::format("L{}", l));
            });
          }
        }
        if (k == 0) {
          unit(embedding_params, prefix + ".embedding.bwd", [&](int d) {
            compute(d, Category::Backward, prefix + ".embedding.bwd",
                    priced.embedding_bwd_s + embedding_accumulate(mb));
            record(d, embedding_params, "embedding");
          });
        } else {
          for (int d = 0; d < dp; ++d) send(d, 1, k, k - 1, mb, prefix + ".send_grad");
        }
      }
      for (int d = 0; d < dp; ++d)
        for (std::size_t i = 0; i < members[d].size(); ++i) last_backward[members[d][i]] = {last[d][i]};
      if (reduce_every_pass && st.pass == PipelineStep::Pass::Backward) {
        for (int t = 0; t < tp; ++t) {
          const auto group = grid.data_group(s, t);
          reduce_gradients(group, pass_ready, fmt::format("{}.t{}", prefix, t));
          for (int r : group) pass_ready[r].clear();
        }
      }
    }
  }

  // ZeRO 0/1: one reduction (all-reduce or reduce-scatter) of the accumulated gradients per (stage,
  // tensor rank) data group, as the last micro-batch's backward produces them.
  std::vector<std::vector<GradientBucket>> group_buckets(static_cast<std::size_t>(pp * tp));
  for (int s = 0; s < pp; ++s) {
    for (int t = 0; t < tp; ++t) {
      const auto group = grid.data_group(s, t);
      group_buckets[static_cast<std::size_t>(s * tp + t)] = buckets_of(ready[group.front()]);
      if (!reduce_every_pass) reduce_gradients(group, ready, fmt::format("s{}.t{}", s, t));
    }
  }
  step.buckets = group_buckets.front();
  for (const auto& g : ready[grid.data_group(0, 0).front()]) step.gradient_bytes += g.parameters * element_B;
  for (int r = 0; r < grid.size(); ++r)
    synced[r].insert(synced[r].begin(), last_backward[r].begin(), last_backward[r].end());

  // Megatron ties the input embedding (first stage) to the logits weight (last stage): after the
  // data-parallel reduction the two copies' gradients are summed, V/t x h elements per tensor rank;
  // with sharded gradients (ZeRO-2/3) only the rank's 1/dp share exists and is summed.
  if (pp > 1) {
    const double embedding_B = embedding_params * element_B / (reduce_every_pass ? dp : 1);
    for (int d = 0; d < dp; ++d) {
      for (int t = 0; t < tp; ++t) {
        const std::vector<int> pair = {grid.rank(d, 0, t), grid.rank(d, pp - 1, t)};
        // The last stage drains first and then waits for the first one: an empty handshake
        // takes that wait, so it is reported as pipeline drain, not as communication.
        const std::uint64_t tag = tags.allocate(2);
        std::array<OpIndex, 2> ready_to_sum{};
        for (std::size_t i = 0; i < pair.size(); ++i)
          ready_to_sum[i] = step.plan.ranks[pair[i]].add_exchange(
              Stream::Comm, Category::PipelineComm, fmt::format("d{}.t{}.embedding_grad.wait", d, t),
              {program::Transfer{pair[1 - i], 0, tag + i}}, {program::Transfer{pair[1 - i], 0, tag + 1 - i}},
              synced[pair[i]]);
        auto request = coll.request(CollectiveOp::AllReduce, pair, embedding_B);
        request.stream = Stream::Comm;
        request.category = Category::DataParallelComm;
        request.name = fmt::format("d{}.t{}.embedding_grad.allreduce", d, t);
        request.deps = {{ready_to_sum[0]}, {ready_to_sum[1]}};
        const auto done = collectives::append_collective(step.plan, request, tags);
        for (std::size_t i = 0; i < pair.size(); ++i) synced[pair[i]].push_back(done[i]);
      }
    }
  }

  // The optimizer step, then (ZeRO-1/2) the all-gather of the updated parameter shards; ZeRO-3
  // leaves them sharded until the next step's gathers.
  const bool gather_updated = par.zero_stage >= 1 && par.zero_stage <= 2 && dp > 1;
  for (int s = 0; s < pp; ++s) {
    for (int t = 0; t < tp; ++t) {
      const auto group = grid.data_group(s, t);
      std::vector<OpIndex> opt(group.size());
      for (std::size_t i = 0; i < group.size(); ++i)
        opt[i] = step.plan.ranks[group[i]].add_compute(Stream::Compute, Category::Optimizer, "optimizer",
                                                       priced.optimizer_s[s], synced[group[i]]);
      if (!gather_updated) continue;
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
  step.plan.symmetries = grid_symmetries(grid, par, step.plan.rank_count());  // engine hint, may not hold
  return step;
}

}  // namespace clearfog::parallel
