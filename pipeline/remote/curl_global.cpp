#include "remote/curl_global.hpp"

#include <curl/curl.h>

#include <mutex>

namespace af::remote {

void ensure_curl_initialised() {
    // Never cleaned up: other code in the process may still hold curl handles at exit.
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

} // namespace af::remote
