// Faults the results cache and the compile cache must survive, each reproduced for real in child
// processes (no GPU needed): two tuners merging into one file at once, a tuner killed with SIGKILL
// in the middle of a write, a full disk (RLIMIT_FSIZE, which makes write() fail with EFBIG exactly
// as a full disk makes it fail with ENOSPC), a results directory the process may not write, and
// cache entries that were truncated or overwritten. The contract in every case: the results file is
// the old one or the new one, never a mix; a failure is an exception that names the file and the
// reason; a bad cache entry is rebuilt, never loaded.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <thread>

#include "../temp_dir_test.hpp"
#include "core/atomic_file.hpp"
#include "core/kernel_compiler.hpp"
#include "core/results_store.hpp"
#include "core/tuning_log.hpp"
#include "core/stable_hash.hpp"

namespace gemmtune {
namespace {

class Faults : public testing_paths::TempDirTest {
 protected:
  void TearDown() override {
    // A test may have made the directory read-only; give it back before removing it.
    std::error_code ignored;
    std::filesystem::permissions(dir_, std::filesystem::perms::owner_all, std::filesystem::perm_options::add,
                                 ignored);
    TempDirTest::TearDown();
  }
};

// An entry with a 4 KB payload: a file of a few hundred takes milliseconds to write, so a kill lands
// in the write, not only in the merge before it.
nlohmann::json entry(int m, int generation) {
  return {{"m", m},
          {"n", m},
          {"k", m},
          {"dtype", "f32"},
          {"layout", "row-major"},
          {"best", {{"generation", generation}, {"padding", std::string(4000, 'x')}}}};
}

nlohmann::json entries(int first_m, int count, int generation) {
  nlohmann::json list = nlohmann::json::array();
  for (int i = 0; i < count; ++i) list.push_back(entry(first_m + i, generation));
  return list;
}

// Runs body in a forked child and returns what it returned (through a pipe) and its exit status.
// An exception in the child is returned as "exception: <what>". The child never returns into the
// test framework: it leaves with _exit.
struct ChildResult {
  std::string output;
  int status = 0;
};

ChildResult run_in_child(const std::function<std::string()>& body) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    std::string out;
    try {
      out = body();
    } catch (const std::exception& e) {
      out = std::string("exception: ") + e.what();
    }
    const ssize_t written = ::write(fds[1], out.data(), out.size());
    ::_exit(written == static_cast<ssize_t>(out.size()) ? 0 : 1);
  }
  ::close(fds[1]);
  ChildResult result;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
    result.output.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  ::waitpid(pid, &result.status, 0);
  return result;
}

std::size_t entry_count(const std::filesystem::path& path) {
  return nlohmann::json::parse(*read_whole_file(path)).at("entries").size();
}

TEST_F(Faults, TwoProcessesMergingTheSameFileLoseNothing) {
  const auto path = dir_ / "gpu.json";
  constexpr int kProcesses = 2, kMergesEach = 25;
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      int failures = 0;
      for (int i = 0; i < kMergesEach; ++i) {
        try {
          merge_results(path, {{"writer", p}}, nlohmann::json::array({entry(1000 * (p + 1) + i, p)}));
        } catch (const std::exception&) {
          ++failures;
        }
      }
      ::_exit(failures == 0 ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(entry_count(path), std::size_t(kProcesses * kMergesEach));
}

TEST_F(Faults, KillNineDuringAWriteNeverLeavesATornFile) {
  const auto path = dir_ / "gpu.json";
  constexpr int kEntries = 300;  // about 1.3 MB
  merge_results(path, {{"device", "x"}}, entries(1, kEntries, 0));
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> delay_us(0, 30000);
  int killed_while_running = 0;
  for (int round = 1; round <= 20; ++round) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      try {
        for (int generation = round * 1000;; ++generation)
          merge_results(path, {{"device", "x"}}, entries(1, kEntries, generation));
      } catch (...) {
        ::_exit(3);  // never fall back into the test runner in the child
      }
    }
    std::this_thread::sleep_for(std::chrono::microseconds(delay_us(rng)));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) ++killed_while_running;
    // The file is always the last complete write: it parses and holds every entry.
    const auto text = read_whole_file(path);
    ASSERT_TRUE(text.has_value());
    const auto doc = nlohmann::json::parse(*text, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << "round " << round << ": the results file is torn";
    ASSERT_EQ(doc.at("entries").size(), std::size_t(kEntries)) << "round " << round;
  }
  EXPECT_EQ(killed_while_running, 20);
  // Each temporary left behind is a write that a kill interrupted (reported, not required: where a
  // kill lands is up to the scheduler).
  int interrupted_writes = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir_))
    interrupted_writes += f.path().filename().string().find(".tmp") != std::string::npos;
  RecordProperty("interrupted_writes", interrupted_writes);
  // The lock died with its holders: a new writer is not blocked.
  merge_results(path, {{"device", "x"}}, entries(kEntries + 1, 1, 0));
  EXPECT_EQ(entry_count(path), std::size_t(kEntries + 1));
}

// A full disk, reproduced with RLIMIT_FSIZE in a child: writes past the limit fail (EFBIG once
// SIGXFSZ is ignored), which write_file_atomically treats exactly like ENOSPC.
ChildResult with_file_size_limit(rlim_t bytes, const std::function<std::string()>& body) {
  return run_in_child([&] {
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{bytes, bytes};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) return std::string("setrlimit failed");
    return body();
  });
}

TEST_F(Faults, FullDiskFailsClearlyAndKeepsTheOldFile) {
  const auto path = dir_ / "gpu.json";
  merge_results(path, {{"device", "x"}}, entries(1, 2, 0));
  const std::string before = *read_whole_file(path);
  const ChildResult r = with_file_size_limit(before.size() + 1024, [&] {
    merge_results(path, {{"device", "x"}}, entries(100, 200, 1));
    return std::string("no error");
  });
  EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) << r.status;
  EXPECT_NE(r.output.find("exception: cannot write results " + path.string()), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(std::strerror(EFBIG)), std::string::npos) << r.output;
  EXPECT_EQ(*read_whole_file(path), before);
  for (const auto& f : std::filesystem::directory_iterator(dir_))
    EXPECT_EQ(f.path().string().find(".tmp"), std::string::npos) << "left behind: " << f.path();
}

TEST_F(Faults, FullDiskStopsTheTuningLogWithAClearError) {
  const auto path = dir_ / "gpu.jsonl";
  { TuningLog log(path, "gpu", "t"); }  // the header, written before the limit
  const auto size = std::filesystem::file_size(path);
  const ChildResult r = with_file_size_limit(size + 64, [&] {
    TuningLog log(path, "gpu", "t");
    log.append({512, 512, 512}, {{"name", "a"}, {"padding", std::string(1000, 'x')}});
    return std::string("no error");
  });
  EXPECT_NE(r.output.find("exception: cannot write the tuning log (disk full?)"), std::string::npos)
      << r.output;
  // What was written before stays readable; the torn record is skipped on the next start.
  TuningLog reopened(path, "gpu", "t");
  EXPECT_EQ(reopened.find({512, 512, 512}, "a"), nullptr);
}

// root ignores permission bits, so there the child first becomes an unprivileged user (nobody):
// the same directory is then as read-only for it as for any user's tuner.
TEST_F(Faults, ReadOnlyResultsDirectoryFailsClearlyAndKeepsTheOldFile) {
  const auto path = dir_ / "gpu.json";
  merge_results(path, {{"device", "x"}}, entries(1, 2, 0));
  const std::string before = *read_whole_file(path);
  std::filesystem::remove(dir_.string() + "/gpu.json.lock");
  std::filesystem::permissions(dir_,
                               std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec |
                                   std::filesystem::perms::group_read | std::filesystem::perms::group_exec |
                                   std::filesystem::perms::others_read | std::filesystem::perms::others_exec);
  const bool as_root = ::geteuid() == 0;
  const ChildResult r = run_in_child([&] {
    if (as_root && (::setgid(65534) != 0 || ::setuid(65534) != 0)) return std::string("cannot drop root");
    merge_results(path, {{"device", "x"}}, entries(100, 1, 1));
    return std::string("no error");
  });
  EXPECT_NE(r.output.find("exception: cannot lock " + path.string() + ".lock: " + std::strerror(EACCES)),
            std::string::npos)
      << r.output;
  EXPECT_EQ(*read_whole_file(path), before);
}

// A results "directory" that is a regular file: nothing can be created under it, whoever runs.
TEST_F(Faults, ResultsDirectoryThatIsAFileFailsClearly) {
  const auto not_a_dir = dir_ / "results";
  { std::ofstream(not_a_dir) << "a file"; }
  try {
    merge_results(not_a_dir / "gpu.json", {{"device", "x"}}, entries(1, 1, 0));
    ADD_FAILURE() << "merge_results wrote under a regular file";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(std::strerror(ENOTDIR)), std::string::npos) << e.what();
  }
  EXPECT_EQ(*read_whole_file(not_a_dir), "a file");
}

// Compile-cache entries as they can be found on disk. The nvrtc tier proves the same through a real
// compile (CompileCache tests); this needs no compiler.
class CacheEntry : public ::testing::Test {
 protected:
  const std::string cubin_ = std::string(
                                 "\x7f"
                                 "ELF",
                                 4) +
                             std::string(60, '\x01');
  nlohmann::json metadata_ = {{"cubin_bytes", cubin_.size()},
                              {"cubin_hash", stable_hash_hex(cubin_)},
                              {"symbol", "g"},
                              {"registers", 96},
                              {"spill_store_bytes", 0},
                              {"spill_load_bytes", 0},
                              {"stack_bytes", 0}};
};

TEST_F(CacheEntry, IntactEntryIsLoaded) {
  const auto k = decode_cache_entry(metadata_.dump(), cubin_, "key");
  ASSERT_TRUE(k.has_value());
  EXPECT_EQ(k->cubin, cubin_);
  EXPECT_EQ(k->resources.registers, 96);
  EXPECT_TRUE(k->from_cache);
}

TEST_F(CacheEntry, TruncatedMetadataIsRejected) {
  const std::string text = metadata_.dump();
  for (std::size_t cut = 0; cut < text.size(); cut += 7)
    EXPECT_FALSE(decode_cache_entry(text.substr(0, cut), cubin_, "key").has_value()) << cut;
}

TEST_F(CacheEntry, GarbageCubinOfTheSameSizeIsRejected) {
  EXPECT_FALSE(decode_cache_entry(metadata_.dump(), std::string(cubin_.size(), '\0'), "key").has_value());
  EXPECT_FALSE(decode_cache_entry(metadata_.dump(), cubin_.substr(1), "key").has_value());
}

TEST_F(CacheEntry, MistypedOrOutOfRangeFieldsAreRejected) {
  for (const auto& [field, value] :
       std::vector<std::pair<std::string, nlohmann::json>>{{"cubin_bytes", -1.5},
                                                           {"cubin_bytes", "64"},
                                                           {"registers", 1e300},
                                                           {"registers", -4},
                                                           {"stack_bytes", 3e9},
                                                           {"symbol", 7},
                                                           {"cubin_hash", nullptr}}) {
    nlohmann::json meta = metadata_;
    meta[field] = value;
    EXPECT_FALSE(decode_cache_entry(meta.dump(), cubin_, "key").has_value()) << field << " = " << value;
  }
}

}  // namespace
}  // namespace gemmtune
