#include "engine/param_inputs.hpp"

#include "engine/output_template.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace af::engine {
namespace fs = std::filesystem;

namespace {

std::string real_path(const fs::path& p) {
    char* r = ::realpath(p.c_str(), nullptr);
    if (!r) return "";
    std::string s(r);
    ::free(r);
    return s;
}

bool inside(const std::string& p, const std::string& root) {
    return p == root || (p.size() > root.size() && p.compare(0, root.size(), root) == 0 && p[root.size()] == '/');
}

[[noreturn]] void escape(const ParamRead& r, const fs::path& link, const std::string& target, const std::string& root) {
    throw std::runtime_error("parameter " + r.label + ": " + link.string() + " is a symbolic link to " + target +
                             ", outside " + root + "; not read (set 'follow_links: true' on the job to allow it)");
}

void hash_one(const fs::path& file, const std::string& rel_name, const fs::path& root, StateStore& store, Hasher& h) {
    auto st = stat_file(file);
    h.field(rel_name);
    if (!st) {
        h.field("unreadable");
        return;
    }
    // Through the stat cache, like inputs: keyed relative to the project when inside it.
    std::string key = path_within(file, root) ? file.lexically_relative(root).generic_string() : file.native();
    h.field(store.file_hash(key, file, *st).hex());
}

} // namespace

std::vector<ParamRead> param_reads(const Job& job, const fs::path& root) {
    std::vector<ParamRead> out;
    auto scan = [&](const StepUse& s) {
        if (!s.def) return;
        for (const auto& spec : s.def->params) {
            if (spec.type != ParamType::File && spec.type != ParamType::Dir) continue;
            auto it = s.params.find(spec.name);
            if (it == s.params.end() || it->second.empty()) continue;
            fs::path p = it->second;
            if (p.is_relative()) p = root / p;
            out.push_back({s.name + "." + spec.name, p.lexically_normal(), spec.type == ParamType::Dir});
        }
    };
    for (const auto& s : job.steps) scan(s);
    if (job.is_gather()) scan(job.gather);
    return out;
}

void hash_param_reads(const std::vector<ParamRead>& reads, const Job& job, const fs::path& root, StateStore& store,
                      Hasher& h) {
    for (const auto& r : reads) {
        h.field("param:" + r.label);
        // Links must stay inside the project for paths in it, inside the
        // named file's or folder's own place for paths the user gave outside it.
        fs::path lex_root = !job.input_root.empty() && path_within(r.path, job.input_root) ? job.input_root
                            : path_within(r.path, root)                                  ? root
                                                                                         : r.path;
        std::string real_root = real_path(lex_root);
        if (real_root.empty()) real_root = lex_root.native();
        struct stat st;
        if (::lstat(r.path.c_str(), &st) != 0) {
            h.field("missing"); // the step reports it when it runs
            continue;
        }
        if (!job.follow_links) {
            // The named path itself, or a folder on the way, may be the link.
            fs::path at = lex_root;
            for (const auto& part : r.path.lexically_relative(lex_root)) {
                if (part.empty() || part == ".") continue;
                at /= part;
                struct stat lst;
                if (::lstat(at.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
                    std::string target = real_path(at);
                    if (!inside(target, real_root)) escape(r, at, target, real_root);
                }
            }
        }
        if (!r.folder) {
            hash_one(r.path, "", root, store, h);
            continue;
        }
        std::vector<std::pair<std::string, fs::path>> files;
        std::error_code ec;
        auto opts = job.follow_links ? fs::directory_options::follow_directory_symlink : fs::directory_options::none;
        for (auto it = fs::recursive_directory_iterator(r.path, opts, ec); !ec && it != fs::recursive_directory_iterator();
             it.increment(ec)) {
            const fs::path& p = it->path();
            std::error_code e2;
            if (it->is_symlink(e2) && !job.follow_links) {
                std::string target = real_path(p);
                if (target.empty()) continue; // dangling: nothing to read
                if (!inside(target, real_root)) escape(r, p, target, real_root);
            }
            if (it->is_regular_file(e2)) files.emplace_back(p.lexically_relative(r.path).generic_string(), p);
        }
        if (ec) throw std::runtime_error("parameter " + r.label + ": " + r.path.string() + ": " + ec.message());
        std::sort(files.begin(), files.end());
        h.field(std::to_string(files.size()));
        for (const auto& [name, p] : files) hash_one(p, name, root, store, h);
    }
}

} // namespace af::engine
