// Where the cache is and how to authenticate, split so that what may be printed (base_url) never holds a secret.
#pragma once

#include <string>
#include <vector>

namespace af::remote {

struct Endpoint {
    std::string base_url; // scheme://host[:port][/prefix], no user info, no trailing '/'
    std::string error;    // why the URL cannot be used (never quotes it); empty when it can
    // At most one of these schemes is used: a bearer token wins over basic auth, basic auth over .netrc.
    std::string bearer_token;
    std::string user, password;
    bool use_netrc = false;
    std::string netrc_file; // empty: curl's default, ~/.netrc

    // Every string that must not appear in a message.
    std::vector<std::string> secrets() const;
};

// Reads ASSETFORGE_REMOTE_CACHE_TOKEN, ASSETFORGE_REMOTE_CACHE_USER / _PASSWORD and NETRC from the environment.
Endpoint parse_endpoint(const std::string& url);

} // namespace af::remote
