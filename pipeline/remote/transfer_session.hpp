// A curl multi handle with its easy handles, used by one thread at a time. A session outlives single calls so
// that its connections stay open (keep-alive) for the next request, and it runs a batch of requests in parallel.
#pragma once

#include "remote/endpoint.hpp"
#include "remote/http_types.hpp"

#include <curl/curl.h>

#include <cstddef>
#include <vector>

namespace af::remote {

struct TransferSettings {
    long connect_timeout_ms = 2000;
    long timeout_ms = 20000;
    const Endpoint* endpoint = nullptr;
    const curl_slist* headers = nullptr; // shared read-only by every session
};

struct ActiveTransfer; // one request's state while curl runs it

class TransferSession {
  public:
    explicit TransferSession(const TransferSettings& settings);
    ~TransferSession();
    TransferSession(const TransferSession&) = delete;
    TransferSession& operator=(const TransferSession&) = delete;

    // Performs requests[i] for each i in `which` and fills responses[i]; never throws for a failed transfer.
    void run(const std::vector<HttpRequest>& requests, std::vector<HttpResponse>& responses,
             const std::vector<size_t>& which);

  private:
    void configure(CURL* easy, ActiveTransfer& t) const;
    static void finish(ActiveTransfer& t, CURLcode result);

    const TransferSettings& settings_;
    CURLM* multi_ = nullptr;
    std::vector<CURL*> idle_;
};

} // namespace af::remote
