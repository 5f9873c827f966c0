// POSIX implementation: open/write/fsync/rename, with errno turned into the error text.
#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include <fmt/format.h>

namespace gemmtune {

bool write_file_atomically(const std::filesystem::path& path, const std::string& data, std::string* error) {
  // The process id keeps concurrent writers apart, and a forked child (which inherits its
  // parent's generator state) apart from its parent and siblings; a name left by a killed
  // writer whose pid was reused is skipped by trying another.
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
    tmp = path.string() + fmt::format(".tmp{}-{:016x}", static_cast<long>(::getpid()), rng());
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno != EEXIST) break;
  }
  auto fail = [&](const char* what) {
    if (error) *error = fmt::format("{} {}: {}", what, tmp, std::strerror(errno));
    return false;
  };
  if (fd < 0) return fail("cannot create");
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const bool ok = fail("cannot write");
      ::close(fd);
      ::unlink(tmp.c_str());
      return ok;
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    fail("cannot flush");
    ::close(fd);
    ::unlink(tmp.c_str());
    return false;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    if (error) *error = fmt::format("cannot replace {}: {}", path.string(), std::strerror(errno));
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

std::optional<std::string> read_whole_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace gemmtune
