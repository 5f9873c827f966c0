// The one progress display of a tune run, whatever the number of GPUs: a slot per GPU, each
// showing the problem it is tuning. On a terminal, one live line (the slot's bar for one GPU; each
// GPU's problem, count and note side by side for several) and a finished line per problem; in a log,
// a line per slot at every 10% and at the end, prefixed with the GPU when there are several. With
// one GPU the output is what ProgressBar prints. Thread-safe: each GPU's thread reports its slot.
#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

namespace gemmtune {

class ProgressBoard {
 public:
  explicit ProgressBoard(std::vector<std::string> gpus);  // a slot per GPU, e.g. "GPU 0"
  ~ProgressBoard();
  ProgressBoard(const ProgressBoard&) = delete;
  ProgressBoard& operator=(const ProgressBoard&) = delete;

  void start(std::size_t slot, std::string label, std::size_t total);
  void advance(std::size_t slot, const std::string& note);
  void finish(std::size_t slot);  // once per start; later calls do nothing

  // Finishes the slot when it goes out of scope, also when a search throws (as ProgressBar does).
  class Problem {
   public:
    Problem(ProgressBoard& board, std::size_t slot, std::string label, std::size_t total);
    ~Problem();
    Problem(const Problem&) = delete;
    Problem& operator=(const Problem&) = delete;
    void advance(const std::string& note) { board_.advance(slot_, note); }

   private:
    ProgressBoard& board_;
    std::size_t slot_;
  };

 private:
  struct Slot {
    std::string gpu;
    std::string label;
    std::size_t done = 0;
    std::size_t total = 0;
    std::string note;
    bool active = false;
    std::size_t last_logged_percent = 0;
    std::chrono::steady_clock::time_point start;
  };
  std::string full_line(const Slot& slot, bool final_line) const;
  void draw_live();

  std::vector<Slot> slots_;
  bool tty_;
  bool live_shown_ = false;
  std::chrono::steady_clock::time_point last_draw_;
  std::mutex mutex_;
};

}  // namespace gemmtune
