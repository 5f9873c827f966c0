// The desk through which GPUs with no problem left measure for the others (issue #47): a request
// is wanted only while a helper of the same GPU model has none waiting, and none is ever lost: a
// request nobody can take fails at once or when its model's last helper leaves, and the problem's
// GPU measures it itself.
#include "commands/help_desk.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>

namespace gemmtune {
namespace {

using std::chrono::milliseconds;

const GemmShape kScreen{1024, 1024, 256};
const KernelConfig kConfig{};

bool ready(std::future<nlohmann::json>& f) {
  return f.wait_for(milliseconds(0)) == std::future_status::ready;
}

TEST(HelpDesk, WantedOnlyWhileAHelperOfTheModelHasNothingWaiting) {
  HelpDesk desk;
  EXPECT_FALSE(desk.wanted("h200"));
  desk.join("h200");
  EXPECT_TRUE(desk.wanted("h200"));
  EXPECT_FALSE(desk.wanted("h100")) << "timings of another model do not mix";
  auto reply = desk.hand("h200", kScreen, kConfig);
  EXPECT_FALSE(desk.wanted("h200")) << "one request waits for the one helper";
  std::optional<HelpDesk::Request> request = desk.take("h200", milliseconds(0));
  ASSERT_TRUE(request);
  EXPECT_EQ(request->screen, kScreen);
  EXPECT_TRUE(desk.wanted("h200")) << "while it measures, the next may wait for it";
  request->reply.set_value({{"status", "ok"}});
  EXPECT_EQ(reply.get()["status"], "ok");
  desk.leave("h200");
  EXPECT_FALSE(desk.wanted("h200"));
}

TEST(HelpDesk, ARequestNobodyCanTakeFailsSoTheProblemsGpuMeasuresIt) {
  HelpDesk desk;
  auto nobody = desk.hand("h200", kScreen, kConfig);
  ASSERT_TRUE(ready(nobody));
  EXPECT_THROW(nobody.get(), std::runtime_error);

  desk.join("h200");
  desk.join("h200");
  auto first = desk.hand("h200", kScreen, kConfig);
  auto second = desk.hand("h200", kScreen, kConfig);
  desk.leave("h200");
  EXPECT_FALSE(ready(first)) << "another helper of the model is still there";
  desk.leave("h200");
  ASSERT_TRUE(ready(first));
  ASSERT_TRUE(ready(second));
  EXPECT_THROW(first.get(), std::runtime_error);
  EXPECT_THROW(second.get(), std::runtime_error);
}

TEST(HelpDesk, AWaitingHelperWakesWhenARequestArrives) {
  HelpDesk desk;
  desk.join("h200");
  EXPECT_FALSE(desk.take("h200", milliseconds(1))) << "none arrived";
  std::thread problem([&] {
    std::this_thread::sleep_for(milliseconds(20));
    auto reply = desk.hand("h200", kScreen, kConfig);
    EXPECT_EQ(reply.get()["median_ms"], 1.5);
  });
  const auto t0 = std::chrono::steady_clock::now();
  std::optional<HelpDesk::Request> request = desk.take("h200", milliseconds(5000));
  ASSERT_TRUE(request);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, milliseconds(2000));
  request->reply.set_value({{"median_ms", 1.5}});
  problem.join();
  desk.leave("h200");
}

}  // namespace
}  // namespace gemmtune
