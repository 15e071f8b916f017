#include "remote/http_transport.hpp"

#include "remote/curl_global.hpp"

#include <chrono>
#include <new>
#include <random>
#include <thread>

namespace af::remote {

namespace {

curl_slist* append(curl_slist* list, const std::string& line) {
    curl_slist* grown = curl_slist_append(list, line.c_str());
    if (!grown) {
        curl_slist_free_all(list);
        throw std::bad_alloc();
    }
    return grown;
}

// Spread retries of many threads so they do not hit a recovering server in lockstep.
long jittered(long ms) {
    thread_local std::minstd_rand rng{std::random_device{}()};
    return ms / 2 + static_cast<long>(rng() % static_cast<unsigned long>(ms / 2 + 1));
}

} // namespace

HttpTransport::HttpTransport(const TransportOptions& options, const Endpoint& endpoint)
    : options_(options), endpoint_(endpoint) {
    ensure_curl_initialised();
    // curl would otherwise wait up to a second for "100 Continue" before sending a large PUT body.
    headers_ = append(headers_, "Expect:");
    if (!endpoint_.bearer_token.empty()) headers_ = append(headers_, "Authorization: Bearer " + endpoint_.bearer_token);
    settings_.connect_timeout_ms = options_.connect_timeout_ms;
    settings_.timeout_ms = options_.timeout_ms;
    settings_.endpoint = &endpoint_;
    settings_.headers = headers_;
}

HttpTransport::~HttpTransport() {
    idle_.clear();
    curl_slist_free_all(headers_);
}

std::unique_ptr<TransferSession> HttpTransport::take_session() {
    {
        std::lock_guard lock(mutex_);
        if (!idle_.empty()) {
            auto s = std::move(idle_.back());
            idle_.pop_back();
            return s;
        }
    }
    return std::make_unique<TransferSession>(settings_);
}

void HttpTransport::give_back(std::unique_ptr<TransferSession> session) {
    std::lock_guard lock(mutex_);
    idle_.push_back(std::move(session));
}

std::vector<HttpResponse> HttpTransport::perform(const std::vector<HttpRequest>& requests) {
    std::vector<HttpResponse> responses(requests.size());
    std::vector<int> attempts(requests.size(), 0);
    std::vector<size_t> pending(requests.size());
    for (size_t i = 0; i < pending.size(); ++i) pending[i] = i;

    std::unique_ptr<TransferSession> session = take_session();
    long backoff = options_.backoff_ms;
    for (int round = 0;; ++round) {
        session->run(requests, responses, pending);
        std::vector<size_t> again;
        for (size_t i : pending) {
            ++attempts[i];
            if (is_retryable(responses[i])) again.push_back(i);
        }
        if (again.empty() || round >= options_.retries) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(jittered(backoff)));
        backoff *= 2;
        pending = std::move(again);
    }
    give_back(std::move(session));
    for (size_t i = 0; i < responses.size(); ++i) responses[i].attempts = attempts[i];
    return responses;
}

} // namespace af::remote
