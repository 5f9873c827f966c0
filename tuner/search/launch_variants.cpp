#include "search/launch_variants.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <string>

namespace gemmtune {

LaunchVariants::LaunchVariants(const std::vector<KernelConfig>& candidates, const GemmShape& shape,
                               const std::vector<double>& prior)
    : group_(candidates.size()), taken_(candidates.size(), false) {
  std::vector<std::size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), 0);
  if (prior.size() == candidates.size())
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return prior[a] > prior[b]; });
  // One binary: the same instantiation (name expression) for the path this shape takes.
  std::map<std::string, std::size_t> groups;
  for (std::size_t i : order) {
    const std::string binary = candidates[i].name_expression(kernel_path_for(candidates[i], shape));
    const auto [it, added] = groups.emplace(binary, members_.size());
    if (added) members_.emplace_back();
    group_[i] = it->second;
    members_[it->second].push_back(i);
  }
}

void LaunchVariants::measured(std::size_t index, double tflops) {
  take(index);
  if (tflops > 0 && members_[group_[index]].size() > 1) ready_.emplace(tflops, group_[index]);
}

void LaunchVariants::take(std::size_t index) {
  taken_[index] = true;
}

std::optional<std::size_t> LaunchVariants::next() {
  while (!ready_.empty()) {
    for (std::size_t i : members_[ready_.top().second])
      if (!taken_[i]) {
        taken_[i] = true;
        return i;
      }
    ready_.pop();  // every variant of that binary is measured or proposed
  }
  return std::nullopt;
}

}  // namespace gemmtune
