#pragma once
// A read-only window on a plan's flat arrays (an op's dependencies, sends or receives): what a
// std::span offers, plus at() and comparison with a vector, so code written against vectors reads it.
#include <cstddef>
#include <stdexcept>
#include <vector>

namespace clearfog::program {

template <typename T>
class Slice {
public:
  using value_type = T;
  using const_iterator = const T*;
  using iterator = const T*;

  Slice() = default;
  Slice(const T* data, std::size_t size) : data_(data), size_(size) {}

  [[nodiscard]] const T* begin() const { return data_; }
  [[nodiscard]] const T* end() const { return data_ + size_; }
  [[nodiscard]] const T* data() const { return data_; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  [[nodiscard]] const T& at(std::size_t i) const {
    if (i >= size_) throw std::out_of_range("program::Slice::at");
    return data_[i];
  }
  [[nodiscard]] const T& front() const { return data_[0]; }
  [[nodiscard]] const T& back() const { return data_[size_ - 1]; }
  [[nodiscard]] std::vector<T> to_vector() const { return std::vector<T>(begin(), end()); }

  friend bool operator==(const Slice& a, const Slice& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!(a[i] == b[i])) return false;
    return true;
  }
  friend bool operator==(const Slice& a, const std::vector<T>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!(a[i] == b[i])) return false;
    return true;
  }

private:
  const T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace clearfog::program
