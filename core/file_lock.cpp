// Closing the descriptor releases the lock, so the destructor is all the unlocking there is.
#include "core/file_lock.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace gemmtune {

FileLock::FileLock(const std::filesystem::path& lock_path) {
  fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0 || ::flock(fd_, LOCK_EX) != 0) {
    const int error = errno;
    if (fd_ >= 0) ::close(fd_);
    throw std::runtime_error(fmt::format("cannot lock {}: {}", lock_path.string(), std::strerror(error)));
  }
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace gemmtune
