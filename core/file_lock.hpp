// An exclusive lock on a companion file (<path>.lock), for read-modify-write cycles several processes
// run on one file: results caches, record files. flock is advisory, but every gemmtune process takes
// it, and the kernel releases it if the holder dies.
#pragma once

#include <filesystem>

namespace gemmtune {

class FileLock {
 public:
  // Blocks until the lock is held; throws std::runtime_error naming the file if it cannot be taken.
  explicit FileLock(const std::filesystem::path& lock_path);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace gemmtune
