// One HTTP exchange with the cache server, as the transport sees it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace af::remote {

// Where a successful response body goes instead of HttpResponse::body, chunk by chunk as it arrives, so a large
// body never sits in memory. Called from the thread that runs the transfer.
class BodySink {
  public:
    virtual ~BodySink() = default;
    // The transfer starts (again, on a retry): drop anything written before.
    virtual void restart() = 0;
    // False stops the transfer (Outcome::Failed, with `why()`).
    virtual bool write(std::span<const uint8_t> chunk) = 0;
    virtual std::string why() const = 0;
};

struct HttpRequest {
    bool put = false;
    std::string url;
    std::span<const uint8_t> body; // PUT only; must outlive the request
    // A longer successful response body is refused (Outcome::TooLarge), so a server cannot make us buffer an
    // arbitrary amount.
    size_t max_response = 0;
    BodySink* sink = nullptr; // GET only; null: the body is kept in HttpResponse::body
};

enum class Outcome {
    Ok,         // 2xx, body complete
    NotFound,   // 404
    HttpError,  // any other status; 5xx is retried
    NoResponse, // connection failed or dropped before a complete answer; retried
    TimedOut,   // the request was sent but the answer came too slowly; not retried, that would only triple the wait
    TooLarge,   // the body exceeded max_response
    Failed,     // anything else curl refused (bad TLS certificate, ...); not retried
};

struct HttpResponse {
    Outcome outcome = Outcome::Failed;
    long status = 0;
    std::vector<uint8_t> body; // empty when the request had a sink
    size_t received = 0;       // bytes of the successful body, in `body` or given to the sink
    std::string error;         // curl's description; names hosts, never credentials
    int attempts = 0;
};

inline bool is_retryable(const HttpResponse& r) {
    return r.outcome == Outcome::NoResponse || (r.outcome == Outcome::HttpError && r.status >= 500);
}

} // namespace af::remote
