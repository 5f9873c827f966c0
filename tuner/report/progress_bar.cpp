// Rendering of ProgressBar.
#include "report/progress_bar.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace gemmtune {

std::string progress_line(const std::string& label, std::size_t done, std::size_t total, double elapsed,
                          const std::string& note, bool final_line) {
  const std::size_t percent = total ? done * 100 / total : 100;
  const double rate = elapsed > 0 ? done / elapsed : 0;
  const double eta = rate > 0 && total > done ? (total - done) / rate : 0;
  constexpr int kWidth = 28;
  const int filled = total ? static_cast<int>(kWidth * std::min(done, total) / total) : kWidth;
  const std::string bar = std::string(filled, '#') + std::string(kWidth - filled, '.');
  return fmt::format("{} [{}] {}/{} {:3d}% {:.1f}/s {} {:.0f}s{}{}", label, bar, done, total, percent, rate,
                     final_line ? "took" : "ETA", final_line ? elapsed : eta, note.empty() ? "" : "  ", note);
}

ProgressBar::ProgressBar(std::string label, std::size_t total)
    : label_(std::move(label)),
      total_(total),
      tty_(isatty(fileno(stderr)) != 0),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_ - std::chrono::seconds(1)) {
  draw(false);  // the total, at once
}

ProgressBar::~ProgressBar() {
  finish();
}

void ProgressBar::advance(std::size_t n, const std::string& note) {
  std::lock_guard<std::mutex> lock(mutex_);
  done_ += n;
  if (!note.empty()) note_ = note;
  draw(false);
}

void ProgressBar::set_note(const std::string& note) {
  std::lock_guard<std::mutex> lock(mutex_);
  note_ = note;
  draw(false);
}

void ProgressBar::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_) return;
  finished_ = true;
  draw(true);
}

void ProgressBar::draw(bool final_line) {
  const auto now = std::chrono::steady_clock::now();
  const std::size_t percent = total_ ? done_ * 100 / total_ : 100;
  if (!final_line) {
    if (tty_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
    if (!tty_ && done_ > 0 && percent < last_logged_percent_ + 10) return;  // a line per 10% in logs
  }
  last_draw_ = now;
  last_logged_percent_ = percent;
  const std::string line = progress_line(
      label_, done_, total_, std::chrono::duration<double>(now - start_).count(), note_, final_line);
  if (tty_) {
    std::fprintf(stderr, "\r\033[K%s%s", line.c_str(), final_line ? "\n" : "");
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
}

}  // namespace gemmtune
