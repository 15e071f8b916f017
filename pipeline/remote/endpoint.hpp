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
    // The environment held credentials that were not used because the URL's source is not trusted with them.
    bool credentials_withheld = false;

    // Every string that must not appear in a message.
    std::vector<std::string> secrets() const;
};

// Reads ASSETFORGE_REMOTE_CACHE_TOKEN, ASSETFORGE_REMOTE_CACHE_USER / _PASSWORD and NETRC from the environment.
// `url_trusted` false (a URL from a pipeline file): none of them is used unless the URL's host is listed in
// ASSETFORGE_REMOTE_CACHE_TRUSTED_HOSTS ("host" or "host:port", separated by commas or spaces).
Endpoint parse_endpoint(const std::string& url, bool url_trusted = true);

// Whether `host` (lowercase, IPv6 without brackets) and `port` match an entry of the list.
bool host_listed(const std::string& list, const std::string& host, long port);

} // namespace af::remote
