// A one-line progress bar on stderr: count, percentage, rate, ETA and a caller-supplied note (e.g.
// the best result so far). Redraws at most 10 times a second; prints plain lines when stderr is not
// a terminal, so logs stay readable.
#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>

namespace gemmtune {

// One progress line: "label [####....] done/total pct% rate/s ETA|took seconds  note".
std::string progress_line(const std::string& label, std::size_t done, std::size_t total, double elapsed,
                          const std::string& note, bool final_line);

class ProgressBar {
 public:
  ProgressBar(std::string label, std::size_t total);
  ~ProgressBar();
  void advance(std::size_t n = 1, const std::string& note = "");
  void set_note(const std::string& note);
  void finish();

 private:
  void draw(bool final_line);

  std::string label_;
  std::size_t total_;
  std::size_t done_ = 0;
  std::string note_;
  bool tty_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
  std::size_t last_logged_percent_ = 0;
  std::mutex mutex_;
};

}  // namespace gemmtune
