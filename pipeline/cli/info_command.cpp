// `assetforge info FILE…`: asks the plugin that claims each file to describe it.
#include "cli/cli_options.hpp"

#include "assetforge/mapped_file.hpp"
#include "assetforge/plugin.hpp"
#include "assetforge/user_text.hpp"
#include "base/name_text.hpp"
#include "host/host_services.hpp"
#include "host/load_failures.hpp"
#include "host/texture_io.hpp"
#include "texture/texture_ops.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>

namespace af::cli {
namespace {

struct InfoResult {
    bool ok = false;
    bool printable = false; // a report exists (even for an invalid file)
    nlohmann::json json;
    std::string text;
};

InfoResult describe(Context& ctx, const std::string& path, const host::OptionMap& opts) {
    InfoResult r;
    try {
        sdk::MappedFile file(path);
        auto c = ctx.registry.container_for(path, file.data(), std::min<uint64_t>(file.size(), 4096), file.size());
        if (!c) {
            // Some files are a plugin command's business, not a container's (`.pages`: `assetforge pages`).
            std::string ext = std::filesystem::path(path).extension().string();
            if (!ext.empty()) ext.erase(0, 1);
            for (const auto& pl : ctx.registry.plugins())
                for (const auto& cmd : pl->commands)
                    if (!ext.empty() && ext == cmd.name)
                        throw sdk::Error(AF_ERR_UNSUPPORTED,
                                         "not a texture container: ." + ext + " files are read by the `" + ext +
                                             "` command of plugin " + pl->name + " (try `assetforge " + ext +
                                             " header " + path + "`, or `assetforge " + ext + " --help`)");
            throw sdk::Error(AF_ERR_UNSUPPORTED, "unknown format (no plugin recognises its first bytes or extension)" +
                                                     host::failed_loads_note(ctx.registry));
        }
        std::vector<af_kv> kv;
        for (const auto& [k, v] : opts) kv.push_back({k.c_str(), v.c_str()});
        af_options o{kv.data(), uint32_t(kv.size())};
        if (c.item->info) {
            af_input in{};
            sdk::init_header(in);
            in.path = path.c_str();
            in.data = file.data();
            in.size = file.size();
            af_info_text out{};
            af_error e{};
            af_status st = c.item->info(host::services(), &in, &o, &out, &e);
            std::string js = out.json ? out.json : "", tx = out.text ? out.text : "";
            host::services()->free(out.json);
            host::services()->free(out.text);
            if (st != AF_OK)
                throw sdk::Error(st, e.offset == AF_NO_OFFSET
                                         ? std::string(e.message)
                                         : "offset " + std::to_string(e.offset) + ": " + e.message);
            r.json = js.empty() ? nlohmann::json::object() : nlohmann::json::parse(js, nullptr, false);
            if (r.json.is_discarded()) r.json = {{"raw", js}};
            r.text = tx;
        } else {
            // No info function: describe what the reader produced.
            auto res = host::read_texture_bytes(ctx.registry, path, file.bytes(), opts);
            const auto& d = res.texture.desc;
            const FormatInfo* f = format_info(d.format);
            std::string fname = f ? std::string(f->name) : std::to_string(d.format);
            r.json = {{"container", res.container},
                      {"format", fname},
                      {"format_id", d.format},
                      {"width", d.width},
                      {"height", d.height},
                      {"depth", d.depth},
                      {"mips", d.mips},
                      {"layers", d.layers},
                      {"faces", d.faces}};
            r.text = "container: " + res.container + "\nformat: " + fname + "\ndimensions: " + std::to_string(d.width) +
                     "x" + std::to_string(d.height) + "x" + std::to_string(d.depth) +
                     "\nmips: " + std::to_string(d.mips) + "\nlayers: " + std::to_string(d.layers) +
                     "\nfaces: " + std::to_string(d.faces) + "\n";
        }
        base::put_name(r.json, "file", path);
        // A plugin may describe a file it would refuse to read ("valid": false):
        // the report is printed, and the exit code still says the input failed.
        r.ok = !(r.json.is_object() && r.json.contains("valid") && r.json["valid"].is_boolean() &&
                 !r.json["valid"].get<bool>());
        r.printable = true;
    } catch (const std::exception& e) {
        std::string msg = sdk::describe(e);
        if (msg.rfind(path, 0) != 0) msg = path + ": " + msg;
        r.json = {{"error", msg}};
        base::put_name(r.json, "file", path);
        r.text = msg;
    }
    return r;
}

// --normal-map: what the one rule says of the file, and what its name and
// its texels say each on their own (a real tree's disagreements show here).
void add_normal_map(Context& ctx, const std::string& path, const host::OptionMap& opts, InfoResult& r) {
    namespace tx = af::texture;
    try {
        host::ReadResult res = host::read_texture(ctx.registry, path, opts);
        tx::Ops ops{ctx.registry};
        const Texture top = tx::measured_image(ops, res.texture, 0, 0, 0);
        const tx::Content c = tx::analyse(top);
        const tx::NormalMapVerdict v = tx::normal_map_of(ops, res.texture, path, tx::NormalMapMode::Auto, "", &c);
        const std::string token = tx::normal_map_name_token(path);
        r.json["normal_map"] = {{"verdict", tx::verdict_text(v)},
                                {"name_token", token},
                                {"texels", c.unit_vectors},
                                {"texels_detail", tx::describe_vectors(c)}};
        r.text += "normal map: " + tx::verdict_text(v) + "\n  by name: " + (token.empty() ? "no token" : token) +
                  "\n  by texels: " + (c.unit_vectors ? "yes" : "no") + " (" + tx::describe_vectors(c) + ")\n";
    } catch (const std::exception& e) {
        std::string msg = e.what();
        if (msg.rfind(path, 0) != 0) msg = path + ": " + msg;
        r.json["normal_map"] = {{"error", msg}};
        r.text += "normal map: cannot tell: " + msg + "\n";
    }
}

int run_info(Context& ctx, const std::vector<std::string>& args) {
    po::options_description opts("options");
    opts.add_options()("json", "machine-readable output (one JSON array)")(
        "permissive", "read what a truncated file holds instead of failing")(
        "normal-map", "also decode the top level and say whether it is a normal map: the rule's verdict, and what "
                      "the name and the texels say each (docs/auto-format.md)")(
        "files", po::value<std::vector<std::string>>(), "files to describe");
    po::positional_options_description pos;
    pos.add("files", -1);
    po::variables_map vm;
    if (auto rc = parse_args("assetforge info [--json] FILE...", args, opts, pos, vm)) return *rc;
    if (!vm.count("files")) {
        std::fprintf(stderr, "assetforge info: no files given\nusage: assetforge info [--json] FILE...\n");
        return kExitUsage;
    }
    host::OptionMap o;
    if (vm.count("permissive")) o["permissive"] = "true";
    bool json = vm.count("json");
    nlohmann::json all = nlohmann::json::array();
    int rc = kExitOk;
    const auto& files = vm["files"].as<std::vector<std::string>>();
    for (const auto& f : files) {
        InfoResult r = describe(ctx, f, o);
        if (r.printable && vm.count("normal-map")) add_normal_map(ctx, f, o, r);
        if (!r.ok) rc = kExitInputFailed;
        if (json) {
            all.push_back(r.json);
        } else if (r.printable) {
            if (files.size() > 1) std::printf("== %s\n", sdk::printable(f).c_str());
            std::fputs(r.text.c_str(), stdout);
            if (!r.ok)
                std::fprintf(stderr, "assetforge info: %s: not a valid file (see problems above)\n",
                             sdk::printable(f).c_str());
        } else {
            std::fprintf(stderr, "assetforge info: %s\n", sdk::printable(r.text).c_str());
        }
    }
    if (json) std::printf("%s\n", base::json_text(all, 2).c_str()); // valid whatever the names (name_text.hpp)
    return rc;
}

RegisterCommand info_command{"info", "Describe texture files (format, size, mips, problems)", run_info};

} // namespace
} // namespace af::cli
