// Strict number parsing: a task index is whole decimal digits or it is refused, so a typo in a job
// script stops the task with a line naming it instead of tuning the wrong share.
#include "search/shard.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace gemmtune {
namespace {

// A non-negative decimal of at most 9 digits, or nullopt.
std::optional<int> whole_number(const std::string& text) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  int value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

Shard checked(int index, int count, const std::string& source) {
  if (count < 1) throw std::invalid_argument(fmt::format("{}: the shard count must be at least 1", source));
  if (index >= count)
    throw std::invalid_argument(
        fmt::format("{}: shard {} is outside 0..{} (shards are numbered from 0)", source, index, count - 1));
  return {index, count};
}

}  // namespace

Shard parse_shard(const std::string& text) {
  const std::string source = fmt::format("--shard '{}'", text);
  const auto slash = text.find('/');
  if (slash == std::string::npos)
    throw std::invalid_argument(source + ": expected I/N, e.g. 0/4 (shard I of N, from 0)");
  const auto index = whole_number(text.substr(0, slash));
  const auto count = whole_number(text.substr(slash + 1));
  if (!index || !count)
    throw std::invalid_argument(source +
                                ": expected I/N with whole numbers, e.g. 0/4 (shard I of N, from 0)");
  return checked(*index, *count, source);
}

std::optional<Shard> choose_shard(const std::optional<std::string>& option, const EnvironmentLookup& lookup) {
  if (option) return parse_shard(*option);
  const char* id = lookup("SLURM_ARRAY_TASK_ID");
  const char* count = lookup("SLURM_ARRAY_TASK_COUNT");
  if (!id || !count) return std::nullopt;
  const auto number = [](const char* name, const char* value) {
    const auto n = whole_number(value);
    if (!n) throw std::invalid_argument(fmt::format("{}='{}' is not a whole number", name, value));
    return *n;
  };
  int index = number("SLURM_ARRAY_TASK_ID", id);
  const int n = number("SLURM_ARRAY_TASK_COUNT", count);
  std::string source = fmt::format("SLURM_ARRAY_TASK_ID={} of SLURM_ARRAY_TASK_COUNT={}", id, count);
  if (const char* min = lookup("SLURM_ARRAY_TASK_MIN")) {
    const int first = number("SLURM_ARRAY_TASK_MIN", min);
    if (index < first)
      throw std::invalid_argument(
          fmt::format("SLURM_ARRAY_TASK_ID={} is below SLURM_ARRAY_TASK_MIN={}", id, min));
    index -= first;
    source += fmt::format(" from SLURM_ARRAY_TASK_MIN={}", min);
  }
  source += " (an array of consecutive ids, or --shard I/N, is needed)";
  return checked(index, n, source);
}

std::vector<GemmShape> select_shard(const std::vector<GemmShape>& shapes, const Shard& shard) {
  std::vector<GemmShape> out;
  for (std::size_t i = static_cast<std::size_t>(shard.index); i < shapes.size();
       i += static_cast<std::size_t>(shard.count))
    out.push_back(shapes[i]);
  return out;
}

std::vector<GemmShape> problems_of_this_shard(const std::vector<GemmShape>& shapes,
                                              const std::optional<std::string>& option) {
  const auto shard = choose_shard(option, [](const char* name) -> const char* { return std::getenv(name); });
  if (!shard) return shapes;
  std::vector<GemmShape> mine = select_shard(shapes, *shard);
  if (mine.empty())
    std::printf("shard %s has no problems (the list has %zu); nothing to do\n", shard->label().c_str(),
                shapes.size());
  else
    spdlog::info("shard {}: {} of {} problems", shard->label(), mine.size(), shapes.size());
  return mine;
}

}  // namespace gemmtune
