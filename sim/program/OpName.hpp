#pragma once
// An op's name: a view into the plan's name table (whose strings are null-terminated) that also
// behaves like the std::string it replaced where code expects one: conversion (map keys,
// assignments), substr() and c_str(), concatenation.
#include <string>
#include <string_view>

namespace clearfog::program {

class OpName : public std::string_view {
public:
  OpName() = default;
  OpName(std::string_view view) : std::string_view(view) {}  // NOLINT: implicit by design
  operator std::string() const { return std::string(data(), size()); }  // NOLINT: implicit by design
  [[nodiscard]] std::string str() const { return std::string(data(), size()); }
  [[nodiscard]] std::string substr(size_type pos = 0, size_type count = npos) const {
    return std::string(std::string_view::substr(pos, count));
  }
  [[nodiscard]] const char* c_str() const { return data(); }
  friend std::string operator+(const OpName& a, std::string_view b) { return a.str().append(b); }
  friend std::string operator+(std::string_view a, const OpName& b) { return std::string(a).append(b); }
  friend std::string operator+(const OpName& a, const char* b) { return a.str().append(b); }
  friend std::string operator+(const char* a, const OpName& b) { return std::string(a).append(b); }
  friend std::string operator+(const OpName& a, const std::string& b) { return a.str().append(b); }
  friend std::string operator+(const std::string& a, const OpName& b) { return std::string(a).append(b); }
};

}  // namespace clearfog::program
