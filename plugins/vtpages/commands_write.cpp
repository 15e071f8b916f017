// Writer subcommands: build, repack, compact. Each output is written through
// a temporary file and renamed, then read back and selftested.
#include "pages_census.hpp"
#include "pages_command.hpp"
#include "pages_edits.hpp"
#include "pages_writer.hpp"

#include "assetforge/output_rules.hpp"
#include "assetforge/plugin.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace af::vtpages {

using json = nlohmann::json;

namespace {

// Reads the written file back: a writer bug must never pass silently.
Census verify_output(const fs::path& out) {
    auto f = PagesFile::open(out);
    return take_census(f);
}

int report(const CommandIo& io, const CommandArgs& a, const fs::path& out, json extra, const std::string& text) {
    Census c = verify_output(out);
    const std::string line = selftest_line(out.filename().string(), c);
    if (a.has("--json")) {
        extra["out"] = out.string();
        extra["selftest"] = line;
        extra["bytes"] = c.file_size;
        extra["pages"] = c.pages;
        extra["slack"] = c.slack;
        io.out << extra.dump(1) << '\n';
    } else {
        io.out << text << line << '\n';
    }
    return 0;
}

json repack_json(const RepackReport& r) {
    return {{"replaced_in_place", r.replaced_in_place},
            {"relocated", r.relocated},
            {"added", r.added},
            {"removed", r.removed},
            {"absorbed_bytes", r.absorbed}};
}

} // namespace

int cmd_build(const CommandIo& io, const std::vector<std::string>& argv) {
    CommandArgs a = pages_args(argv, {"--out"}, {});
    a.need_positionals(1, "build MANIFEST.json --out FILE [--json]");
    const fs::path out = a.required("--out");
    std::ifstream in(a.pos[0]);
    if (!in) sdk::fail(AF_ERR_IO, AF_NO_OFFSET, "cannot open manifest " + a.pos[0]);
    const std::string text(std::istreambuf_iterator<char>(in), {});
    Layout l = layout_from_manifest(text, fs::path(a.pos[0]).parent_path());
    emit_to_file(l, out);
    return report(io, a, out, {{"pages_written", l.nodes.size()}},
                  format("built %s from %zu pages\n", out.string().c_str(), l.nodes.size()));
}

int cmd_repack(const CommandIo& io, const std::vector<std::string>& argv) {
    CommandArgs a = pages_args(argv, {"--replace", "--out", "--reserve", "--compression"}, {"--overwrite"});
    a.need_positionals(
        1, "repack FILE [--replace DIR] --out FILE [--reserve BYTES] [--compression N] [-y|--overwrite] [--json]");
    const fs::path out = a.required("--out");
    sdk::check_output_name(out, {a.pos[0]}, a.has("--overwrite"));
    const uint64_t reserve =
        uint64_t(CommandArgs::integer(a.value("--reserve").value_or("0"), "--reserve", 0, 1 << 24));
    const int32_t comp = int32_t(CommandArgs::integer(a.value("--compression").value_or("5"), "--compression", 1, 6));
    auto f = PagesFile::open(a.pos[0]);
    Layout l = layout_of(f);
    RepackReport r;
    if (auto dir = a.value("--replace")) r = apply_edits(l, read_replacement_dir(*dir), reserve, comp);
    emit_to_file(l, out);
    return report(io, a, out, repack_json(r),
                  format("repacked %s -> %s: %llu replaced in place, %llu relocated (%llu freed bytes kept as slack), "
                         "%llu added, %llu removed\n",
                         a.pos[0].c_str(), out.string().c_str(), ull(r.replaced_in_place), ull(r.relocated),
                         ull(r.absorbed), ull(r.added), ull(r.removed)));
}

int cmd_compact(const CommandIo& io, const std::vector<std::string>& argv) {
    CommandArgs a = pages_args(argv, {"--out"}, {"--overwrite"});
    a.need_positionals(1, "compact FILE --out FILE [-y|--overwrite] [--json]");
    const fs::path out = a.required("--out");
    sdk::check_output_name(out, {a.pos[0]}, a.has("--overwrite"));
    auto f = PagesFile::open(a.pos[0]);
    const uint64_t before = f.size();
    Layout l = layout_of(f);
    compact(l);
    const uint64_t after = l.file_size();
    emit_to_file(l, out);
    return report(io, a, out, {{"before", before}, {"after", after}, {"saved", before - after}},
                  format("compacted %s -> %s: %llu -> %llu bytes (%llu saved)\n", a.pos[0].c_str(),
                         out.string().c_str(), ull(before), ull(after), ull(before - after)));
}

} // namespace af::vtpages
