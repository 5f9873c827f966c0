// The one progress display of a tune run, as a log sees it (stderr is not a terminal here): with
// one GPU exactly ProgressBar's lines, with several a line per GPU at every 10% and at the end,
// each prefixed with its GPU, from threads reporting at once.
#include "report/progress_board.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <thread>
#include <vector>

#include "report/progress_bar.hpp"

namespace gemmtune {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(ProgressBoard, OneGpuPrintsWhatProgressBarPrints) {
  ::testing::internal::CaptureStderr();
  {
    ProgressBar bar("tune            512", 20);
    for (int i = 0; i < 20; ++i) bar.advance(1, "best 1.0 TFLOP/s");
  }
  const std::vector<std::string> bar_lines = lines_of(::testing::internal::GetCapturedStderr());
  ::testing::internal::CaptureStderr();
  {
    ProgressBoard board({"GPU 0"});
    board.start(0, "tune            512", 20);
    for (int i = 0; i < 20; ++i) board.advance(0, "best 1.0 TFLOP/s");
    board.finish(0);
  }
  const std::vector<std::string> board_lines = lines_of(::testing::internal::GetCapturedStderr());
  ASSERT_EQ(board_lines.size(), bar_lines.size());
  for (std::size_t i = 0; i < bar_lines.size(); ++i)  // the same but for the rate and times
    EXPECT_EQ(board_lines[i].substr(0, board_lines[i].find('%')),
              bar_lines[i].substr(0, bar_lines[i].find('%')));
  EXPECT_EQ(board_lines.front().rfind("tune            512 [", 0), 0u) << board_lines.front();
  EXPECT_NE(board_lines.back().find("20/20 100%"), std::string::npos) << board_lines.back();
  EXPECT_NE(board_lines.back().find("took"), std::string::npos) << board_lines.back();
}

TEST(ProgressBoard, SeveralGpusReportAtOnceEachLineNamingItsGpu) {
  ::testing::internal::CaptureStderr();
  {
    ProgressBoard board({"GPU 0", "GPU 2", "GPU 3"});
    std::vector<std::thread> threads;
    for (std::size_t slot = 0; slot < 3; ++slot)
      threads.emplace_back([&board, slot] {
        for (int problem = 0; problem < 2; ++problem) {
          board.start(slot, "tune " + std::to_string(problem), 50);
          for (int i = 0; i < 50; ++i) board.advance(slot, "note");
          board.finish(slot);
        }
      });
    for (auto& t : threads) t.join();
  }
  const std::vector<std::string> lines = lines_of(::testing::internal::GetCapturedStderr());
  // Per GPU and problem: the start, one per 10%, and the end.
  EXPECT_EQ(lines.size(), 3u * 2u * (1 + 10 + 1));
  std::size_t finished = 0;
  for (const std::string& line : lines) {
    EXPECT_TRUE(line.rfind("GPU 0 tune ", 0) == 0 || line.rfind("GPU 2 tune ", 0) == 0 ||
                line.rfind("GPU 3 tune ", 0) == 0)
        << line;
    if (line.find("took") != std::string::npos) ++finished;
  }
  EXPECT_EQ(finished, 6u);
}

}  // namespace
}  // namespace gemmtune
