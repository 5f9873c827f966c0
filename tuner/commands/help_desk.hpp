// Evaluations one GPU hands to another of the same model that has no problem left (issue #47):
// at the end of a run, or in a run of fewer problems than GPUs, the GPUs without a problem measure
// candidates of the problems still being searched, so the last problem ends sooner.
//
// The problem's GPU keeps the search: it hands over a candidate whose binary is ready when a helper
// is free for it, and books the reply as if it had measured it. A helper prepares the problem's
// screening shape in its own worker (the same inputs: the run's seed) and returns the worker's
// reply. The final race stays on the problem's GPU, so one GPU's clocks decide the winner.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/kernel_config.hpp"
#include "core/problem.hpp"

namespace gemmtune {

class HelpDesk {
 public:
  struct Request {
    GemmShape screen;  // where the problem's candidates are measured
    KernelConfig config;
    std::promise<nlohmann::json> reply;  // the helper's worker's reply, or why it could not measure
  };

  // The problem's side. True when a helper of this GPU model would take one more request now: each
  // helper has at most one request waiting for it, so no request waits long while the problem's own
  // GPU could have measured it.
  bool wanted(const std::string& model) const;
  // The helper's reply to come; its error is a std::runtime_error (the helper left or failed), and
  // the problem's GPU measures the candidate itself.
  std::future<nlohmann::json> hand(const std::string& model, const GemmShape& screen,
                                   const KernelConfig& config);

  // The helper's side: while a GPU helps, it is counted as a helper of its model.
  void join(const std::string& model);
  // Fails the requests left waiting when the last helper of the model leaves.
  void leave(const std::string& model);
  // The next request for this model, waiting at most `wait` for one.
  std::optional<Request> take(const std::string& model, std::chrono::milliseconds wait);

 private:
  mutable std::mutex mutex_;
  std::condition_variable arrived_;
  std::map<std::string, std::size_t> helpers_;  // by GPU model
  std::map<std::string, std::deque<Request>> waiting_;
};

}  // namespace gemmtune
