#include "remote/endpoint.hpp"

#include "remote/curl_global.hpp"

#include <curl/curl.h>

#include <cctype>
#include <cstdlib>
#include <memory>

namespace af::remote {

namespace {

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

struct UrlDeleter {
    void operator()(CURLU* u) const { curl_url_cleanup(u); }
};

// One URL part, percent-decoded when asked; empty when absent.
std::string url_part(CURLU* u, CURLUPart part, unsigned flags = 0) {
    char* value = nullptr;
    if (curl_url_get(u, part, &value, flags) != CURLUE_OK || !value) return "";
    std::string s = value;
    curl_free(value);
    return s;
}

} // namespace

std::vector<std::string> Endpoint::secrets() const {
    std::vector<std::string> out;
    for (const std::string* s : {&bearer_token, &user, &password})
        if (!s->empty()) out.push_back(*s);
    return out;
}

bool host_listed(const std::string& list, const std::string& host, long port) {
    std::string entry;
    for (char c : list + ",") {
        if (c != ',' && !std::isspace(static_cast<unsigned char>(c))) {
            entry += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            continue;
        }
        if (entry.empty()) continue;
        if (entry.front() == '[') entry.erase(0, 1); // [::1]:8080
        std::string name = entry;
        long want_port = -1;
        if (auto colon = entry.rfind(':'); colon != std::string::npos && entry.find(':') == colon) {
            name = entry.substr(0, colon);
            want_port = std::atol(entry.c_str() + colon + 1);
        } else if (auto close = entry.find("]:"); close != std::string::npos) {
            name = entry.substr(0, close);
            want_port = std::atol(entry.c_str() + close + 2);
        }
        if (!name.empty() && name.back() == ']') name.pop_back();
        if (name == host && (want_port < 0 || want_port == port)) return true;
        entry.clear();
    }
    return false;
}

Endpoint parse_endpoint(const std::string& url, bool url_trusted) {
    ensure_curl_initialised();
    Endpoint ep;
    std::unique_ptr<CURLU, UrlDeleter> u(curl_url());
    if (!u || url.empty() || curl_url_set(u.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK) {
        ep.error = "the URL is not a valid URL";
        return ep;
    }
    std::string scheme = url_part(u.get(), CURLUPART_SCHEME);
    if (scheme != "http" && scheme != "https") {
        ep.error = "the URL's scheme is not http or https";
        return ep;
    }
    // ac/ and cas/ are appended to the path, which a query or fragment would end up after.
    if (!url_part(u.get(), CURLUPART_QUERY).empty() || !url_part(u.get(), CURLUPART_FRAGMENT).empty()) {
        ep.error = "the URL has a query or fragment";
        return ep;
    }
    ep.user = url_part(u.get(), CURLUPART_USER, CURLU_URLDECODE);
    ep.password = url_part(u.get(), CURLUPART_PASSWORD, CURLU_URLDECODE);
    curl_url_set(u.get(), CURLUPART_USER, nullptr, 0);
    curl_url_set(u.get(), CURLUPART_PASSWORD, nullptr, 0);
    curl_url_set(u.get(), CURLUPART_OPTIONS, nullptr, 0);
    ep.base_url = url_part(u.get(), CURLUPART_URL);
    while (!ep.base_url.empty() && ep.base_url.back() == '/') ep.base_url.pop_back();

    if (!url_trusted) {
        std::string host = url_part(u.get(), CURLUPART_HOST);
        for (auto& c : host) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (host.size() > 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
        const long port = std::atol(url_part(u.get(), CURLUPART_PORT, CURLU_DEFAULT_PORT).c_str());
        if (!host_listed(env("ASSETFORGE_REMOTE_CACHE_TRUSTED_HOSTS"), host, port)) {
            // userinfo in the URL itself is the pipeline's own (the loader refuses it); the environment's is not.
            ep.credentials_withheld = !env("ASSETFORGE_REMOTE_CACHE_TOKEN").empty() ||
                                      !env("ASSETFORGE_REMOTE_CACHE_USER").empty() || !env("NETRC").empty();
            return ep;
        }
    }
    ep.bearer_token = env("ASSETFORGE_REMOTE_CACHE_TOKEN");
    if (!ep.bearer_token.empty()) {
        ep.user.clear();
        ep.password.clear();
    } else if (ep.user.empty()) {
        ep.user = env("ASSETFORGE_REMOTE_CACHE_USER");
        ep.password = env("ASSETFORGE_REMOTE_CACHE_PASSWORD");
    }
    if (ep.bearer_token.empty() && ep.user.empty()) {
        ep.use_netrc = true;
        ep.netrc_file = env("NETRC");
    }
    return ep;
}

} // namespace af::remote
