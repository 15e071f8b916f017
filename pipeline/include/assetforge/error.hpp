// Errors on the C++ side of the SDK: plugin code throws af::sdk::Error (or
// calls fail/invalid/unsupported/usage) and guard() turns it into the
// af_status + af_error the C boundary needs. Header-only.
#pragma once

#include "assetforge/plugin_abi.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>

namespace af::sdk {

// Thrown by plugin code; guard() turns it into an af_status + af_error.
class Error : public std::runtime_error {
  public:
    Error(af_status status, std::string message, uint64_t offset = AF_NO_OFFSET)
        : std::runtime_error(std::move(message)), status_(status), offset_(offset) {}
    af_status status() const { return status_; }
    uint64_t offset() const { return offset_; }

  private:
    af_status status_;
    uint64_t offset_;
};

inline std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
inline std::string format(const char* fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return buf;
}

[[noreturn]] inline void fail(af_status s, uint64_t offset, std::string msg) { throw Error(s, std::move(msg), offset); }
[[noreturn]] inline void invalid(uint64_t offset, std::string msg) {
    fail(AF_ERR_INVALID_DATA, offset, std::move(msg));
}
[[noreturn]] inline void unsupported(std::string msg) { fail(AF_ERR_UNSUPPORTED, AF_NO_OFFSET, "unsupported: " + msg); }
[[noreturn]] inline void usage(std::string msg) { fail(AF_ERR_USAGE, AF_NO_OFFSET, std::move(msg)); }
// "PATH: WHAT: <the system's words for err>" as AF_ERR_IO: how a failed file system call is told.
[[noreturn]] inline void io_fail(const std::string& path, std::string_view what, int err) {
    fail(AF_ERR_IO, AF_NO_OFFSET, path + ": " + std::string(what) + ": " + std::strerror(err));
}

inline void set_error(af_error* e, af_status s, uint64_t offset, std::string_view msg) {
    if (!e) return;
    e->code = s;
    e->offset = offset;
    size_t n = std::min(msg.size(), sizeof e->message - 1);
    memcpy(e->message, msg.data(), n);
    e->message[n] = 0;
}

// Runs fn, mapping exceptions to a status; nothing escapes into C.
template <class F> af_status guard(af_error* e, F&& fn) noexcept {
    try {
        fn();
        return AF_OK;
    } catch (const Error& x) {
        set_error(e, x.status(), x.offset(), x.what());
        return x.status();
    } catch (const std::bad_alloc&) {
        set_error(e, AF_ERR_NO_MEMORY, AF_NO_OFFSET, "out of memory");
        return AF_ERR_NO_MEMORY;
    } catch (const std::exception& x) {
        set_error(e, AF_ERR_INTERNAL, AF_NO_OFFSET, x.what());
        return AF_ERR_INTERNAL;
    } catch (...) {
        set_error(e, AF_ERR_INTERNAL, AF_NO_OFFSET, "unknown exception");
        return AF_ERR_INTERNAL;
    }
}

} // namespace af::sdk
