#include "remote/transfer_session.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>

namespace af::remote {

namespace {

// Transfers per batch at once: enough to hide latency on many small blobs without opening a connection per
// blob, and few enough that a transfer never waits in curl's queue while its own timeout runs.
constexpr size_t kParallel = 8;
// An error page is read only to keep the connection reusable; a longer one is not worth the wait.
constexpr size_t kMaxErrorBody = 64 * 1024;

} // namespace

struct ActiveTransfer {
    const HttpRequest* req = nullptr;
    HttpResponse* resp = nullptr;
    CURL* easy = nullptr;
    size_t sent = 0;
    size_t discarded = 0;
    bool overflow = false;
    bool out_of_memory = false;
    bool sink_failed = false;
    bool attached = false; // added to the multi handle and not yet done
    char errbuf[CURL_ERROR_SIZE] = {};
};

namespace {

size_t on_body(char* data, size_t size, size_t count, void* user) {
    auto& t = *static_cast<ActiveTransfer*>(user);
    const size_t n = size * count;
    long status = 0;
    curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &status);
    if (status < 200 || status >= 300) {
        t.discarded += n;
        return t.discarded > kMaxErrorBody ? 0 : n;
    }
    if (n > t.req->max_response - t.resp->received) {
        t.overflow = true;
        return 0; // aborts the transfer before the excess is stored
    }
    if (t.req->sink) {
        if (!t.req->sink->write({reinterpret_cast<const uint8_t*>(data), n})) {
            t.sink_failed = true;
            return 0;
        }
        t.resp->received += n;
        return n;
    }
    std::vector<uint8_t>& body = t.resp->body;
    // An exception must not unwind through curl's C frames.
    try {
        body.insert(body.end(), reinterpret_cast<const uint8_t*>(data), reinterpret_cast<const uint8_t*>(data) + n);
        t.resp->received += n;
    } catch (const std::bad_alloc&) {
        t.out_of_memory = true;
        return 0;
    }
    return n;
}

size_t on_read(char* buffer, size_t size, size_t count, void* user) {
    auto& t = *static_cast<ActiveTransfer*>(user);
    const std::span<const uint8_t> body = t.req->body;
    const size_t n = std::min(size * count, body.size() - t.sent);
    if (n) std::memcpy(buffer, body.data() + t.sent, n);
    t.sent += n;
    return n;
}

// curl rewinds the upload when it must resend it (e.g. on a reused connection the server had closed).
int on_seek(void* user, curl_off_t offset, int origin) {
    auto& t = *static_cast<ActiveTransfer*>(user);
    if (origin != SEEK_SET || offset < 0 || static_cast<size_t>(offset) > t.req->body.size())
        return CURL_SEEKFUNC_CANTSEEK;
    t.sent = static_cast<size_t>(offset);
    return CURL_SEEKFUNC_OK;
}

} // namespace

TransferSession::TransferSession(const TransferSettings& settings) : settings_(settings), multi_(curl_multi_init()) {
    if (!multi_) throw std::bad_alloc();
    curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, static_cast<long>(kParallel));
}

TransferSession::~TransferSession() {
    for (CURL* easy : idle_) curl_easy_cleanup(easy);
    curl_multi_cleanup(multi_);
}

void TransferSession::configure(CURL* easy, ActiveTransfer& t) const {
    const Endpoint& ep = *settings_.endpoint;
    curl_easy_reset(easy);
    curl_easy_setopt(easy, CURLOPT_URL, t.req->url.c_str());
    curl_easy_setopt(easy, CURLOPT_PRIVATE, &t);
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, t.errbuf);
    // Signals cannot interrupt a resolver in a multi-threaded process.
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    // A redirect could carry credentials to another host; a cache has no reason to redirect.
    curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, settings_.connect_timeout_ms);
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, settings_.timeout_ms);
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, settings_.headers);
    if (!ep.user.empty()) {
        curl_easy_setopt(easy, CURLOPT_HTTPAUTH, static_cast<long>(CURLAUTH_BASIC));
        curl_easy_setopt(easy, CURLOPT_USERNAME, ep.user.c_str());
        curl_easy_setopt(easy, CURLOPT_PASSWORD, ep.password.c_str());
    } else if (ep.use_netrc) {
        curl_easy_setopt(easy, CURLOPT_NETRC, static_cast<long>(CURL_NETRC_OPTIONAL));
        if (!ep.netrc_file.empty()) curl_easy_setopt(easy, CURLOPT_NETRC_FILE, ep.netrc_file.c_str());
    }
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &t);
    if (t.req->put) {
        curl_easy_setopt(easy, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(easy, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(t.req->body.size()));
        curl_easy_setopt(easy, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(easy, CURLOPT_READDATA, &t);
        curl_easy_setopt(easy, CURLOPT_SEEKFUNCTION, on_seek);
        curl_easy_setopt(easy, CURLOPT_SEEKDATA, &t);
    }
}

void TransferSession::finish(ActiveTransfer& t, CURLcode result) {
    HttpResponse& r = *t.resp;
    curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &r.status);
    r.error = t.errbuf[0] ? t.errbuf : curl_easy_strerror(result);
    if (t.overflow) {
        r.outcome = Outcome::TooLarge;
    } else if (t.out_of_memory) {
        r.outcome = Outcome::Failed;
        r.error = "out of memory";
    } else if (t.sink_failed) {
        r.outcome = Outcome::Failed;
        r.error = t.req->sink->why();
    } else if (result == CURLE_OK || (result == CURLE_WRITE_ERROR && r.status && (r.status < 200 || r.status >= 300))) {
        // A long error page cut short still tells the status.
        r.outcome = r.status >= 200 && r.status < 300 ? Outcome::Ok
                    : r.status == 404                 ? Outcome::NotFound
                                                      : Outcome::HttpError;
        if (r.outcome == Outcome::Ok)
            r.error.clear();
        else
            r.error = "HTTP " + std::to_string(r.status);
    } else if (result == CURLE_OPERATION_TIMEDOUT) {
        // A request that was delivered reached a server that is merely slow; one that was not (connecting timed
        // out) may well get through on another attempt.
        long sent = 0;
        curl_easy_getinfo(t.easy, CURLINFO_REQUEST_SIZE, &sent);
        r.outcome = sent > 0 ? Outcome::TimedOut : Outcome::NoResponse;
    } else {
        switch (result) {
        case CURLE_COULDNT_RESOLVE_PROXY:
        case CURLE_COULDNT_RESOLVE_HOST:
        case CURLE_COULDNT_CONNECT:
        case CURLE_SEND_ERROR:
        case CURLE_RECV_ERROR:
        case CURLE_GOT_NOTHING:
        case CURLE_PARTIAL_FILE:
        case CURLE_SSL_CONNECT_ERROR:
            r.outcome = Outcome::NoResponse;
            break;
        default:
            r.outcome = Outcome::Failed;
        }
    }
    if (r.outcome != Outcome::Ok) {
        r.body.clear();
        r.received = 0;
    }
}

void TransferSession::run(const std::vector<HttpRequest>& requests, std::vector<HttpResponse>& responses,
                          const std::vector<size_t>& which) {
    std::vector<std::unique_ptr<ActiveTransfer>> transfers;
    transfers.reserve(which.size());
    for (size_t i : which) {
        auto t = std::make_unique<ActiveTransfer>();
        t->req = &requests[i];
        t->resp = &responses[i];
        *t->resp = HttpResponse{};
        if (t->req->sink) t->req->sink->restart();
        transfers.push_back(std::move(t));
    }
    size_t next = 0, active = 0;
    auto start_more = [&] {
        while (next < transfers.size() && active < kParallel) {
            ActiveTransfer& t = *transfers[next++];
            if (idle_.empty()) {
                CURL* easy = curl_easy_init();
                if (!easy) {
                    t.resp->outcome = Outcome::Failed;
                    t.resp->error = "out of memory";
                    continue;
                }
                idle_.push_back(easy);
            }
            t.easy = idle_.back();
            idle_.pop_back();
            configure(t.easy, t);
            if (curl_multi_add_handle(multi_, t.easy) != CURLM_OK) {
                idle_.push_back(t.easy);
                t.resp->outcome = Outcome::Failed;
                t.resp->error = "could not start the transfer";
                continue;
            }
            t.attached = true;
            ++active;
        }
    };
    start_more();
    while (active) {
        int running = 0;
        CURLMcode mc = curl_multi_perform(multi_, &running);
        int queued = 0;
        while (CURLMsg* msg = curl_multi_info_read(multi_, &queued)) {
            if (msg->msg != CURLMSG_DONE) continue;
            CURL* easy = msg->easy_handle;
            CURLcode result = msg->data.result;
            ActiveTransfer* t = nullptr;
            curl_easy_getinfo(easy, CURLINFO_PRIVATE, reinterpret_cast<char**>(&t));
            curl_multi_remove_handle(multi_, easy);
            t->attached = false;
            finish(*t, result);
            idle_.push_back(easy);
            --active;
        }
        if (mc != CURLM_OK) break;
        start_more();
        if (active) curl_multi_poll(multi_, nullptr, 0, 100, nullptr);
    }
    // Only reached with transfers still attached when the multi handle itself broke.
    for (auto& t : transfers) {
        if (t->attached) {
            curl_multi_remove_handle(multi_, t->easy);
            idle_.push_back(t->easy);
            t->resp->outcome = Outcome::Failed;
            t->resp->error = "the transfer was abandoned";
        }
    }
    for (size_t i = next; i < transfers.size(); ++i) transfers[i]->resp->error = "the transfer was abandoned";
}

} // namespace af::remote
