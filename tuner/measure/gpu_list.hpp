// Which GPUs a run measures on, from --gpu: "auto" (the first visible), "all", an index, a list of
// indices ("0,2,3"), or a name. Parsing is apart from the device query so that a bad list is
// refused (one line, exit code 2) before CUDA is touched, and so that the host tests can resolve
// lists against made-up machines.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace gemmtune {

struct GpuRequest {
  enum class Kind { automatic, all, indices, name };
  Kind kind = Kind::automatic;
  std::string text;          // as given, for messages
  std::vector<int> indices;  // Kind::indices, in the order given; an index too long to be one is INT_MAX
};

// Throws std::invalid_argument naming the problem: an empty list, an empty entry, an entry of a
// list that is not an index, an index listed twice (allowed only where allow_repeats is set: two
// workers sharing one GPU, for tests on a machine with one).
GpuRequest parse_gpu_request(const std::string& text, bool allow_repeats = false);

// The device indices to measure on, in the order given. describe(i) is the name and the slug of
// visible device i (asked only for Kind::name). Throws std::invalid_argument for an index that is
// not visible or a name that matches no device.
struct VisibleGpu {
  std::string name;
  std::string slug;
};
std::vector<int> resolve_gpus(const GpuRequest& request, int visible,
                              const std::function<VisibleGpu(int)>& describe);

// GEMMTUNE_TEST_SHARE_GPU=1: a list may name one GPU more than once, so one machine with one GPU
// can run the multi-GPU path (two workers on GPU 0). For tests only; undocumented in --help.
bool repeated_gpus_allowed();

}  // namespace gemmtune
