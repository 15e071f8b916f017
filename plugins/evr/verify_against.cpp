#include "verify_against.hpp"

#include "parallel_jobs.hpp"

#include "assetforge/error.hpp"

#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <map>

namespace af::evr {

namespace fs = std::filesystem;
using sdk::format;
using ull = unsigned long long;

namespace {

using Digest = std::pair<uint64_t, uint64_t>;

Digest digest(std::span<const uint8_t> b) {
    const XXH128_hash_t h = XXH3_128bits(b.data(), b.size());
    return {h.high64, h.low64};
}

// A digest of every file's stored bytes, in manifest order; each referenced
// data frame decoded once.
std::vector<Digest> file_digests(const PackageSet& set, const af_host* host) {
    const Manifest& m = set.manifest();
    std::map<uint32_t, std::vector<uint64_t>> members;
    for (uint64_t j = 0; j < m.files.size(); ++j) members[m.files[j].frame].push_back(j);
    std::vector<std::pair<uint32_t, const std::vector<uint64_t>*>> jobs;
    for (const auto& [f, list] : members) jobs.push_back({f, &list});
    std::vector<Digest> out(m.files.size(), digest({}));
    run_jobs(host, jobs.size(), [&](uint64_t k) {
        const FrameBytes fb = set.decompress(jobs[k].first);
        for (uint64_t j : *jobs[k].second) {
            const FileEntry& f = m.files[j];
            if (f.size) out[j] = digest(fb.bytes().subspan(f.offset, f.size));
        }
    });
    return out;
}

bool same_unknown_fields(const Manifest& a, const Manifest& b, std::string& what) {
    if (a.unknown_a != b.unknown_a || a.unknown_b != b.unknown_b) {
        what = format("header unknown fields %u, %llu became %u, %llu", a.unknown_a, (ull)a.unknown_b, b.unknown_a,
                      (ull)b.unknown_b);
        return false;
    }
    static const char* names[] = {"FrameContents", "Metadata", "Frames"};
    for (int s = 0; s < 3; ++s)
        if (a.sections[s].unknown_c != b.sections[s].unknown_c || a.sections[s].unknown_d != b.sections[s].unknown_d) {
            what = format("%s section's unknown fields %llu, %llu became %llu, %llu", names[s],
                          (ull)a.sections[s].unknown_c, (ull)a.sections[s].unknown_d, (ull)b.sections[s].unknown_c,
                          (ull)b.sections[s].unknown_d);
            return false;
        }
    if (a.paddings != b.paddings) {
        what = "the header's padding bytes changed";
        return false;
    }
    return true;
}

} // namespace

std::vector<Finding> all_findings(const PackageSet& set) {
    const Manifest& m = set.manifest();
    const std::string mpath = set.location().manifest.string();
    std::vector<Finding> out;
    if (m.header_length == 24)
        out.push_back({Finding::kHeaderLength24, mpath + ": archive header-length field is 24 (16 expected)"});
    if (!m.trailing.empty())
        out.push_back({Finding::kTrailingBytes,
                       mpath + format(": %zu unexplained bytes after the Frames table", m.trailing.size())});
    std::error_code ec;
    const fs::path extra = set.location().packages / (set.location().name + "_" + std::to_string(m.package_count));
    if (fs::exists(extra, ec))
        out.push_back({Finding::kExtraPart,
                       extra.string() + format(": exists but the manifest names only %u part(s)", m.package_count)});
    for (auto& f : set.structure_findings()) out.push_back(std::move(f));
    return out;
}

AgainstReport verify_against(const PackageSet& fresh, const PackageSet& original, const af_host* host) {
    AgainstReport r;
    const Manifest &o = original.manifest(), &n = fresh.manifest();

    // Oddities: one the original has as often is inherited, more is introduced.
    const std::vector<Finding> fn = all_findings(fresh), fo = all_findings(original);
    std::array<size_t, Finding::kKinds> have{}, had{};
    for (const auto& f : fn) ++have[f.kind];
    for (const auto& f : fo) ++had[f.kind];
    for (const auto& f : fn) {
        if (have[f.kind] > had[f.kind]) {
            r.introduced.push_back(f.text);
        } else {
            ++r.inherited;
        }
    }

    // Rule 3: the header's unknown fields.
    if (std::string what; !same_unknown_fields(o, n, what)) r.problems.push_back(what);
    // Rule 1: order and identities (only frame, offset and size may change).
    if (n.files.size() < o.files.size())
        r.problems.push_back(format("%zu files in the original, %zu in the new set", o.files.size(), n.files.size()));
    const size_t common = std::min(o.files.size(), n.files.size());
    for (size_t j = 0; j < common; ++j) {
        const FileEntry &a = o.files[j], &b = n.files[j];
        if (a.type != b.type || a.file != b.file || a.alignment != b.alignment)
            r.problems.push_back(format("file %zu: was %s/%s align %u, now %s/%s align %u", j, hex16(a.type).c_str(),
                                        hex16(a.file).c_str(), a.alignment, hex16(b.type).c_str(),
                                        hex16(b.file).c_str(), b.alignment));
    }
    r.added = n.files.size() > o.files.size() ? n.files.size() - o.files.size() : 0;
    // Rule 2: Metadata byte for byte.
    const bool meta_kept = n.metadata.size() >= o.metadata.size() &&
                           std::equal(o.metadata.begin(), o.metadata.end(), n.metadata.begin(),
                                      [](const MetaEntry& a, const MetaEntry& b) {
                                          return a.type == b.type && a.file == b.file && a.unknown_e == b.unknown_e &&
                                                 a.unknown_f == b.unknown_f && a.asset_type == b.asset_type;
                                      });
    if (!meta_kept) r.problems.push_back("the Metadata entries of the original files changed");

    // Rule 8 and the changed files: every file's content, both sets.
    const std::vector<Digest> dn = file_digests(fresh, host), dor = file_digests(original, host);
    std::vector<char> changed(o.files.size(), 0);
    for (size_t j = 0; j < common; ++j)
        if (dn[j] != dor[j]) {
            changed[j] = 1;
            r.changed.push_back(j);
        }
    // Rule 4: a frame holding no changed file is copied as the same compressed bytes.
    std::multimap<Digest, uint32_t> kept;
    for (uint32_t i = 0; i < n.frames.size(); ++i)
        if (n.frames[i].is_data()) kept.insert({digest(fresh.compressed(i)), i});
    std::vector<char> holds_change(o.frames.size(), 0), holds_file(o.frames.size(), 0);
    for (size_t j = 0; j < o.files.size(); ++j) {
        holds_file[o.files[j].frame] = 1;
        if (changed[j] || j >= common) holds_change[o.files[j].frame] = 1;
    }
    for (uint32_t i = 0; i < o.frames.size(); ++i) {
        if (!o.frames[i].is_data() || !holds_file[i] || holds_change[i]) continue;
        const auto want = original.compressed(i);
        const auto [lo, hi] = kept.equal_range(digest(want));
        const bool found = std::any_of(lo, hi, [&](const auto& e) {
            const auto got = fresh.compressed(e.second);
            return got.size() == want.size() && std::memcmp(got.data(), want.data(), want.size()) == 0;
        });
        if (!found)
            r.problems.push_back(
                format("original frame %u holds no changed file but its compressed bytes were not kept", i));
    }
    return r;
}

} // namespace af::evr
