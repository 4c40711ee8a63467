// Phase 2 of the step planner: each stage's passes in its schedule's order — the pipeline
// receives and sends around each pass, its blocks' compute ops and the tensor- and
// expert-parallel collectives between them, ZeRO-3 gathers per unit, and the gradients each pass
// completes (docs/parallelism.md, docs/pipeline-schedules.md).
#include <fmt/format.h>

#include <algorithm>

#include "core/Errors.hpp"
#include "parallel/StepPlanner.hpp"

namespace clearfog::parallel::detail {

using program::Category;
using program::OpIndex;
using program::Stream;
using Pass = schedule::PipelineStep::Pass;

// ---- Phase 2: passes ---------------------------------------------------------------------------

void StepPlanner::lay_out_stage(int s) {
  // Held parameters are the stage's own: a chunk DualPipe places on two stages is gathered on each.
  std::fill(gathered_.begin(), gathered_.end(), false);
  const GradientBucketPacker packer(scenario_.training.bucket_size_B);
  reduction_packers_.assign(2, packer);
  members_.assign(static_cast<std::size_t>(dp_), {});
  last_.assign(static_cast<std::size_t>(dp_), {});
  replica_kind_.assign(static_cast<std::size_t>(dp_), 0);
  for (int d = 0; d < dp_; ++d) {
    members_[d] = grid_.tensor_group(d, s);
    for (int r : members_[d]) step_.stage_of_rank[r] = s;
    replica_kind_[d] = scenario_.platform.kind_of_device(members_[d].front());
    for (int r : members_[d])
      if (scenario_.platform.kind_of_device(r) != replica_kind_[d])
        throw Error(fmt::format("the tensor group of devices {} to {} spans both kinds of device of the mixed "
                                "platform; its ranks must share one kind (keep tensor groups inside nodes, or list "
                                "their nodes together in platform.mixed.nodes)",
                                members_[d].front(), members_[d].back()));
  }
  const auto order = schedule::pipeline_order(schedule_, shape_, s);
  // Each local chunk's first and last passes that complete gradients (a whole backward or a W):
  // the first writes the gradients, the others accumulate; the last makes them ready to reduce.
  const auto completes = [](const auto& st) { return st.pass == Pass::Backward || st.pass == Pass::BackwardWeight; };
  std::vector<int> first(static_cast<std::size_t>(placement_.chunks_per_device()), -1), final = first;
  for (std::size_t i = 0; i < order.size(); ++i)
    if (completes(order[i])) {
      if (first[order[i].chunk] < 0) first[order[i].chunk] = order[i].micro_batch;
      final[order[i].chunk] = order[i].micro_batch;
    }
  const auto pass_of = [&](const schedule::PipelineStep& st) {
    return ChunkPass{st.pass, placement_.model_chunk(s, st.chunk), st.micro_batch, st.micro_batch == first[st.chunk],
                     st.micro_batch == final[st.chunk]};
  };
  for (std::size_t i = 0; i < order.size(); ++i) {
    for (auto& l : last_) l.clear();
    std::vector<ChunkPass> unit{pass_of(order[i])};
    // DualPipe's F&B: both passes' inputs received first, their outputs sent once both are done.
    if (order[i].overlaps_next && i + 1 < order.size()) unit.push_back(pass_of(order[++i]));
    for (const auto& pass : unit) receive_inputs(s, pass);
    // Under ZeRO-3 each unit's compute waits for its gather, which the interleaving would reorder.
    if (unit.size() == 2 && !gather_parameters_ && options_.overlap_forward_backward)
      run_overlapped(s, unit[0], unit[1]);
    else
      for (const auto& pass : unit) run_body(s, pass);
    for (const auto& pass : unit) send_outputs(s, pass);
    for (const auto& pass : unit) {
      // The gradients of this chunk are complete after a whole backward or its W.
      if (!completes(pass)) continue;
      for (int d = 0; d < dp_; ++d)
        for (std::size_t r = 0; r < members_[d].size(); ++r) last_backward_[members_[d][r]] = {last_[d][r]};
      if (!reduce_every_pass_) continue;
      reduce_pass_gradients(s, fmt::format("mb{}.c{}", pass.micro_batch, pass.chunk));
      reduction_packers_.assign(2, packer);
    }
  }
  if (compressing()) close_compressed_buckets(s);
}

void StepPlanner::receive_inputs(int s, const ChunkPass& pass) {
  const std::string prefix = fmt::format("mb{}.c{}", pass.micro_batch, pass.chunk);
  if (pass.pass == Pass::Forward && pass.chunk > 0)
    for (int d = 0; d < dp_; ++d) receive(s, d, 0, pass.chunk - 1, pass.micro_batch, prefix + ".recv_act");
  const bool backward = pass.pass == Pass::Backward || pass.pass == Pass::BackwardInput;
  if (backward && pass.chunk < chunks_ - 1)
    for (int d = 0; d < dp_; ++d) receive(s, d, 1, pass.chunk + 1, pass.micro_batch, prefix + ".recv_grad");
}

void StepPlanner::send_outputs(int s, const ChunkPass& pass) {
  const std::string prefix = fmt::format("mb{}.c{}", pass.micro_batch, pass.chunk);
  const int k = pass.chunk;
  if (pass.pass == Pass::Forward && k < chunks_ - 1)
    for (int d = 0; d < dp_; ++d) send(s, d, 0, k, k + 1, pass.micro_batch, prefix + ".send_act");
  const bool backward = pass.pass == Pass::Backward || pass.pass == Pass::BackwardInput;
  if (backward && k > 0)
    for (int d = 0; d < dp_; ++d) send(s, d, 1, k, k - 1, pass.micro_batch, prefix + ".send_grad");
}

void StepPlanner::run_body(int s, const ChunkPass& pass) {
  first_pass_ = pass.first;
  final_pass_ = pass.final;
  switch (pass.pass) {
    case Pass::Forward: forward_chunk(s, pass.chunk, pass.micro_batch); break;
    case Pass::Backward: backward_chunk(s, pass.chunk, pass.micro_batch, BackwardPart::Whole); break;
    case Pass::BackwardInput: backward_chunk(s, pass.chunk, pass.micro_batch, BackwardPart::Input); break;
    case Pass::BackwardWeight: weight_chunk(s, pass.chunk, pass.micro_batch); break;
  }
}

std::vector<double> StepPlanner::replica_times(const PricedSegment& segment, BackwardPart part) const {
  const auto time = [&](double whole, double weight) {
    return part == BackwardPart::Whole ? whole : part == BackwardPart::Input ? whole - weight : weight;
  };
  std::vector<double> t(static_cast<std::size_t>(dp_), 0.0);
  for (int d = 0; d < dp_; ++d) {
    const PricedSegment& g = mixed_replica(d) ? *counterpart_.at(&segment) : segment;
    t[d] = g.time_by_expert_rank.empty() ? time(g.time_s, g.weight_s)
                                         : time(g.time_by_expert_rank[d % ep_], g.weight_by_expert_rank[d % ep_]);
  }
  return t;
}

std::vector<double> StepPlanner::accumulate_times(std::size_t block, double scale) const {
  std::vector<double> t(static_cast<std::size_t>(dp_), scale * accumulate_s_[block]);
  for (int d = 0; d < dp_; ++d)
    if (mixed_replica(d)) t[d] = scale * mixed_accumulate_s_[block];
  return t;
}

void StepPlanner::add_times(std::vector<double>& into, const std::vector<double>& more, double scale) {
  for (std::size_t d = 0; d < into.size(); ++d) into[d] += scale * more[d];
}

std::size_t StepPlanner::segment_kernels(const PricedSegment& segment, BackwardPart part) const {
  // A split backward's W runs the weight-gradient kernels, its B the others.
  return part == BackwardPart::Whole   ? segment.kernels
         : part == BackwardPart::Input ? segment.kernels - segment.weight_kernels
                                       : segment.weight_kernels;
}

std::size_t StepPlanner::pass_kernels(std::size_t block, bool forward, BackwardPart part) const {
  std::size_t n = 0;
  for (const auto& seg : forward ? costs_.of(block).forward : costs_.of(block).backward) n += segment_kernels(seg, part);
  return n;
}

std::size_t StepPlanner::accumulate_kernels(std::size_t block, double scale) const {
  return scale > 0 && accumulate_s_[block] > 0 ? own_params_[block].size() : 0;  // one add per tensor
}

std::vector<double> StepPlanner::pass_times(std::size_t block, bool forward, BackwardPart part) const {
  std::vector<double> t(static_cast<std::size_t>(dp_), 0.0);
  const auto& price = costs_.of(block);
  for (const auto& seg : forward ? price.forward : price.backward) add_times(t, replica_times(seg, part));
  return t;
}

void StepPlanner::forward_chunk(int s, int k, int mb) {
  const std::string prefix = fmt::format("mb{}.c{}", mb, k);
  host_wait(prefix + ".host");
  const auto& range = chunk_blocks_[k];
  for (std::size_t b = range.begin; b < range.end;) {
    if (options_.fuse_chunk_layers && model_.blocks[b].checkpointable) {
      std::size_t e = b;
      std::vector<double> seconds(static_cast<std::size_t>(dp_), 0.0);
      std::vector<workload::CommPoint> points;
      std::size_t kernels = 0;
      for (; e < range.end && model_.blocks[e].checkpointable; ++e) {
        add_times(seconds, pass_times(e, true));
        kernels += pass_kernels(e, true);
        for (const auto& seg : costs_.of(e).forward) points.push_back(seg.comm);
      }
      unit(s, b, e, prefix + ".layers.fwd", Category::Forward, [&] {
        compute(Category::Forward, prefix + ".layers.fwd", seconds, kernels);
        collectives(points, prefix + ".tp.fwd");
      });
      b = e;
      continue;
    }
    const std::string name = fmt::format("mb{}.{}.fwd", mb, model_.blocks[b].name);
    const std::vector<double> none(static_cast<std::size_t>(dp_), 0.0);
    unit(s, b, b + 1, name, Category::Forward, [&] { run_segments(costs_.of(b).forward, Category::Forward, name, none); });
    ++b;
  }
}

void StepPlanner::backward_chunk(int s, int k, int mb, BackwardPart part) {
  const std::string prefix = fmt::format("mb{}.c{}", mb, k);
  // Unfused accumulation: every micro-batch after the first adds its gradients to the sum, the
  // first casts them into a wider one (in W where the backward is split).
  const double accumulating = part != BackwardPart::Whole ? 0.0 : first_pass_ ? accumulation_.first_share : 1.0;
  const bool gradients_done = part == BackwardPart::Whole;
  const std::string bwd = part == BackwardPart::Whole ? ".bwd" : ".bwd_input";
  const auto& range = chunk_blocks_[k];
  for (std::size_t end = range.end; end > range.begin;) {
    const std::size_t last = end - 1;
    if (options_.fuse_chunk_layers && model_.blocks[last].checkpointable) {
      std::size_t first = last;
      while (first > range.begin && model_.blocks[first - 1].checkpointable) --first;
      if (gradients_done) first = bucket_run_start(first, last);
      const FusedRun run = fused_run(first, last, part, accumulating);
      unit(s, first, last + 1, prefix + ".layers" + bwd, Category::Backward, [&] {
        recompute_run(run, prefix);
        compute(Category::Backward, prefix + ".layers" + bwd, run.backward_s, run.backward_kernels);
        collectives(run.backward_points, prefix + ".tp.bwd");
        if (gradients_done)
          for (std::size_t b = last + 1; b-- > first;) record_gradients(b, units_);
      });
      end = first;
      continue;
    }
    const auto& price = costs_.of(last);
    const std::string name = fmt::format("mb{}.{}", mb, model_.blocks[last].name);
    unit(s, last, last + 1, name + bwd, Category::Backward, [&] {
      recompute_block(last, name);
      run_segments(price.backward, Category::Backward, name + bwd, accumulate_times(last, accumulating), part,
                   accumulate_kernels(last, accumulating));
      if (gradients_done) record_gradients(last, units_);
    });
    end = last;
  }
}

void StepPlanner::weight_chunk(int s, int k, int mb) {
  // The W pass of a split backward: the chunk's weight-gradient kernels and the unfused
  // accumulation, one compute op per block (per fused run of layers), no communication. Under
  // ZeRO-3 the weights are not needed (dW = X^T dY), so nothing is gathered.
  (void)s;
  const std::string prefix = fmt::format("mb{}.c{}", mb, k);
  const double accumulating = first_pass_ ? accumulation_.first_share : 1.0;
  const auto& range = chunk_blocks_[k];
  const auto zeros = std::vector<double>(static_cast<std::size_t>(dp_), 0.0);
  for (std::size_t end = range.end; end > range.begin;) {
    std::size_t first = end - 1;
    if (options_.fuse_chunk_layers && model_.blocks[first].checkpointable) {
      while (first > range.begin && model_.blocks[first - 1].checkpointable) --first;
      first = bucket_run_start(first, end - 1);
    }
    std::vector<double> seconds = zeros;
    std::size_t kernels = 0;
    for (std::size_t b = first; b < end; ++b) {
      add_times(seconds, pass_times(b, false, BackwardPart::Weight));
      add_times(seconds, accumulate_times(b, accumulating));
      kernels += pass_kernels(b, false, BackwardPart::Weight) + accumulate_kernels(b, accumulating);
    }
    const std::string name =
        end - first > 1 || options_.fuse_chunk_layers ? prefix + ".layers.wgrad"
                                                      : fmt::format("mb{}.{}.wgrad", mb, model_.blocks[first].name);
    compute(Category::Backward, name, seconds, kernels);
    for (std::size_t b = end; b-- > first;) record_gradients(b, units_);
    ++units_;
    end = first;
  }
}

void StepPlanner::run_segments(const std::vector<PricedSegment>& segments, Category category,
                               const std::string& prefix, const std::vector<double>& extra_s, BackwardPart part,
                               std::size_t extra_kernels) {
  // Segments run back to back share one compute op until a collective separates them.
  struct Group {
    std::string name;
    std::vector<double> time_s;
    std::size_t kernels = 0;   // of the segments (what makes a group compute)
    std::size_t launched = 0;  // of them, the ones this pass runs (a split backward's part)
    const workload::CommPoint* comm = nullptr;
  };
  const auto zeros = std::vector<double>(static_cast<std::size_t>(dp_), 0.0);
  std::vector<Group> groups(1, Group{"", zeros, 0, 0, nullptr});
  for (const auto& seg : segments) {
    auto& g = groups.back();
    if (g.kernels == 0 && seg.kernels > 0) g.name = seg.name;
    add_times(g.time_s, replica_times(seg, part));
    g.kernels += seg.kernels;
    g.launched += segment_kernels(seg, part);
    if (seg.comm.active()) {
      g.comm = &seg.comm;
      groups.push_back(Group{"", zeros, 0, 0, nullptr});
    }
  }
  const auto computing = std::count_if(groups.begin(), groups.end(), [](const Group& g) { return g.kernels > 0; });
  std::size_t last_computing = groups.size();
  for (std::size_t i = 0; i < groups.size(); ++i)
    if (groups[i].kernels > 0) last_computing = i;
  const bool extra = std::any_of(extra_s.begin(), extra_s.end(), [](double t) { return t > 0; });
  if (last_computing == groups.size() && extra) {  // nothing else to carry it
    groups.back().kernels = 1;
    last_computing = groups.size() - 1;
  }
  for (std::size_t i = 0; i < groups.size(); ++i) {
    auto& g = groups[i];
    if (g.kernels > 0) {
      if (i == last_computing) {
        add_times(g.time_s, extra_s);
        g.launched += extra_kernels;
      }
      compute(category, computing > 1 ? prefix + "." + g.name : prefix, g.time_s, g.launched);
    }
    if (g.comm) collectives({*g.comm}, prefix + "." + g.comm->name);
  }
}

void StepPlanner::compute(Category category, const std::string& name, const std::vector<double>& seconds,
                          std::size_t kernels, bool wait_for_gathers) {
  if (recording_) {
    recording_->push_back({[=, this] { compute(category, name, seconds, kernels, wait_for_gathers); }, true});
    return;
  }
  for (int d = 0; d < dp_; ++d) {
    auto& after = last_[d];
    std::vector<OpIndex> ops(members_[d].size());
    for (std::size_t i = 0; i < ops.size(); ++i) {
      std::vector<OpIndex> dep;
      if (!after.empty()) dep.push_back(after[i]);
      const auto gathered = wait_for_gathers ? gathers_->take(members_[d][i]) : std::nullopt;
      if (gathered) dep.push_back(*gathered);
      if (const auto launched = host_->launch(members_[d][i], category, kernels, seconds[d])) dep.push_back(*launched);
      ops[i] = step_.plan.ranks[members_[d][i]].add_compute(Stream::Compute, category, name, seconds[d], dep);
    }
    after = ops;
  }
}

std::vector<double> StepPlanner::gathered_elements(std::size_t first, std::size_t end) const {
  // FSDP: one flat parameter per unit. DeepSpeed ZeRO-3: each tensor of at least the persistence
  // threshold is fetched by a collective of its own; smaller ones stay whole on every rank.
  const auto& sharding = scenario_.framework.sharding;
  std::vector<double> out;
  double flat = 0;
  for (std::size_t b = first; b < end; ++b)
    for (const auto& p : own_params_[b]) {
      if (!sharding.gather_per_tensor) flat += p.elements;
      else if (p.elements >= sharding.persistence_threshold) out.push_back(p.elements);
    }
  if (!sharding.gather_per_tensor) out.push_back(flat);
  return out;
}

std::vector<double> StepPlanner::copy_out_times(double elements) const {
  const auto kernel = kernels::Kernel::make_memory_bound("fsdp.copy_out", 2 * elements * element_B_, 0,
                                                         storage_dtype(scenario_.training.precision));
  std::vector<double> t(static_cast<std::size_t>(dp_), cost_model_.cost(kernel).time_s);
  for (int d = 0; d < dp_; ++d)
    if (mixed_replica(d)) t[d] = mixed_stack_->cost(kernel).time_s;
  return t;
}

template <typename Ops>
void StepPlanner::unit(int s, std::size_t first, std::size_t end, const std::string& name, Category pass,
                       const Ops& ops) {
  // One unit of parameters (a block or a fused run of them) on every replica: under ZeRO-3 each
  // data group first gathers its parameters and the unit's first compute op waits for them,
  // unless they stay gathered from an earlier pass (hold_gathered_).
  const bool gathering = gather_parameters_ && !std::all_of(gathered_.begin() + static_cast<std::ptrdiff_t>(first),
                                                            gathered_.begin() + static_cast<std::ptrdiff_t>(end),
                                                            [](bool held) { return held; });
  if (gathering) {
    if (scenario_.framework.sharding.host_rate_limit)
      for (int d = 0; d < dp_; ++d)
        for (const int r : members_[d])
          if (const auto freed = gathers_->reused_buffer(r)) host_->wait_for(r, std::span<const OpIndex>(&*freed, 1));
    const auto tensors = gathered_elements(first, end);
    for (int t = 0; t < tp_; ++t) {
      const auto groups = shard_groups(grid_.data_group(s, t));
      for (std::size_t k = 0; k < groups.size(); ++k)
        for (std::size_t j = 0; j < tensors.size(); ++j)
          gathers_->gather(groups[k], tensors[j] * element_B_,
                           fmt::format("{}.t{}{}.gather{}", name, t, groups.size() > 1 ? fmt::format(".g{}", k) : "",
                                       tensors.size() > 1 ? fmt::format(".p{}", j) : ""));
    }
    // FSDP2 copies the all-gather's output into the parameters on the compute stream before the
    // unit runs (split_with_sizes_copy: one kernel).
    if (scenario_.framework.sharding.copy_out) {
      double elements = 0;
      for (const double e : tensors) elements += e;
      compute(pass, name + ".copy_out", copy_out_times(elements), 1);
    }
    if (hold_gathered_) std::fill(gathered_.begin() + static_cast<std::ptrdiff_t>(first),
                                  gathered_.begin() + static_cast<std::ptrdiff_t>(end), true);
  }
  if (gather_ahead_ && pass == Category::Forward) await_parameter_gathers(first, end);
  ops();
  ++units_;
  if (gathering)
    for (int d = 0; d < dp_; ++d)
      for (std::size_t i = 0; i < members_[d].size(); ++i) gathers_->release(members_[d][i], last_[d][i]);
}

void StepPlanner::record_gradients(std::size_t block, int unit) {
  if (recording_) {
    recording_->push_back({[=, this, final = final_pass_] {
                             final_pass_ = final;
                             record_gradients(block, unit);
                           },
                           false});
    return;
  }
  // Only the final pass's gradients are reduced, unless every pass reduces its own.
  if (!final_pass_ && !reduce_every_pass_) return;
  const auto& params = own_params_[block];
  for (const auto& p : params) reduction_packers_[p.expert ? 1 : 0].add({"", p.elements * gradient_B_, 0});
  std::vector<std::string> names;
  names.reserve(params.size());
  for (const auto& p : params) names.push_back(model_.blocks[block].name + "." + p.name);
  // The gradients of each replica's members are ready after its latest op.
  for (int d = 0; d < dp_; ++d) {
    for (std::size_t i = 0; i < members_[d].size(); ++i) {
      for (std::size_t k = 0; k < params.size(); ++k) {
        const auto& p = params[k];
        const ReadyGradient g{last_[d][i], p.elements * gradient_B_, names[k], unit, p.expert, p.rows};
        if (final_pass_) ready_[members_[d][i]].push_back(g);
        if (final_pass_ && compressing()) compress_gradient(members_[d][i], g);
        if (reduce_every_pass_) pass_ready_[members_[d][i]].push_back(g);
      }
    }
  }
}

bool StepPlanner::reducing_during_backward() const {
  return dp_ > 1 && scenario_.training.overlap_grad_reduce && !gather_parameters_ && !recording_ &&
         (final_pass_ || reduce_every_pass_);
}

std::size_t StepPlanner::bucket_run_start(std::size_t first, std::size_t last) const {
  if (!reducing_during_backward()) return first;
  auto packers = reduction_packers_;
  for (std::size_t b = last + 1; b-- > first;) {
    bool closes = false;
    for (const auto& p : own_params_[b])
      closes = packers[p.expert ? 1 : 0].add({"", p.elements * gradient_B_, 0}).has_value() || closes;
    if (closes) return b;
  }
  return first;
}

}  // namespace clearfog::parallel::detail
