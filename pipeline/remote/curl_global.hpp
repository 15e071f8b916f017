// libcurl's global state must be set up once, before any thread uses it (curl_global_init is not thread-safe).
#pragma once

namespace af::remote {

void ensure_curl_initialised();

} // namespace af::remote
