// --gpu without a GPU: the grammar (auto, all, an index, a list, a name), its errors, and lists
// resolved against made-up machines of 1, 4 and 8 GPUs.
#include "measure/gpu_list.hpp"

#include <gtest/gtest.h>

#include <climits>
#include <stdexcept>
#include <string>

namespace gemmtune {
namespace {

VisibleGpu eight_h100_and_a_t4(int i) {
  if (i == 8) return {"Tesla T4", "tesla-t4"};
  return {"NVIDIA H100 80GB HBM3", "nvidia-h100-80gb-hbm3"};
}

std::vector<int> resolve(const std::string& text, int visible) {
  return resolve_gpus(parse_gpu_request(text), visible, eight_h100_and_a_t4);
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(GpuList, AutoIsTheFirstVisibleGpu) {
  EXPECT_EQ(resolve("auto", 4), (std::vector<int>{0}));
}

TEST(GpuList, AllIsEveryVisibleGpuInOrder) {
  EXPECT_EQ(resolve("all", 4), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(resolve("all", 1), (std::vector<int>{0}));
}

TEST(GpuList, AnIndexIsAListOfOne) {
  const GpuRequest r = parse_gpu_request("2");
  EXPECT_EQ(r.kind, GpuRequest::Kind::indices);
  EXPECT_EQ(resolve("2", 4), (std::vector<int>{2}));
}

TEST(GpuList, AListKeepsTheOrderGiven) {
  EXPECT_EQ(resolve("0,2,3", 4), (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(resolve("3,1", 4), (std::vector<int>{3, 1}));
}

TEST(GpuList, ANameIsTheFirstMatchBySubstringOrSlug) {
  EXPECT_EQ(resolve("h100", 9), (std::vector<int>{0}));
  EXPECT_EQ(resolve("T4", 9), (std::vector<int>{8}));
  EXPECT_EQ(resolve("tesla-t4", 9), (std::vector<int>{8}));
}

TEST(GpuList, BadListsAreRefusedBeforeAnyDeviceIsAsked) {
  EXPECT_NE(error_of([] { parse_gpu_request(""); }).find("no GPU given"), std::string::npos);
  EXPECT_NE(error_of([] { parse_gpu_request("0,,2"); }).find("--gpu 0,,2: empty entry"), std::string::npos);
  EXPECT_NE(error_of([] { parse_gpu_request(","); }).find("empty entry"), std::string::npos);
  EXPECT_NE(error_of([] { parse_gpu_request("0,"); }).find("empty entry"), std::string::npos);
  EXPECT_NE(error_of([] { parse_gpu_request("0,2,0"); }).find("--gpu 0,2,0: GPU 0 is listed twice"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_gpu_request("0,h100"); }).find("'h100' is not a GPU index"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_gpu_request("0,-1"); }).find("'-1' is not a GPU index"), std::string::npos);
}

TEST(GpuList, RepeatsAreAllowedOnlyWhenATestAsks) {
  EXPECT_EQ(parse_gpu_request("0,0", /*allow_repeats=*/true).indices, (std::vector<int>{0, 0}));
  EXPECT_EQ(resolve_gpus(parse_gpu_request("0,0", true), 1, eight_h100_and_a_t4), (std::vector<int>{0, 0}));
}

TEST(GpuList, IndicesThatAreNotVisibleAreNamed) {
  EXPECT_EQ(error_of([] { resolve("0,2,5", 4); }),
            "--gpu 0,2,5: GPU 5 is not visible; only 4 device(s) visible");
  EXPECT_EQ(error_of([] { resolve("1", 1); }), "--gpu 1: GPU 1 is not visible; only 1 device(s) visible");
  EXPECT_EQ(error_of([] { resolve("99999999999", 8); }), "--gpu 99999999999: only 8 device(s) visible");
  EXPECT_EQ(parse_gpu_request("123456").indices, (std::vector<int>{INT_MAX}));
}

TEST(GpuList, ANameMatchingNothingListsWhatIsVisible) {
  EXPECT_EQ(error_of([] { resolve("a100", 1); }),
            "--gpu 'a100' matches no visible device (visible: NVIDIA H100 80GB HBM3)");
}

}  // namespace
}  // namespace gemmtune
