#include "test_project.hpp"

#include "core/png_io.hpp"

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

namespace af::engine::test {
namespace fs = std::filesystem;

namespace {
std::shared_ptr<Texture> texture_of(const Texture& img8) {
    TextureDesc d;
    d.format = is_srgb(img8.desc) ? FMT_R8G8B8A8_UNORM_SRGB : FMT_R8G8B8A8_UNORM;
    d.width = img8.desc.width;
    d.height = img8.desc.height;
    auto t = std::make_shared<Texture>(d);
    t->data = img8.data;
    return t;
}
} // namespace

steps::StepTable png_test_steps() {
    steps::StepTable t;
    steps::add_engine_steps(t);
    t.reader = [](const steps::Item& it, std::vector<std::string>& tools) {
        tools.push_back("testpng@1#0");
        steps::Item out = it;
        out.texture = texture_of(to_rgba8(decode_png(*it.bytes, it.name)));
        out.bytes.reset();
        return out;
    };
    t.writer = [](const steps::Item& it, const fs::path&, std::vector<std::string>&, steps::WrittenFile&) {
        Texture img = rgba8_picture(it.texture->desc.width, it.texture->desc.height);
        img.data.assign(it.texture->data.begin(), it.texture->data.begin() + img.data.size());
        return encode_png(img);
    };
    // invert: a texture step with a parameter, so parameter changes are testable.
    t.add({.name = "invert",
           .description = "inverts colour channels",
           .params = {{"amount", "255", {}, ""}},
           .provider = "test",
           .takes_texture = true,
           .run = [](steps::StepContext& ctx, std::vector<steps::Item> items) {
               int amount = std::stoi(ctx.params.at("amount"));
               for (auto& it : items) {
                   auto t = std::make_shared<Texture>(*it.texture);
                   for (size_t i = 0; i < t->data.size(); ++i)
                       if (i % 4 != 3) t->data[i] = uint8_t(amount - t->data[i]);
                   it.texture = t;
               }
               return items;
           }});
    // slow: lets the kill test catch a build in the middle.
    t.add({.name = "slow",
           .description = "sleeps",
           .params = {{"ms", "50", {}, ""}},
           .provider = "test",
           .run = [](steps::StepContext& ctx, std::vector<steps::Item> items) {
               std::this_thread::sleep_for(std::chrono::milliseconds(std::stoi(ctx.params.at("ms"))));
               return items;
           }});
    // split: 1 → 2 items with {part} metadata.
    t.add({.name = "split",
           .description = "two copies",
           .provider = "test",
           .run = [](steps::StepContext&, std::vector<steps::Item> items) {
               std::vector<steps::Item> out;
               for (auto& it : items)
                   for (int i = 0; i < 2; ++i) {
                       steps::Item c = it;
                       c.meta["part"] = std::to_string(i);
                       out.push_back(c);
                   }
               return out;
           }});
    // append: adds the bytes of every file in a folder (a folder-typed
    // parameter, like pages.repack's replacements) to each item.
    steps::ParamSpec folder{"from", "", {}, "folder whose files are appended"};
    folder.type = steps::ParamType::Dir;
    t.add({.name = "append",
           .description = "appends a folder's files",
           .params = {folder},
           .provider = "test",
           .run = [](steps::StepContext& ctx, std::vector<steps::Item> items) {
               std::vector<fs::path> files;
               for (const auto& e : fs::directory_iterator(ctx.base_dir / ctx.params.at("from")))
                   files.push_back(e.path());
               std::sort(files.begin(), files.end());
               for (auto& it : items) {
                   auto bytes = *it.bytes;
                   for (const auto& f : files) {
                       std::ifstream in(f, std::ios::binary);
                       bytes.insert(bytes.end(), std::istreambuf_iterator<char>(in), {});
                   }
                   it.bytes = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
               }
               return items;
           }});
    t.keeps_names({"invert", "slow", "append"});
    return t;
}

TestProject::TestProject() : steps_(png_test_steps()) {
    static std::mt19937_64 rng{std::random_device{}()};
    root_ = fs::temp_directory_path() / ("af-engine-test-" + std::to_string(rng()));
    fs::create_directories(root_);
}

TestProject::~TestProject() {
    std::error_code ec;
    fs::remove_all(root_, ec);
}

void TestProject::write(const std::string& rel, const std::string& text) const {
    fs::create_directories(path(rel).parent_path());
    std::ofstream(path(rel), std::ios::binary) << text;
}

void TestProject::write_png(const std::string& rel, uint32_t w, uint32_t h, uint8_t seed) const {
    Texture img = rgba8_picture(w, h);
    for (size_t i = 0; i < img.data.size(); ++i) img.data[i] = uint8_t(i * 7 + seed * 13);
    for (size_t i = 3; i < img.data.size(); i += 4) img.data[i] = 255;
    fs::create_directories(path(rel).parent_path());
    write_png_file(path(rel), img);
}

std::string TestProject::read(const std::string& rel) const {
    std::ifstream in(path(rel), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

base::BuildSummary TestProject::build(const std::string& yaml, base::BuildOptions opt, const load::Defines& defines) {
    write("pipeline.yaml", yaml);
    static std::ostringstream sink;
    if (!opt.out) opt.out = &sink;
    if (!opt.err) opt.err = &sink;
    opt.progress = 0;
    opt.tool_identity = [](const std::string& name) { return name == "testpng" ? "testpng@1#0" : ""; };
    load::Pipeline p = load::load_pipeline(path("pipeline.yaml"), defines, steps_);
    return run_build(p, steps_, opt);
}

std::vector<std::string> with_status(const base::BuildSummary& s, const std::string& status) {
    std::vector<std::string> v;
    for (const auto& a : s.actions)
        if (base::to_string(a.status) == status) v.push_back(a.job + ":" + a.input);
    std::sort(v.begin(), v.end());
    return v;
}

} // namespace af::engine::test
