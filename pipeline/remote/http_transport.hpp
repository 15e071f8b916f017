// Runs batches of requests against the cache server with retries, from any number of threads at once.
#pragma once

#include "remote/endpoint.hpp"
#include "remote/http_types.hpp"
#include "remote/transfer_session.hpp"

#include <memory>
#include <mutex>
#include <vector>

namespace af::remote {

struct TransportOptions {
    long connect_timeout_ms = 2000;
    long timeout_ms = 20000;
    int retries = 2;
    long backoff_ms = 100; // before the first retry; doubled for each further one
};

class HttpTransport {
  public:
    HttpTransport(const TransportOptions& options, const Endpoint& endpoint);
    ~HttpTransport();
    HttpTransport(const HttpTransport&) = delete;
    HttpTransport& operator=(const HttpTransport&) = delete;

    // One response per request, same order. Requests that fail in a retryable way are sent again, all together,
    // after a backoff, up to options.retries times.
    std::vector<HttpResponse> perform(const std::vector<HttpRequest>& requests);

  private:
    // A session is taken by one call and given back after, so connections are reused by whichever thread comes
    // next, and a burst of threads never shares a curl handle.
    std::unique_ptr<TransferSession> take_session();
    void give_back(std::unique_ptr<TransferSession> session);

    TransportOptions options_;
    Endpoint endpoint_;
    curl_slist* headers_ = nullptr;
    TransferSettings settings_;
    std::mutex mutex_;
    std::vector<std::unique_ptr<TransferSession>> idle_;
};

} // namespace af::remote
