#pragma once
// Transfers as a plan stores them (16 bytes: the size is an id into the plan's value table) and
// the read-only list an op's sends or receives are, yielding program::Transfer values.
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <vector>

#include "program/ValueTable.hpp"

namespace clearfog::program {

struct Transfer {
  int peer = -1;            // the other rank
  double bytes = 0;         // payload, B
  std::uint64_t tag = 0;    // matches a send with its receive
  friend bool operator==(const Transfer&, const Transfer&) = default;
};

struct PackedTransfer {
  int peer = -1;
  ValueId bytes = 0;
  std::uint64_t tag = 0;
};

class TransferList {
public:
  class iterator {
  public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Transfer;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Transfer;
    iterator(const PackedTransfer* p, const ValueTable* values) : p_(p), values_(values) {}
    Transfer operator*() const { return {p_->peer, values_->value(p_->bytes), p_->tag}; }
    iterator& operator++() {
      ++p_;
      return *this;
    }
    iterator operator++(int) {
      iterator old = *this;
      ++p_;
      return old;
    }
    friend bool operator==(const iterator& a, const iterator& b) { return a.p_ == b.p_; }

  private:
    const PackedTransfer* p_;
    const ValueTable* values_;
  };

  TransferList() = default;
  TransferList(const PackedTransfer* data, std::size_t size, const ValueTable* values)
      : data_(data), size_(size), values_(values) {}
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  Transfer operator[](std::size_t i) const { return {data_[i].peer, values_->value(data_[i].bytes), data_[i].tag}; }
  [[nodiscard]] Transfer at(std::size_t i) const {
    if (i >= size_) throw std::out_of_range("program::TransferList::at");
    return (*this)[i];
  }
  [[nodiscard]] Transfer front() const { return at(0); }
  [[nodiscard]] Transfer back() const { return at(size_ - 1); }
  [[nodiscard]] iterator begin() const { return {data_, values_}; }
  [[nodiscard]] iterator end() const { return {data_ + size_, values_}; }
  [[nodiscard]] std::vector<Transfer> to_vector() const { return std::vector<Transfer>(begin(), end()); }
  friend bool operator==(const TransferList& a, const std::vector<Transfer>& b) { return a.to_vector() == b; }

private:
  const PackedTransfer* data_ = nullptr;
  std::size_t size_ = 0;
  const ValueTable* values_ = nullptr;
};

}  // namespace clearfog::program
