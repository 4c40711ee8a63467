#pragma once
// The timeline of every rank (start and end of each op), used like a vector of vectors. Ranks whose
// timelines are equal by symmetry (engine/Symmetry.hpp) share one copy; writing to a shared
// timeline gives that rank its own copy first.
#include <cstddef>
#include <memory>
#include <vector>

namespace clearfog::engine {

struct OpTiming {
  double start_s = -1;
  double end_s = -1;
  [[nodiscard]] double duration_s() const { return end_s - start_s; }
};

class RankTimings {
public:
  using Timeline = std::vector<OpTiming>;

  class const_iterator {
  public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Timeline;
    using difference_type = std::ptrdiff_t;
    using pointer = const Timeline*;
    using reference = const Timeline&;
    explicit const_iterator(std::vector<std::shared_ptr<Timeline>>::const_iterator it) : it_(it) {}
    const Timeline& operator*() const { return **it_; }
    const Timeline* operator->() const { return it_->get(); }
    const_iterator& operator++() {
      ++it_;
      return *this;
    }
    friend bool operator==(const const_iterator& a, const const_iterator& b) { return a.it_ == b.it_; }

  private:
    std::vector<std::shared_ptr<Timeline>>::const_iterator it_;
  };

  [[nodiscard]] std::size_t size() const { return ranks_.size(); }
  [[nodiscard]] bool empty() const { return ranks_.empty(); }
  void resize(std::size_t n) {
    while (ranks_.size() > n) ranks_.pop_back();
    while (ranks_.size() < n) ranks_.push_back(std::make_shared<Timeline>());
  }
  void push_back(Timeline timeline) { ranks_.push_back(std::make_shared<Timeline>(std::move(timeline))); }
  Timeline& emplace_back() { return *ranks_.emplace_back(std::make_shared<Timeline>()); }
  const Timeline& operator[](std::size_t r) const { return *ranks_[r]; }
  Timeline& operator[](std::size_t r) {
    if (ranks_[r].use_count() > 1) ranks_[r] = std::make_shared<Timeline>(*ranks_[r]);  // copy on write
    return *ranks_[r];
  }
  /// Rank r gets rank `from`'s timeline, shared.
  void share(std::size_t r, std::size_t from) { ranks_[r] = ranks_[from]; }
  [[nodiscard]] bool shares(std::size_t r, std::size_t from) const { return ranks_[r] == ranks_[from]; }
  [[nodiscard]] const_iterator begin() const { return const_iterator(ranks_.begin()); }
  [[nodiscard]] const_iterator end() const { return const_iterator(ranks_.end()); }

private:
  std::vector<std::shared_ptr<Timeline>> ranks_;
};

}  // namespace clearfog::engine
