#include "commands/help_desk.hpp"

#include <stdexcept>

namespace gemmtune {

bool HelpDesk::wanted(const std::string& model) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto helpers = helpers_.find(model);
  if (helpers == helpers_.end()) return false;
  const auto waiting = waiting_.find(model);
  return (waiting == waiting_.end() ? 0 : waiting->second.size()) < helpers->second;
}

std::future<nlohmann::json> HelpDesk::hand(const std::string& model, const GemmShape& screen,
                                           const KernelConfig& config) {
  Request request{screen, config, {}};
  std::future<nlohmann::json> reply = request.reply.get_future();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (helpers_.count(model) == 0) {
      request.reply.set_exception(std::make_exception_ptr(std::runtime_error("no GPU helps")));
      return reply;
    }
    waiting_[model].push_back(std::move(request));
  }
  arrived_.notify_all();
  return reply;
}

void HelpDesk::join(const std::string& model) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++helpers_[model];
}

void HelpDesk::leave(const std::string& model) {
  std::deque<Request> orphans;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (--helpers_[model] > 0) return;
    helpers_.erase(model);
    orphans.swap(waiting_[model]);
  }
  for (Request& r : orphans)
    r.reply.set_exception(std::make_exception_ptr(std::runtime_error("the helping GPU left")));
}

std::optional<HelpDesk::Request> HelpDesk::take(const std::string& model, std::chrono::milliseconds wait) {
  std::unique_lock<std::mutex> lock(mutex_);
  std::deque<Request>& queue = waiting_[model];
  if (!arrived_.wait_for(lock, wait, [&] { return !queue.empty(); })) return std::nullopt;
  Request request = std::move(queue.front());
  queue.pop_front();
  return request;
}

}  // namespace gemmtune
