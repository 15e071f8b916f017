// One HTTP exchange with the cache server, as the transport sees it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace af::remote {

struct HttpRequest {
    bool put = false;
    std::string url;
    std::span<const uint8_t> body; // PUT only; must outlive the request
    // A longer successful response body is refused (Outcome::TooLarge), so a server cannot make us buffer an
    // arbitrary amount.
    size_t max_response = 0;
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
    std::vector<uint8_t> body;
    std::string error; // curl's description; names hosts, never credentials
    int attempts = 0;
};

inline bool is_retryable(const HttpResponse& r) {
    return r.outcome == Outcome::NoResponse || (r.outcome == Outcome::HttpError && r.status >= 500);
}

} // namespace af::remote
