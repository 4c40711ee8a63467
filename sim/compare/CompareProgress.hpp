#pragma once
// The progress lines of one pass of `clearfog compare`: as the pass starts, how many
// configurations each platform simulates; then "done/total" per platform at most every
// kProgressEvery (also while every child is still busy) and once at its end.
#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace clearfog::compare {

class CompareProgress {
public:
  static constexpr auto kProgressEvery = std::chrono::seconds(5);

  /// `platforms`: the names; `platform_of[i]`: the platform of the pass's configuration i; `sink`
  /// takes each line (none: silent).
  CompareProgress(std::function<void(const std::string&)> sink, std::vector<std::string> platforms,
                  std::vector<std::size_t> platform_of, std::string pass);

  /// Configuration i of the pass ended (the last one prints at once).
  void finished(std::size_t i);
  /// A line if the last is kProgressEvery old, or `now`.
  void print(bool now = false);

private:
  using Clock = std::chrono::steady_clock;
  /// "DGX A100 12/46, IPU-POD16 3/20" (done and total per platform), or the totals alone.
  [[nodiscard]] std::string counts(bool done) const;

  std::function<void(const std::string&)> sink_;
  std::vector<std::string> platforms_;
  std::vector<std::size_t> platform_of_;
  std::string pass_;
  std::vector<std::size_t> total_, done_;
  std::size_t finished_ = 0;
  Clock::time_point started_ = Clock::now(), printed_ = Clock::now();
};

}  // namespace clearfog::compare
