// Rendering of ProgressBoard; the line format is progress_line's (progress_bar.hpp).
#include "report/progress_board.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

#include "report/progress_bar.hpp"

namespace gemmtune {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace

ProgressBoard::ProgressBoard(std::vector<std::string> gpus)
    : tty_(isatty(fileno(stderr)) != 0), last_draw_(Clock::now() - std::chrono::seconds(1)) {
  for (std::string& gpu : gpus) slots_.push_back({std::move(gpu), {}, 0, 0, {}, false, 0, Clock::now()});
}

ProgressBoard::~ProgressBoard() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (tty_ && live_shown_) std::fprintf(stderr, "\n");  // leave an interrupted live line standing
}

std::string ProgressBoard::full_line(const Slot& slot, bool final_line) const {
  const std::string label = slots_.size() == 1 ? slot.label : slot.gpu + " " + slot.label;
  return progress_line(label, slot.done, slot.total, seconds_since(slot.start), slot.note, final_line);
}

void ProgressBoard::start(std::size_t slot, std::string label, std::size_t total) {
  std::lock_guard<std::mutex> lock(mutex_);
  Slot& s = slots_.at(slot);
  s.label = std::move(label);
  s.done = 0;
  s.total = total;
  s.note.clear();
  s.active = true;
  s.last_logged_percent = 0;
  s.start = Clock::now();
  if (tty_) {
    last_draw_ = Clock::now() - std::chrono::seconds(1);  // the total, at once
    draw_live();
  } else {
    std::fprintf(stderr, "%s\n", full_line(s, false).c_str());
    std::fflush(stderr);
  }
}

void ProgressBoard::advance(std::size_t slot, const std::string& note) {
  std::lock_guard<std::mutex> lock(mutex_);
  Slot& s = slots_.at(slot);
  ++s.done;
  if (!note.empty()) s.note = note;
  if (tty_) {
    draw_live();
    return;
  }
  const std::size_t percent = s.total ? s.done * 100 / s.total : 100;
  if (percent < s.last_logged_percent + 10) return;  // a line per 10% in logs
  s.last_logged_percent = percent;
  std::fprintf(stderr, "%s\n", full_line(s, false).c_str());
  std::fflush(stderr);
}

void ProgressBoard::finish(std::size_t slot) {
  std::lock_guard<std::mutex> lock(mutex_);
  Slot& s = slots_.at(slot);
  if (!s.active) return;
  s.active = false;
  if (tty_) {
    std::fprintf(stderr, "\r\033[K%s\n", full_line(s, true).c_str());
    live_shown_ = false;
    last_draw_ = Clock::now() - std::chrono::seconds(1);
    draw_live();
  } else {
    std::fprintf(stderr, "%s\n", full_line(s, true).c_str());
  }
  std::fflush(stderr);
}

ProgressBoard::Problem::Problem(ProgressBoard& board, std::size_t slot, std::string label, std::size_t total)
    : board_(board), slot_(slot) {
  board_.start(slot_, std::move(label), total);
}

ProgressBoard::Problem::~Problem() {
  board_.finish(slot_);
}

// At most 10 redraws a second. One GPU: its bar; several: what each is doing, side by side.
void ProgressBoard::draw_live() {
  const auto now = Clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  std::string line;
  if (slots_.size() == 1) {
    if (slots_[0].active) line = full_line(slots_[0], false);
  } else {
    for (const Slot& s : slots_) {
      if (!s.active) continue;
      if (!line.empty()) line += " | ";
      line += fmt::format("{} {} {}/{} {}", s.gpu, s.label, s.done, s.total, s.note);
    }
  }
  if (line.empty() && !live_shown_) return;
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  live_shown_ = !line.empty();
  std::fflush(stderr);
}

}  // namespace gemmtune
