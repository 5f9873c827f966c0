// --gpu's grammar and its errors; docs/bad-inputs.md lists the messages.
#include "measure/gpu_list.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>
#include <stdexcept>

namespace gemmtune {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool all_digits(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return parts;
    start = comma + 1;
  }
}

}  // namespace

GpuRequest parse_gpu_request(const std::string& text, bool allow_repeats) {
  GpuRequest request;
  request.text = text;
  if (text.empty())
    throw std::invalid_argument(
        "--gpu '': no GPU given (auto, all, an index, a list such as 0,2,3, or a name)");
  if (text == "auto") return request;
  if (text == "all") {
    request.kind = GpuRequest::Kind::all;
    return request;
  }
  const std::vector<std::string> entries = split_commas(text);
  if (entries.size() == 1 && !all_digits(text)) {
    request.kind = GpuRequest::Kind::name;
    return request;
  }
  request.kind = GpuRequest::Kind::indices;
  for (const std::string& entry : entries) {
    if (entry.empty())
      throw std::invalid_argument(fmt::format("--gpu {}: empty entry in the GPU list", text));
    if (!all_digits(entry))
      throw std::invalid_argument(
          fmt::format("--gpu {}: '{}' is not a GPU index (a list holds indices such as 0,2,3)", text, entry));
    const int index = entry.size() > 4 ? INT_MAX : std::stoi(entry);
    if (!allow_repeats &&
        std::find(request.indices.begin(), request.indices.end(), index) != request.indices.end())
      throw std::invalid_argument(fmt::format("--gpu {}: GPU {} is listed twice", text, entry));
    request.indices.push_back(index);
  }
  return request;
}

std::vector<int> resolve_gpus(const GpuRequest& request, int visible,
                              const std::function<VisibleGpu(int)>& describe) {
  switch (request.kind) {
    case GpuRequest::Kind::automatic:
      return {0};
    case GpuRequest::Kind::all: {
      std::vector<int> all(static_cast<std::size_t>(visible));
      for (int i = 0; i < visible; ++i) all[static_cast<std::size_t>(i)] = i;
      return all;
    }
    case GpuRequest::Kind::indices:
      for (const int index : request.indices)
        if (index >= visible) {
          const std::string named = index == INT_MAX ? "" : fmt::format("GPU {} is not visible; ", index);
          throw std::invalid_argument(
              fmt::format("--gpu {}: {}only {} device(s) visible", request.text, named, visible));
        }
      return request.indices;
    case GpuRequest::Kind::name:
      break;
  }
  std::vector<std::string> names;
  for (int i = 0; i < visible; ++i) {
    const VisibleGpu gpu = describe(i);
    if (lower(gpu.name).find(lower(request.text)) != std::string::npos || gpu.slug == lower(request.text))
      return {i};
    names.push_back(gpu.name);
  }
  throw std::invalid_argument(fmt::format("--gpu '{}' matches no visible device (visible: {})", request.text,
                                          fmt::join(names, "; ")));
}

bool repeated_gpus_allowed() {
  const char* value = std::getenv("GEMMTUNE_TEST_SHARE_GPU");
  return value != nullptr && std::string(value) == "1";
}

}  // namespace gemmtune
