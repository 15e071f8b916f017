#include "engine/param_inputs.hpp"

#include "base/link_guard.hpp"
#include "base/output_template.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace af::engine {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void escape(const ParamRead& r, const fs::path& link, const std::string& target, const std::string& root) {
    throw std::runtime_error("parameter " + r.label + ": " + base::link_escape_message(link.native(), target, root));
}

void hash_one(const fs::path& file, const std::string& rel_name, const fs::path& root, StateStore& store, Hasher& h) {
    auto st = stat_file(file);
    h.field(rel_name);
    if (!st) {
        h.field("unreadable");
        return;
    }
    // Through the stat cache, like inputs: keyed relative to the project when inside it.
    std::string key = base::path_within(file, root) ? file.lexically_relative(root).generic_string() : file.native();
    h.field(store.file_hash(key, file, *st).hex());
}

} // namespace

std::vector<ParamRead> param_reads(const load::Job& job, const fs::path& root) {
    std::vector<ParamRead> out;
    auto scan = [&](const load::StepUse& s) {
        if (!s.def) return;
        for (const auto& spec : s.def->params) {
            if (spec.type != steps::ParamType::File && spec.type != steps::ParamType::Dir) continue;
            auto it = s.params.find(spec.name);
            if (it == s.params.end() || it->second.empty()) continue;
            const bool per_input = spec.type == steps::ParamType::File && it->second.find('{') != std::string::npos;
            fs::path p = it->second;
            if (p.is_relative() && !per_input) p = root / p;
            out.push_back({s.name + "." + spec.name, per_input ? p : p.lexically_normal(),
                           spec.type == steps::ParamType::Dir, per_input});
        }
    };
    for (const auto& s : job.steps) scan(s);
    if (job.is_gather()) scan(job.gather);
    return out;
}

void hash_param_reads(const std::vector<ParamRead>& reads, const load::Job& job, const fs::path& root,
                      StateStore& store, Hasher& h, const std::string& input_name) {
    for (const auto& read : reads) {
        ParamRead r = read;
        if (r.per_input) {
            // Expanded as the step expands it (texture_steps.cpp like_path).
            fs::path p = base::OutputTemplate::parse(r.path.string()).expand(base::template_values(input_name, {}, ""));
            if (p.is_relative()) p = root / p;
            r.path = p.lexically_normal();
        }
        // A folder given with -D (-D original=game, a link to the game's folder) is read where it leads.
        if (job.input_root.empty()) r.path = base::through_named_folder(r.path, root, job.named_folders);
        h.field("param:" + r.label);
        // Links must stay inside the project for paths in it, inside the
        // named file's or folder's own place for paths the user gave outside it.
        base::InputRoot root_for = base::input_root_for(r.path, job.input_root, root);
        struct stat st;
        if (::lstat(r.path.c_str(), &st) != 0) {
            h.field("missing"); // the step reports it when it runs
            continue;
        }
        // The named path itself, or a folder on the way, may be the link.
        if (!job.follow_links)
            if (auto msg = base::escape_on_way(root_for, r.path); !msg.empty())
                throw std::runtime_error("parameter " + r.label + ": " + msg);
        const std::string& real_root = root_for.real;
        if (!r.folder) {
            hash_one(r.path, "", root, store, h);
            continue;
        }
        std::vector<std::pair<std::string, fs::path>> files;
        std::error_code ec;
        auto opts = job.follow_links ? fs::directory_options::follow_directory_symlink : fs::directory_options::none;
        for (auto it = fs::recursive_directory_iterator(r.path, opts, ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
            const fs::path& p = it->path();
            std::error_code e2;
            if (it->is_symlink(e2) && !job.follow_links) {
                std::string target = base::real_path(p.native());
                if (target.empty()) continue; // dangling: nothing to read
                if (!base::real_inside(target, real_root)) escape(r, p, target, real_root);
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
