// The one compile pool of a tune run, with real NVRTC: GPUs of one architecture share a binary,
// another architecture gets its own, a binary a GPU is waiting for jumps the queue, one the disk
// cache holds is there at once, a finished search's speculation can be withdrawn, and the pool
// lists the binaries it compiled (a later problem's on-hand list).
#include "compile/compile_service.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>
#include <unistd.h>

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
  CompileService pool(compiler, 1);  // one thread in each lane: the order is observable
  const std::vector<KernelConfig> configs = first_configs(4);
  ASSERT_EQ(configs.size(), 4u);
  std::vector<std::shared_future<CompileOutcome>> futures;
  for (const KernelConfig& c : configs) futures.push_back(pool.submit(c, "sm_90", KernelPath::general, Need::later));
  // The speculative lane took the first; a GPU now waits for the last.
  pool.submit(configs[3], "sm_90", KernelPath::general, Need::now);
  futures[3].wait();
  EXPECT_FALSE(ready(futures[2])) << "the third was queued before the last but should run after it";
  for (const auto& f : futures) EXPECT_TRUE(f.get().kernel) << f.get().error;
}

// A search that ended takes back its speculative compiles still queued, and only those: not another
// search's, not one a GPU has asked for since.
TEST(CompileService, WithdrawDropsOnlyTheOwnersQueuedSpeculation) {
  const KernelCompiler compiler{""};
  CompileService pool(compiler, 1);
  const std::vector<KernelConfig> configs = first_configs(4);
  ASSERT_EQ(configs.size(), 4u);
  const int search = 0, other_search = 0;
  std::vector<std::shared_future<CompileOutcome>> futures;
  for (int i = 0; i < 3; ++i)
    futures.push_back(pool.submit(configs[i], "sm_90", KernelPath::general, Need::later, &search));
  futures.push_back(pool.submit(configs[3], "sm_90", KernelPath::general, Need::later, &other_search));
  while (pool.queued() == 4) std::this_thread::yield();  // the speculative lane has taken the first
  pool.submit(configs[1], "sm_90", KernelPath::general, Need::soon);  // asked for since
  pool.withdraw(&search);
  EXPECT_TRUE(futures[0].get().kernel) << "being compiled when withdrawn: " << futures[0].get().error;
  EXPECT_TRUE(futures[1].get().kernel) << futures[1].get().error;
  EXPECT_THROW(futures[2].get(), std::future_error);
  EXPECT_TRUE(futures[3].get().kernel) << futures[3].get().error;
  const auto again = pool.submit(configs[2], "sm_90", KernelPath::general, Need::soon);
  EXPECT_TRUE(again.get().kernel) << "a withdrawn binary can be asked for again: " << again.get().error;
}

// With a warm cache, a search's next candidates must not wait for the one thread, busy with a
// speculative compile: a cached binary is read by the caller, whether it was queued before or not.
TEST(CompileService, CachedBinariesDoNotWaitForTheQueue) {
  const auto dir = std::filesystem::temp_directory_path() / ("gemmtune-pool-cache-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const KernelCompiler compiler{dir};
  const std::vector<KernelConfig> configs = first_configs(4);
  ASSERT_EQ(configs.size(), 4u);
  compiler.compile(configs[2], "sm_90", KernelPath::general);
  compiler.compile(configs[3], "sm_90", KernelPath::general);
  CompileService pool(compiler, 1);
  const auto busy = pool.submit(configs[0], "sm_90", KernelPath::general, Need::later);
  pool.submit(configs[1], "sm_90", KernelPath::general, Need::later);
  pool.submit(configs[2], "sm_90", KernelPath::general, Need::later);
  const auto queued_before = pool.submit(configs[2], "sm_90", KernelPath::general, Need::soon);
  const auto new_now = pool.submit(configs[3], "sm_90", KernelPath::general, Need::now);
  EXPECT_TRUE(ready(queued_before));
  EXPECT_TRUE(ready(new_now));
  EXPECT_FALSE(ready(busy)) << "the thread's compile should still be running";
  ASSERT_TRUE(queued_before.get().kernel) << queued_before.get().error;
  EXPECT_TRUE(queued_before.get().kernel->from_cache);
  ASSERT_TRUE(new_now.get().kernel) << new_now.get().error;
  EXPECT_TRUE(new_now.get().kernel->from_cache);
  EXPECT_TRUE(busy.get().kernel) << busy.get().error;
  std::filesystem::remove_all(dir);
}

// What the pool compiled successfully is listed by its cache key, so a problem taken later counts it
// as on hand; a failed compile is not listed (trying it again costs another compile).
TEST(CompileService, ListsTheBinariesItCompiled) {
  const KernelCompiler compiler{""};
  CompileService pool(compiler, 1);
  const std::vector<KernelConfig> configs = first_configs(2);
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_TRUE(pool.compiled().empty());
  const auto speculative = pool.submit(configs[0], "sm_90", KernelPath::general, Need::later);
  const auto pressing = pool.submit(configs[1], "sm_90", KernelPath::whole_vectors, Need::now);
  ASSERT_TRUE(speculative.get().kernel) << speculative.get().error;
  ASSERT_TRUE(pressing.get().kernel) << pressing.get().error;
  const std::unordered_set<std::string> expected = {
      compiler.cache_key(configs[0].family, configs[0].name_expression(KernelPath::general), "sm_90"),
      compiler.cache_key(configs[1].family, configs[1].name_expression(KernelPath::whole_vectors), "sm_90")};
  EXPECT_EQ(pool.compiled(), expected);

  const KernelCompiler broken{"", "this is not a CUDA program"};
  CompileService broken_pool(broken, 1);
  EXPECT_FALSE(broken_pool.submit(configs[0], "sm_90", KernelPath::general, Need::now).get().kernel);
  EXPECT_TRUE(broken_pool.compiled().empty());
}

}  // namespace
}  // namespace gemmtune
