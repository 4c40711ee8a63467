#include "sweep/SweepBudget.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

#include "config/YamlFile.hpp"
#include "core/Quote.hpp"

namespace clearfog::sweep {
namespace {

using units::Dimension;

constexpr std::array<Dimension, 6> kQuantities = {Dimension::Time,     Dimension::Bytes,     Dimension::Bandwidth,
                                                  Dimension::FlopRate, Dimension::Frequency, Dimension::Power};

std::optional<double> plain_number(const std::string& text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

/// `text` as a quantity of any dimension (a plain number is Dimensionless).
std::optional<std::pair<double, Dimension>> any_quantity(const std::string& text) {
  if (auto v = plain_number(text)) return std::pair(*v, Dimension::Dimensionless);
  for (const Dimension d : kQuantities) {
    try {
      return std::pair(units::parse(text, d), d);
    } catch (const units::UnitError&) {
    }
  }
  return std::nullopt;
}

class BudgetReader {
public:
  BudgetReader(const std::vector<std::string>& keys, std::string file, std::vector<Diagnostic>& errors)
      : keys_(keys), file_(std::move(file)), errors_(errors) {}

  std::optional<SweepBudget> read(const YAML::Node& n) {
    if (!n.IsMap()) return fail(n, "budget", "must be a mapping with max and terms (docs/sweeps.md, \"Budgets\")");
    for (const auto& kv : n) {
      const std::string k = kv.first.IsScalar() ? kv.first.Scalar() : "";
      if (k != "name" && k != "max" && k != "base" && k != "terms")
        error(kv.first, "budget", fmt::format("unknown key {}; known: name, max, base, terms", quote(k)));
    }
    SweepBudget b;
    if (n["name"] && n["name"].IsScalar()) b.name = n["name"].Scalar();
    if (!n["max"]) error(n, "budget.max", "missing: the largest cost a point may have");
    else b.max = number(n["max"], "budget.max").value_or(0);
    if (n["base"]) b.base = number(n["base"], "budget.base").value_or(0);
    const YAML::Node terms = n["terms"];
    if (!terms || !terms.IsSequence() || terms.size() == 0)
      return fail(terms ? terms : n, "budget.terms", "missing: a non-empty list of {key, cost, per}");
    for (const auto& t : terms)
      if (auto term = read_term(t)) b.terms.push_back(*term);
    return b;
  }

private:
  SourceLocation where(const YAML::Node& n) const {
    return config::location_of(n.Mark(), file_, SourceLocation{file_, 1, 1});
  }
  void error(const YAML::Node& n, std::string key, std::string message) {
    errors_.push_back({where(n), std::move(key), std::move(message)});
  }
  std::optional<SweepBudget> fail(const YAML::Node& n, std::string key, std::string message) {
    error(n, std::move(key), std::move(message));
    return std::nullopt;
  }

  std::optional<double> number(const YAML::Node& n, const std::string& key) {
    const auto v = n.IsScalar() ? plain_number(n.Scalar()) : std::nullopt;
    if (!v) error(n, key, fmt::format("must be a number, got {}", quote(n.IsScalar() ? n.Scalar() : "a collection")));
    return v;
  }

  std::optional<BudgetTerm> read_term(const YAML::Node& t) {
    if (!t.IsMap() || !t["key"] || !t["cost"] || !t["per"]) {
      error(t, "budget.terms", "each term is a mapping {key, cost, per}, e.g. {key: platform.accelerator.peak.bf16, "
                               "cost: 1.5, per: 1 TFLOP/s}");
      return std::nullopt;
    }
    BudgetTerm term;
    term.location = where(t);
    term.key = t["key"].IsScalar() ? t["key"].Scalar() : "";
    if (std::find(keys_.begin(), keys_.end(), term.key) == keys_.end())
      error(t["key"], "budget.terms.key",
            fmt::format("{} is not an axis or a set key of the sweep; a term reads the point's value, so sweep the "
                        "key or set it",
                        quote(term.key)));
    term.cost = number(t["cost"], "budget.terms.cost").value_or(0);
    const auto per = t["per"].IsScalar() ? any_quantity(t["per"].Scalar()) : std::nullopt;
    if (!per || !(per->first > 0)) {
      error(t["per"], "budget.terms.per", "must be a positive quantity, e.g. 1 TFLOP/s, 1 TB/s, 1 MB, or a number");
      return std::nullopt;
    }
    term.per = per->first;
    term.dimension = per->second;
    return term;
  }

  const std::vector<std::string>& keys_;
  std::string file_;
  std::vector<Diagnostic>& errors_;
};

}  // namespace

double SweepBudget::value(const std::vector<config::Override>& overrides) const {
  double total = base;
  for (const BudgetTerm& t : terms) {
    const auto it = std::find_if(overrides.rbegin(), overrides.rend(), [&](const auto& o) { return o.key == t.key; });
    if (it == overrides.rend())
      throw ConfigError({{t.location, "budget.terms", fmt::format("the point gives {} no value", t.key)}});
    double v = 0;
    try {
      const auto plain = plain_number(it->value);
      v = t.dimension == Dimension::Dimensionless ? plain.value_or(NAN) : units::parse(it->value, t.dimension);
    } catch (const units::UnitError& e) {
      throw ConfigError({{t.location, "budget.terms",
                          fmt::format("{} = {}: {} (the term's per is a {})", t.key, quote(it->value), e.what(),
                                      units::dimension_name(t.dimension))}});
    }
    if (!std::isfinite(v))
      throw ConfigError({{t.location, "budget.terms",
                          fmt::format("{} = {} is not a number, as the term's per is", t.key, quote(it->value))}});
    total += t.cost * v / t.per;
  }
  return total;
}

std::optional<SweepBudget> read_sweep_budget(const YAML::Node& n, const std::vector<std::string>& keys,
                                             const std::string& file, std::vector<Diagnostic>& errors) {
  return BudgetReader(keys, file, errors).read(n);
}

}  // namespace clearfog::sweep
