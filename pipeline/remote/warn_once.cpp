#include "remote/warn_once.hpp"

namespace af::remote {

std::string mask_secrets(std::string message, const std::vector<std::string>& secrets) {
    for (const std::string& secret : secrets) {
        if (secret.empty()) continue;
        for (size_t at = message.find(secret); at != std::string::npos; at = message.find(secret, at + 3))
            message.replace(at, secret.size(), "***");
    }
    return message;
}

WarnOnce::WarnOnce(std::function<void(const std::string&)> sink, std::vector<std::string> secrets)
    : sink_(std::move(sink)), secrets_(std::move(secrets)) {}

void WarnOnce::operator()(const std::string& kind, const std::string& message) {
    if (!sink_) return;
    try {
        // The sink is called under the lock too, so callers need not make it thread-safe.
        std::lock_guard lock(mutex_);
        if (!seen_.insert(kind).second) return;
        sink_(mask_secrets(message, secrets_));
    } catch (...) {
        // A warning that cannot be delivered must not turn a cache problem into a build failure.
    }
}

} // namespace af::remote
