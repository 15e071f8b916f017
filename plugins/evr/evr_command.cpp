#include "evr_command.hpp"

#include "evr_writer.hpp"
#include "package_set.hpp"
#include "repack.hpp"
#include "set_extract.hpp"
#include "set_install.hpp"
#include "tree_build.hpp"
#include "verify_against.hpp"

#include "assetforge/error.hpp"
#include "assetforge/user_text.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>

namespace af::evr {

namespace fs = std::filesystem;
using sdk::format;
using ull = unsigned long long;

namespace {

// Every subcommand's arguments: "usage: evr …" lines.
CommandArgs args(const std::vector<std::string>& argv, std::set<std::string> valued, std::set<std::string> switches) {
    return CommandArgs("evr", argv, std::move(valued), std::move(switches));
}

SetLocation location(const CommandArgs& a, const char* synopsis) {
    if (a.pos.size() == 2) return locate_set(a.pos[0], a.pos[1]);
    if (a.pos.size() == 1) return locate_manifest(a.pos[0]);
    a.usage_line(synopsis);
}

// A positive byte count given as `flag`, or `v` unchanged when absent.
void byte_count(const CommandArgs& a, const char* flag, uint64_t& v) {
    if (!a.has(flag)) return;
    const std::string& t = a.values(flag).back();
    char* end = nullptr;
    const unsigned long long x = std::strtoull(t.c_str(), &end, 10);
    if (t.empty() || *end || x < 1 || t[0] == '-') sdk::usage(std::string(flag) + ": expected a positive byte count");
    v = x;
}

// --max-manifest-bytes / --max-frame-bytes: this project's refusal limits (1 GiB each by default).
Limits limits(const CommandArgs& a) {
    Limits l;
    byte_count(a, "--max-manifest-bytes", l.max_manifest_bytes);
    byte_count(a, "--max-frame-bytes", l.max_frame_bytes);
    return l;
}

// --part-size and --frame-size, held to what the format and the readers take:
// a larger value is refused here rather than found out after the work.
void write_sizes(const CommandArgs& a, const Limits& l, uint64_t& part_limit, uint64_t& frame_limit) {
    byte_count(a, "--part-size", part_limit);
    byte_count(a, "--frame-size", frame_limit);
    if (part_limit > kPartLimit)
        sdk::usage(format("--part-size: at most %llu (the part size every writer keeps to; a part offset is 32-bit)",
                          (ull)kPartLimit));
    if (a.has("--frame-size") && frame_limit > frame_capacity(l))
        sdk::usage("--frame-size: " + over_frame_capacity(frame_limit, l));
    // The default gives way to a lower --max-frame-bytes.
    frame_limit = std::min(frame_limit, frame_capacity(l));
}

std::string written(const SetImage& img, const std::filesystem::path& out, const std::string& name) {
    uint64_t data = 0, bytes = img.manifest.size();
    for (const auto& r : img.model.frames) data += r.is_data();
    for (uint64_t s : img.part_sizes) bytes += s;
    return format("%s: %zu files, %llu data frames, %zu part(s), %llu bytes", (out / "manifests" / name).c_str(),
                  img.model.files.size(), (ull)data, img.parts.size(), (ull)bytes);
}

WarnFn printer(std::ostream& err, uint64_t* count = nullptr) {
    return [&err, count](const std::string& w) {
        if (count) ++*count;
        err << "warning: " << w << '\n';
    };
}

int cmd_list(const CommandIo& io, const std::vector<std::string>& argv) {
    const CommandArgs a = args(argv, {"--max-manifest-bytes", "--max-frame-bytes"}, {"--json"});
    const PackageSet set(location(a, "list DATA NAME [--json] | list MANIFEST [--json]"), limits(a), printer(io.err));
    const Manifest& m = set.manifest();
    uint64_t data_frames = 0;
    for (const auto& r : m.frames) data_frames += r.is_data();
    if (a.has("--json")) {
        nlohmann::json j;
        j["name"] = set.location().name;
        j["manifest"] = set.location().manifest.string();
        j["package_count"] = m.package_count;
        j["archive_header_length"] = m.header_length;
        j["body_size"] = m.body_size;
        j["header_unknown"] = {m.unknown_a, m.unknown_b};
        j["parts"] = nlohmann::json::array();
        for (uint32_t i = 0; i < set.part_count(); ++i)
            j["parts"].push_back({{"path", set.part_path(i)}, {"size", set.part_size(i)}});
        j["frames"] = nlohmann::json::array();
        for (size_t i = 0; i < m.frames.size(); ++i) {
            const auto& r = m.frames[i];
            j["frames"].push_back(
                {{"index", i}, {"package", r.package}, {"offset", r.offset}, {"csize", r.csize}, {"length", r.length}});
        }
        j["files"] = nlohmann::json::array();
        for (size_t i = 0; i < m.files.size(); ++i) {
            const auto& f = m.files[i];
            nlohmann::json e = {
                {"index", i},         {"type", hex16(f.type)}, {"file", hex16(f.file)},   {"frame", f.frame},
                {"offset", f.offset}, {"size", f.size},        {"alignment", f.alignment}};
            if (*type_name(f.type)) e["type_name"] = type_name(f.type);
            j["files"].push_back(std::move(e));
        }
        io.out << j.dump(1) << '\n';
        return 0;
    }
    io.out << format("%s: %zu files, %llu data frames (%zu records), %u part(s)\n", set.location().name.c_str(),
                     m.files.size(), (ull)data_frames, m.frames.size(), m.package_count);
    for (size_t i = 0; i < m.files.size(); ++i) {
        const auto& f = m.files[i];
        io.out << format("%6zu %s %s frame %5u offset %8u size %8u align %u", i, hex16(f.type).c_str(),
                         hex16(f.file).c_str(), f.frame, f.offset, f.size, f.alignment);
        if (*type_name(f.type)) io.out << ' ' << type_name(f.type);
        io.out << '\n';
    }
    return 0;
}

int cmd_extract(const CommandIo& io, const std::vector<std::string>& argv) {
    const CommandArgs a =
        args(argv, {"--out", "--type", "--max-manifest-bytes", "--max-frame-bytes"}, {"--groups", "--overwrite"});
    const char* synopsis = "extract DATA NAME --out DIR [--type SYMBOL...] [--groups] [--overwrite]";
    ExtractOptions o;
    o.out = a.once("--out", synopsis);
    o.groups = a.has("--groups");
    o.overwrite = a.has("--overwrite");
    if (a.has("--type")) {
        o.types.emplace();
        for (const auto& list : a.values("--type")) // "--type A --type B" and "--type A,B" both work
            if (auto bad = parse_symbol_list(list, *o.types); !bad.empty())
                sdk::usage("--type: '" + bad + "' is not a hex symbol");
    }
    const WarnFn warn = printer(io.err);
    const PackageSet set(location(a, synopsis), limits(a), warn);
    const ExtractSummary s = extract_set(set, o, io.host, warn);
    std::string kinds;
    for (const auto& [ext, n] : s.by_extension)
        kinds += format("%s%llu %s", kinds.empty() ? "" : ", ", (ull)n, ext.c_str());
    io.out << format("extracted %llu files from %llu frames to %s", (ull)s.files, (ull)s.frames, o.out.c_str())
           << (kinds.empty() ? "" : ": " + kinds) << '\n';
    return 0;
}

// --against: a manifest path, or a DATA folder holding a set of the same name.
SetLocation original_location(const std::string& against, const std::string& name) {
    std::error_code ec;
    if (fs::is_directory(against, ec)) return locate_set(against, name);
    return locate_manifest(against);
}

int cmd_verify(const CommandIo& io, const std::vector<std::string>& argv) {
    const CommandArgs a = args(argv, {"--against", "--max-manifest-bytes", "--max-frame-bytes"}, {"--strict"});
    const char* synopsis = "verify DATA NAME [--strict] [--against ORIGINAL]";
    uint64_t warnings = 0;
    const WarnFn warn = printer(io.err, &warnings);
    const PackageSet set(location(a, synopsis), limits(a), warn);
    const VerifySummary s = verify_set(set, io.host, warn, printer(io.err));
    const Manifest& m = set.manifest();
    std::string against_note;
    if (a.has("--against")) {
        // The original's own oddities are not the repack's: they are counted, not shown.
        const PackageSet original(original_location(a.once("--against", synopsis), set.location().name), limits(a),
                                  nullptr);
        const AgainstReport r = verify_against(set, original, io.host);
        const Manifest& om = original.manifest();
        io.out << "changed files:";
        for (uint64_t j : r.changed) io.out << ' ' << hex16(om.files[j].type) << '/' << hex16(om.files[j].file);
        io.out << (r.changed.empty() ? " none\n" : "\n");
        for (const auto& p : r.problems) io.err << "error: " << p << '\n';
        if (a.has("--strict"))
            for (const auto& w : r.introduced) io.err << "error: introduced by the repack (strict): " << w << '\n';
        if (!r.problems.empty() || (a.has("--strict") && !r.introduced.empty())) {
            io.err << format("error: %s: %zu repack rule(s) broken, %zu warning(s) introduced by the repack%s\n",
                             set.location().manifest.c_str(), r.problems.size(), r.introduced.size(),
                             a.has("--strict") ? " (strict)" : "");
            return 1;
        }
        warnings = r.introduced.size();
        against_note = format(", %llu inherited from %s, %zu added file(s)", (ull)r.inherited,
                              original.location().manifest.c_str(), (size_t)r.added);
    } else if (a.has("--strict") && warnings) {
        io.err << format("error: %llu warning(s) with --strict\n", (ull)warnings);
        return 1;
    }
    io.out << format("ok: %s: %zu files, %llu data frames, %zu frame records, %u part(s), %llu warning(s)%s\n",
                     set.location().manifest.c_str(), m.files.size(), (ull)s.data_frames, m.frames.size(),
                     m.package_count, (ull)warnings, against_note.c_str());
    return 0;
}

int cmd_replace(const CommandIo& io, const std::vector<std::string>& argv) {
    const CommandArgs a =
        args(argv, {"--from", "--out", "--part-size", "--frame-size", "--max-manifest-bytes", "--max-frame-bytes"},
             {"--add-new", "--overwrite"});
    const char* synopsis = "replace DATA NAME --from DIR --out OUTDATA [--add-new] [--overwrite]";
    const fs::path from = a.once("--from", synopsis), out = a.once("--out", synopsis);
    RepackOptions o;
    o.add_new = a.has("--add-new");
    o.limits = limits(a);
    write_sizes(a, o.limits, o.part_limit, o.frame_limit);
    o.keep_layout = !a.has("--part-size");
    const WarnFn warn = printer(io.err);
    const PackageSet set(location(a, synopsis), o.limits, warn);
    std::vector<TreeEntry> tree = read_tree(from, o.limits);
    const RepackReport r = repack_set(set, std::move(tree), o, io.host, warn);
    write_set(r.image, out, set.location().name, a.has("--overwrite"), &set.location());
    const Manifest& m = set.manifest();
    for (uint64_t j : r.changed)
        io.out << format("changed %s/%s (file %llu)\n", hex16(m.files[j].type).c_str(), hex16(m.files[j].file).c_str(),
                         (ull)j);
    io.out << format("replaced %zu file(s), %llu unchanged, %llu added; %llu frame(s) rebuilt, %llu copied as they "
                     "were\nwrote ",
                     r.changed.size(), (ull)r.unchanged, (ull)r.added, (ull)r.frames_rebuilt, (ull)r.frames_copied)
           << written(r.image, out, set.location().name) << '\n';
    return 0;
}

int cmd_build(const CommandIo& io, const std::vector<std::string>& argv) {
    const CommandArgs a =
        args(argv, {"--out", "--name", "--part-size", "--frame-size", "--max-manifest-bytes", "--max-frame-bytes"},
             {"--groups", "--overwrite"});
    const char* synopsis = "build DIR --out OUTDATA --name NAME [--groups] [--overwrite]";
    if (a.pos.size() != 1) a.usage_line(synopsis);
    const fs::path out = a.once("--out", synopsis);
    const std::string name = a.once("--name", synopsis);
    if (!is_set_name(name)) sdk::usage("--name: '" + name + "' is not a file name");
    BuildOptions o;
    o.limits = limits(a);
    write_sizes(a, o.limits, o.part_limit, o.frame_limit);
    std::vector<TreeEntry> tree = read_tree(a.pos[0], o.limits);
    if (a.has("--groups"))
        for (const auto& e : tree)
            if (e.group < 0)
                sdk::fail(AF_ERR_INVALID_DATA, AF_NO_OFFSET,
                          e.where + ": --groups expects <group>/<type>/<file> (the tree of extract --groups)");
    const SetImage img = build_set(std::move(tree), o, io.host, printer(io.err));
    write_set(img, out, name, a.has("--overwrite"), nullptr);
    io.out << "wrote " << written(img, out, name) << '\n';
    return 0;
}

int cmd_restore(const CommandIo& io, const std::vector<std::string>& argv);

int cmd_install(const CommandIo& io, const std::vector<std::string>& argv) {
    const CommandArgs a = args(argv, {"--backup"}, {"--restore"});
    if (a.has("--restore")) { // `install --restore GAMEDATA NAME`: the same as `restore`
        std::vector<std::string> rest;
        for (const auto& s : argv)
            if (s != "--restore") rest.push_back(s);
        return cmd_restore(io, rest);
    }
    const char* synopsis = "install OUTDATA GAMEDATA NAME [--backup DIR]";
    if (a.pos.size() != 3) a.usage_line(synopsis);
    const std::string& name = a.pos[2];
    if (!is_set_name(name)) sdk::usage("'" + name + "' is not a set name");
    const fs::path game = a.pos[1];
    const fs::path backup = a.has("--backup") ? fs::path(a.once("--backup", synopsis)) : default_backup(game, name);
    const InstallReport r = install_set(a.pos[0], game, name, backup, io.host, printer(io.err));
    for (const auto& p : r.swept) io.out << "removed " << p << " (a temporary of an interrupted install or restore)\n";
    for (const auto& p : r.replaced) io.out << "replaced " << p << '\n';
    for (const auto& p : r.added) io.out << "added " << p << '\n';
    for (const auto& p : r.removed) io.out << "removed " << p << " (stale: the new set has fewer parts)\n";
    io.out << (r.backup_kept ? "kept the backup of the files from before the first install: "
                             : "backup of the replaced files: ")
           << r.backup.string() << "\nundo with: assetforge evr restore " << game.string() << ' ' << name
           << (a.has("--backup") ? " --backup " + r.backup.string() : "") << '\n';
    return 0;
}

int cmd_restore(const CommandIo& io, const std::vector<std::string>& argv) {
    const CommandArgs a = args(argv, {"--backup"}, {});
    const char* synopsis = "restore GAMEDATA NAME [--backup DIR]";
    if (a.pos.size() != 2) a.usage_line(synopsis);
    const fs::path game = a.pos[0];
    const std::string& name = a.pos[1];
    if (!is_set_name(name)) sdk::usage("'" + name + "' is not a set name");
    const fs::path backup = a.has("--backup") ? fs::path(a.once("--backup", synopsis)) : default_backup(game, name);
    const RestoreReport r = restore_set(game, name, backup, printer(io.err));
    for (const auto& p : r.swept) io.out << "removed " << p << " (a temporary of an interrupted install or restore)\n";
    for (const auto& p : r.restored) io.out << "restored " << p << '\n';
    for (const auto& p : r.removed) io.out << "removed " << p << " (added by the install)\n";
    io.out << "the set " << name << " in " << game.string() << " is as it was before the install\n";
    return 0;
}

using Fn = int (*)(const CommandIo&, const std::vector<std::string>&);
struct Sub {
    const char* name;
    Fn fn;
    const char* help;
};
constexpr Sub kSubs[] = {
    {"list", cmd_list, "list DATA NAME [--json]        every file: type, file symbol, frame, offset, size, type name"},
    {"extract", cmd_extract,
     "extract DATA NAME --out DIR [--type SYMBOL...] [--groups] [--overwrite]   the extraction tree; raw BC "
     "textures as DDS; an existing different file is kept unless --overwrite"},
    {"verify", cmd_verify,
     "verify DATA NAME [--strict] [--against ORIGINAL]   every reader check, every data frame decompressed; "
     "--against: the repack rules too, and only oddities the repack introduced fail --strict"},
    {"replace", cmd_replace,
     "replace DATA NAME --from DIR --out OUTDATA [--add-new] [--overwrite]   a new set with the tree's files "
     "replacing the same symbols; untouched frames copied byte for byte"},
    {"install", cmd_install,
     "install OUTDATA GAMEDATA NAME [--backup DIR]   put a new set into the game folder: every replaced file "
     "backed up, stale parts removed (undo: restore)"},
    {"restore", cmd_restore,
     "restore GAMEDATA NAME [--backup DIR]   put back the files an install replaced (also: install --restore)"},
    {"build", cmd_build,
     "build DIR --out OUTDATA --name NAME [--groups] [--overwrite]   a new set from an extraction tree"},
};

void usage_text(std::ostream& os) {
    os << "usage: evr SUBCOMMAND ...   (DATA NAME may also be a manifest path: DATA/manifests/NAME)\n";
    for (const auto& s : kSubs) os << "  " << s.help << '\n';
    os << "every subcommand reading a set takes --max-manifest-bytes N and --max-frame-bytes N (default 1 GiB each)\n";
    os << "replace keeps the set's parts as they were (a frame stays in its part) unless given --part-size; "
          "replace and build take --part-size N (default 2147483647) and --frame-size N (frames of new files, default "
          "512000)\n";
    os << "exit codes: 0 ok, 1 the set failed a check, 2 usage\n";
}

} // namespace

int run_evr_command(const CommandIo& io, const std::vector<std::string>& argv) {
    if (argv.empty() || argv[0] == "--help" || argv[0] == "-h" || argv[0] == "help") {
        usage_text(argv.empty() ? io.err : io.out);
        return argv.empty() ? 2 : 0;
    }
    for (const auto& s : kSubs) {
        if (argv[0] != s.name) continue;
        // The operation and the set it concerns come first: a library's text
        // alone (`map::at`) would not say which file or entry is at fault.
        std::string context = std::string("evr ") + s.name;
        for (size_t i = 1; i < argv.size() && i < 3 && argv[i].rfind("--", 0) != 0; ++i) context += " " + argv[i];
        try {
            return s.fn(io, std::vector<std::string>(argv.begin() + 1, argv.end()));
        } catch (const sdk::Error& e) {
            if (e.status() == AF_ERR_USAGE) {
                io.err << "evr " << s.name << ": " << sdk::printable(e.what()) << '\n';
                return 2;
            }
            io.err << "error: " << sdk::error_line(e.status() == AF_ERR_INTERNAL ? context : "", e) << '\n';
            return 1;
        } catch (const std::exception& e) {
            io.err << "error: " << sdk::error_line(context, e) << '\n';
            return 1;
        }
    }
    io.err << "evr: unknown subcommand '" << sdk::printable(argv[0]) << "'\n";
    usage_text(io.err);
    return 2;
}

} // namespace af::evr
