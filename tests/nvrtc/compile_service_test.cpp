// The one compile pool of a tune run, with real NVRTC: GPUs of one architecture share a binary,
// another architecture gets its own, and a binary a GPU is waiting for jumps the queue.
#include "compile/compile_service.hpp"

#include <gtest/gtest.h>

#include <chrono>

#include "search/device_catalog.hpp"
#include "search/search_space.hpp"

namespace gemmtune {
namespace {

using Need = CompileService::Need;

std::vector<KernelConfig> first_configs(std::size_t count) {
  std::vector<KernelConfig> all =
      enumerate(load_search_space({}), load_device_profile("h100"), nullptr).candidates;
  all.resize(std::min(count, all.size()));
  return all;
}

bool ready(const std::shared_future<CompileOutcome>& f) {
  return f.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

TEST(CompileService, GpusOfOneArchitectureShareABinaryAndAnotherGetsItsOwn) {
  const KernelCompiler compiler{""};  // no cache: really compile
  CompileService pool(compiler, 2);
  const KernelConfig config = first_configs(1).front();
  const auto first_gpu = pool.submit(config, "sm_90", KernelPath::general);
  const auto second_gpu = pool.submit(config, "sm_90", KernelPath::general, Need::now);
  const auto other_model = pool.submit(config, "sm_80", KernelPath::general);
  const auto other_path = pool.submit(config, "sm_90", KernelPath::whole_vectors);
  ASSERT_TRUE(first_gpu.get().kernel) << first_gpu.get().error;
  EXPECT_EQ(&first_gpu.get(), &second_gpu.get());  // one compile, one outcome
  ASSERT_TRUE(other_model.get().kernel) << other_model.get().error;
  EXPECT_NE(&first_gpu.get(), &other_model.get());
  ASSERT_TRUE(other_path.get().kernel) << other_path.get().error;
  EXPECT_NE(other_path.get().kernel->symbol, first_gpu.get().kernel->symbol);
}

TEST(CompileService, ABinaryAGpuWaitsForJumpsTheQueue) {
  const KernelCompiler compiler{""};
  CompileService pool(compiler, 1);  // one thread: the order is observable
  const std::vector<KernelConfig> configs = first_configs(4);
  ASSERT_EQ(configs.size(), 4u);
  std::vector<std::shared_future<CompileOutcome>> futures;
  for (const KernelConfig& c : configs) futures.push_back(pool.submit(c, "sm_90", KernelPath::general, Need::later));
  // The thread took the first; a GPU now waits for the last.
  pool.submit(configs[3], "sm_90", KernelPath::general, Need::now);
  futures[3].wait();
  EXPECT_FALSE(ready(futures[2])) << "the third was queued before the last but should run after it";
  for (const auto& f : futures) EXPECT_TRUE(f.get().kernel) << f.get().error;
}

}  // namespace
}  // namespace gemmtune
