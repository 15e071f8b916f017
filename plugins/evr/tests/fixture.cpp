#include "fixture.hpp"

#include <nlohmann/json.hpp>
#include <openssl/evp.h>

#include <fstream>
#include <random>
#include <sstream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace evr_test {

namespace fs = std::filesystem;

fs::path data_dir() { return EVR_TEST_DATA; }
fs::path set_dir(const std::string& set) { return data_dir() / set; }

std::map<std::string, std::string> tree_sha256(const fs::path& root) {
    std::map<std::string, std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(root))
        if (e.is_regular_file()) out[fs::relative(e.path(), root).generic_string()] = sha256_hex(read_bytes(e.path()));
    return out;
}

fs::path manifest_path(const std::string& set) {
    return set_dir(set) / manifest_json<nlohmann::json>(set)["manifest"]["path"].get<std::string>();
}

std::vector<uint8_t> read_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& p, const std::vector<uint8_t>& b) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

std::string sha256_hex(const std::vector<uint8_t>& b) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_Digest(b.data(), b.size(), md, &n, EVP_sha256(), nullptr);
    static const char* hex = "0123456789abcdef";
    std::string s;
    for (unsigned i = 0; i < n; ++i) s += {hex[md[i] >> 4], hex[md[i] & 15]};
    return s;
}

std::vector<std::string> valid_sets() { return {"s1", "s2q", "mp", "s7q", "rt3"}; }

std::vector<std::string> corrupt_kinds() {
    std::vector<std::string> k;
    for (const auto& e : fs::directory_iterator(data_dir()))
        if (e.path().filename().string().rfind("c-", 0) == 0) k.push_back(e.path().filename().string().substr(2));
    std::sort(k.begin(), k.end());
    return k;
}

TempDir::TempDir() {
    std::random_device rd;
    path = fs::temp_directory_path() / ("evr-test-" + std::to_string(rd()) + std::to_string(rd()));
    fs::create_directories(path);
}
TempDir::~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
}

Run run_evr(const std::vector<std::string>& argv, const af_host* host) {
    std::ostringstream out, err;
    int rc = af::evr::run_evr_command({host, out, err}, argv);
    return {rc, out.str(), err.str()};
}

Run run_evr_capped(const std::vector<std::string>& argv, uint64_t headroom) {
    int p[2];
    if (::pipe(p) != 0) return {-1, "", "pipe failed"};
    const pid_t pid = ::fork();
    if (pid < 0) return {-1, "", "fork failed"};
    if (pid == 0) {
        ::close(p[0]);
        // Whatever the parent has mapped (threads of other tests' hosts, the
        // allocator's arenas) stays; only growth past it is capped.
        unsigned long long pages = 0;
        std::ifstream("/proc/self/statm") >> pages;
        const rlim_t cap = rlim_t(pages * uint64_t(::sysconf(_SC_PAGESIZE)) + headroom);
        const rlimit lim{cap, cap};
        ::setrlimit(RLIMIT_AS, &lim);
        const Run r = run_evr(argv);
        std::string msg = std::to_string(r.rc) + "\n" + std::to_string(r.out.size()) + "\n" + r.out + r.err;
        for (size_t done = 0; done < msg.size();) {
            const ssize_t n = ::write(p[1], msg.data() + done, msg.size() - done);
            if (n <= 0) break;
            done += size_t(n);
        }
        ::_exit(0);
    }
    ::close(p[1]);
    std::string all;
    char buf[4096];
    for (ssize_t n; (n = ::read(p[0], buf, sizeof buf)) > 0;) all.append(buf, size_t(n));
    ::close(p[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    std::istringstream in(all);
    int rc = -1;
    size_t out_size = 0;
    if (!(in >> rc >> out_size) || in.get() != '\n')
        return {-1, "", "the child died (status " + std::to_string(status) + ")"};
    std::string rest(std::istreambuf_iterator<char>(in), {});
    if (rest.size() < out_size) return {-1, "", "the child's report is cut short"};
    return {rc, rest.substr(0, out_size), rest.substr(out_size)};
}

} // namespace evr_test
