#include "program/Program.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <unordered_map>

namespace clearfog::program {

std::string_view stream_name(Stream s) {
  switch (s) {
    case Stream::Compute: return "compute";
    case Stream::Comm: return "comm";
    case Stream::Gather: return "gather";
    case Stream::P2p: return "p2p";
    case Stream::P2pReverse: return "p2p-reverse";
    case Stream::Background: return "background";
    case Stream::Host: return "host";
  }
  return "?";
}

std::string_view category_name(Category c) {
  switch (c) {
    case Category::Forward: return "forward";
    case Category::Backward: return "backward";
    case Category::Optimizer: return "optimizer";
    case Category::DataParallelComm: return "dp_comm";
    case Category::TensorParallelComm: return "tp_comm";
    case Category::PipelineComm: return "pp_comm";
    case Category::Recompute: return "recompute";
    case Category::ExpertParallelComm: return "ep_comm";
    case Category::TiedGradientComm: return "tied_comm";
    case Category::Host: return "host";
  }
  return "?";
}

Op OpList::iterator::operator*() const { return program_->op(i_); }
std::size_t OpList::size() const { return program_->size(); }
Op OpList::operator[](std::size_t i) const { return program_->op(static_cast<OpIndex>(i)); }
Op OpList::at(std::size_t i) const {
  if (i >= size()) throw std::out_of_range("program::OpList::at");
  return program_->op(static_cast<OpIndex>(i));
}

RankProgram::RankProgram() : RankProgram(std::make_shared<PlanTables>()) {}

RankProgram::RankProgram(std::shared_ptr<PlanTables> tables)
    : tables_(std::move(tables)), body_(std::make_shared<Body>()) {}

OpIndex RankProgram::add_compute(Stream stream, Category category, std::string_view name, double duration_s,
                                 const std::vector<OpIndex>& deps) {
  return add_compute(stream, category, intern(name), duration_s, std::span<const OpIndex>(deps));
}

OpIndex RankProgram::add_exchange(Stream stream, Category category, std::string_view name,
                                  const std::vector<Transfer>& sends, const std::vector<Transfer>& recvs,
                                  const std::vector<OpIndex>& deps, double overhead_s) {
  return add_exchange(stream, category, intern(name), std::span<const Transfer>(sends),
                      std::span<const Transfer>(recvs), std::span<const OpIndex>(deps), overhead_s);
}

namespace {

/// Makes room for `extra` more elements, growing the capacity by a quarter rather than doubling:
/// a plan is 2,520 ranks' arrays growing at once, and their spare capacity at the end of planning
/// is the peak of the run's memory (docs/performance.md). The copies cost little.
template <typename T>
void make_room(std::vector<T>& v, std::size_t extra) {
  constexpr std::size_t kFirstCapacity = 64;
  const std::size_t needed = v.size() + extra;
  if (needed <= v.capacity()) return;
  v.reserve(std::max({needed, kFirstCapacity, v.capacity() + v.capacity() / 4}));
}

std::uint8_t stream_category(Stream s, Category c) {
  return static_cast<std::uint8_t>((static_cast<unsigned>(s) << 4) | static_cast<unsigned>(c));
}

}  // namespace

OpIndex RankProgram::add_compute(Stream stream, Category category, NameId name, double duration_s,
                                 std::span<const OpIndex> deps) {
  Record r;
  r.name = name;
  r.seconds = tables_->values.intern(duration_s);
  r.first_transfer = static_cast<std::uint32_t>(transfers_.size());
  r.kind = OpKind::Compute;
  r.stream_category = stream_category(stream, category);
  return append(r, deps);
}

OpIndex RankProgram::add_exchange(Stream stream, Category category, NameId name, std::span<const Transfer> sends,
                                  std::span<const Transfer> recvs, std::span<const OpIndex> deps,
                                  double overhead_s) {
  if (sends.size() > std::numeric_limits<std::uint16_t>::max())
    throw std::length_error(fmt::format("program: exchange '{}' has {} sends, at most {} are supported",
                                        tables_->names.name(name), sends.size(),
                                        std::numeric_limits<std::uint16_t>::max()));
  Record r;
  r.name = name;
  r.seconds = tables_->values.intern(overhead_s);
  r.first_transfer = static_cast<std::uint32_t>(transfers_.size());
  r.send_count = static_cast<std::uint16_t>(sends.size());
  r.kind = OpKind::Exchange;
  r.stream_category = stream_category(stream, category);
  make_room(transfers_, sends.size() + recvs.size());
  for (const auto* list : {&sends, &recvs})
    for (const Transfer& t : *list) transfers_.push_back(PackedTransfer{t.peer, tables_->values.intern(t.bytes), t.tag});
  return append(r, deps);
}

RankProgram::Body& RankProgram::writable_body() {
  if (body_.use_count() > 1) body_ = std::make_shared<Body>(*body_);  // copy on write
  return *body_;
}

OpIndex RankProgram::append(Record record, std::span<const OpIndex> deps) {
  Body& b = writable_body();
  record.first_dep = static_cast<std::uint32_t>(b.deps.size());
  make_room(b.deps, deps.size());
  make_room(b.records, 1);
  b.deps.insert(b.deps.end(), deps.begin(), deps.end());
  b.records.push_back(record);
  return static_cast<OpIndex>(b.records.size() - 1);
}

Op RankProgram::op(OpIndex i) const {
  if (i >= size()) throw std::out_of_range("program::RankProgram::op");
  Op op;
  op.kind = kind(i);
  op.stream = stream(i);
  op.category = category(i);
  op.name = name(i);
  (op.kind == OpKind::Compute ? op.duration_s : op.overhead_s) = seconds(i);
  op.sends = sends(i);
  op.recvs = recvs(i);
  op.deps = deps(i);
  return op;
}

Slice<OpIndex> RankProgram::deps(OpIndex i) const {
  const auto& records = body_->records;
  const std::uint32_t begin = records[i].first_dep;
  const std::size_t end = i + 1 < records.size() ? records[i + 1].first_dep : body_->deps.size();
  return {body_->deps.data() + begin, end - begin};
}

std::uint32_t RankProgram::transfer_end(OpIndex i) const {
  const auto& records = body_->records;
  return i + 1 < records.size() ? records[i + 1].first_transfer : static_cast<std::uint32_t>(transfers_.size());
}

TransferList RankProgram::sends(OpIndex i) const {
  const Record& r = body_->records[i];
  return {transfers_.data() + r.first_transfer, r.send_count, &tables_->values};
}

TransferList RankProgram::recvs(OpIndex i) const {
  const std::uint32_t begin = sends_end(i);
  return {transfers_.data() + begin, transfer_end(i) - begin, &tables_->values};
}

OpIndex RankProgram::op_of_transfer(std::uint32_t t) const {
  // Ops without transfers share their first_transfer with the next op; the last op of such a run
  // is the one that holds the transfers.
  const auto& records = body_->records;
  const auto it = std::upper_bound(records.begin(), records.end(), t,
                                   [](std::uint32_t value, const Record& r) { return value < r.first_transfer; });
  return static_cast<OpIndex>(it - records.begin() - 1);
}

bool RankProgram::same_ops(const RankProgram& other) const {
  if (body_ == other.body_) return true;
  return tables_ == other.tables_ && transfers_.size() == other.transfers_.size() &&
         body_->records == other.body_->records && body_->deps == other.body_->deps;
}

void RankProgram::scale_compute(double factor) {
  Body& b = writable_body();
  // A slow device does not slow its host.
  for (Record& r : b.records)
    if (r.kind == OpKind::Compute && static_cast<Stream>(r.stream_category >> 4) != Stream::Host)
      r.seconds = tables_->values.intern(tables_->values.value(r.seconds) * factor);
}

void RankProgram::share_ops_of(const RankProgram& other) {
  if (!same_ops(other)) throw std::logic_error("program::RankProgram::share_ops_of: the ops differ");
  body_ = other.body_;
}

std::size_t RankProgram::memory_bytes() const {
  const std::size_t body = body_->records.capacity() * sizeof(Record) + body_->deps.capacity() * sizeof(OpIndex);
  return sizeof(*this) + body / static_cast<std::size_t>(std::max(1L, body_.use_count())) +
         transfers_.capacity() * sizeof(PackedTransfer);
}

std::size_t RankProgram::unshared_memory_bytes() const {
  return sizeof(*this) + body_->records.capacity() * sizeof(Record) + body_->deps.capacity() * sizeof(OpIndex) +
         transfers_.capacity() * sizeof(PackedTransfer);
}

void RankList::resize(std::size_t n) {
  if (n < programs_.size()) {
    programs_.erase(programs_.begin() + static_cast<std::ptrdiff_t>(n), programs_.end());
    return;
  }
  programs_.reserve(n);
  while (programs_.size() < n) programs_.emplace_back(tables_);
}

std::uint64_t Plan::op_count() const {
  std::uint64_t n = 0;
  for (const auto& p : ranks) n += p.size();
  return n;
}

std::uint64_t Plan::transfer_count() const {
  std::uint64_t n = 0;
  for (const auto& p : ranks) n += p.transfer_count();
  return n;
}

int share_identical_ops(Plan& plan) {
  // Candidates share a size and a cheap fingerprint; same_ops() decides.
  std::unordered_map<std::uint64_t, std::vector<int>> by_fingerprint;
  int shared = 0;
  for (int r = 0; r < plan.rank_count(); ++r) {
    auto& p = plan.ranks[r];
    if (p.empty()) continue;
    std::uint64_t f = p.size() * 0x9E3779B97F4A7C15ull ^ p.transfer_count();
    const auto mix = [&f](std::uint64_t v) { f = (f ^ v) * 0x100000001B3ull; };
    for (OpIndex i = 0; i < p.size(); i += std::max<OpIndex>(1, p.size() / 64)) {
      const auto& rec = p.record(i);
      mix(rec.name);
      mix(rec.first_dep);
      mix(rec.first_transfer);
    }
    auto& same = by_fingerprint[f];
    bool found = false;
    for (int other : same) {
      if (plan.ranks[other].same_ops(p)) {
        if (!p.shares_ops_with(plan.ranks[other])) {
          p.share_ops_of(plan.ranks[other]);
          ++shared;
        }
        found = true;
        break;
      }
    }
    if (!found) same.push_back(r);
  }
  return shared;
}

}  // namespace clearfog::program
