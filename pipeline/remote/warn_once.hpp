// Reports each kind of problem once: a cache that is down would otherwise print the same line for every action
// of a build. Every message passes through a filter that masks the configured secrets.
#pragma once

#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace af::remote {

class WarnOnce {
  public:
    WarnOnce(std::function<void(const std::string&)> sink, std::vector<std::string> secrets);
    // Sends the message unless a message of this kind was sent before; never throws.
    void operator()(const std::string& kind, const std::string& message);

  private:
    std::function<void(const std::string&)> sink_;
    std::vector<std::string> secrets_;
    std::mutex mutex_;
    std::set<std::string> seen_;
};

// The message with every occurrence of each secret replaced by "***".
std::string mask_secrets(std::string message, const std::vector<std::string>& secrets);

} // namespace af::remote
