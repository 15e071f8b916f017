#include "load/config_source.hpp"

#include "base/user_words.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <optional>
#include <set>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace af::load {
namespace {

const std::string kCapText = std::to_string(kMaxConfigBytes >> 20) + " MiB";

base::SourcePos pos_of(const std::string& file, const YAML::Mark& m) {
    if (m.line < 0) return {file, 0, 0};
    return {file, m.line + 1, m.column + 1};
}

bool before(const YAML::Mark& a, const YAML::Mark& b) {
    return std::tie(a.line, a.column) < std::tie(b.line, b.column);
}

// Closes the descriptor on every path out.
struct Fd {
    int fd;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

} // namespace

std::string read_config_file(const std::filesystem::path& file, const base::SourcePos& at) {
    const std::string name = file.string();
    const std::string prefix = at.file == name ? "" : name + ": ";
    // O_NONBLOCK: opening a FIFO would otherwise wait for a writer.
    Fd f{::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)};
    if (f.fd < 0) {
        const std::string why = std::strerror(errno);
        throw base::ConfigError(at, prefix.empty() ? "cannot read: " + why : "cannot read " + name + ": " + why);
    }
    const std::string rule = "pipeline files and includes must be regular files of at most " + kCapText;
    struct stat st {};
    if (::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode))
        throw base::ConfigError(at, prefix + "not a regular file (" + rule + ")");
    auto too_big = [&] { return base::ConfigError(at, prefix + "larger than " + kCapText + " (" + rule + ")"); };
    if (uint64_t(st.st_size) > kMaxConfigBytes) throw too_big();
    // The size may change while reading (or lie, as in /proc): the cap holds on what is read.
    std::string text;
    text.resize(size_t(st.st_size) + 1);
    size_t used = 0;
    while (true) {
        if (used == text.size()) {
            if (text.size() > kMaxConfigBytes) throw too_big();
            text.resize(std::min<size_t>(text.size() * 2 + 4096, kMaxConfigBytes + 1));
        }
        ssize_t n = ::read(f.fd, text.data() + used, text.size() - used);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw base::ConfigError(at, prefix + "read error: " + std::strerror(errno));
        if (n == 0) break;
        used += size_t(n);
    }
    if (used > kMaxConfigBytes) throw too_big();
    text.resize(used);
    return text;
}

namespace {

YAML::Node load_yaml(const std::string& text, const std::string& file) {
    try {
        return YAML::Load(text);
    } catch (const YAML::Exception& e) {
        throw base::ConfigError(pos_of(file, e.mark), "YAML syntax error: " + e.msg);
    }
}

} // namespace

YAML::Node parse_config_yaml(const std::string& text, const std::string& file) {
    YAML::Node root = load_yaml(text, file);
    // Walks every map once (aliases share nodes, so a few lines of anchors
    // would otherwise expand exponentially) and reports the earliest repeat.
    std::vector<YAML::Node> todo{root};
    std::set<std::tuple<int, int, int>> seen;
    std::optional<std::pair<YAML::Mark, std::string>> first_repeat;
    while (!todo.empty()) {
        YAML::Node n = todo.back();
        todo.pop_back();
        if (!n.IsMap() && !n.IsSequence()) continue;
        const YAML::Mark m = n.Mark();
        if (m.line >= 0 && !seen.insert({int(n.Type()), m.line, m.column}).second) continue;
        if (n.IsSequence()) {
            for (const auto& e : n) todo.push_back(e);
            continue;
        }
        std::map<std::string, YAML::Mark> keys;
        for (const auto& kv : n) {
            if (kv.first.IsScalar()) {
                auto [it, fresh] = keys.emplace(kv.first.Scalar(), kv.first.Mark());
                if (!fresh && (!first_repeat || before(kv.first.Mark(), first_repeat->first)))
                    first_repeat = {kv.first.Mark(), "duplicate key '" + base::printable_name(kv.first.Scalar()) +
                                                         "' (first at " + pos_of(file, it->second).str() + ")"};
            } else {
                todo.push_back(kv.first);
            }
            todo.push_back(kv.second);
        }
    }
    if (first_repeat) throw base::ConfigError(pos_of(file, first_repeat->first), first_repeat->second);
    return root;
}

} // namespace af::load
