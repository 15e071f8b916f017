#include "load/pattern_overlap.hpp"

#include "base/glob.hpp"

#include <bitset>
#include <vector>

namespace af::load {

namespace {

// One position of a pattern: the characters it accepts; `loop`: any number
// of them (a star); `optional`: may be skipped.
struct Tok {
    std::bitset<256> cls;
    bool loop = false, optional = false;
};

std::bitset<256> one(unsigned char c) {
    std::bitset<256> b;
    b.set(c);
    return b;
}

std::bitset<256> all_but_slash() {
    std::bitset<256> b;
    b.set();
    b.reset('/');
    return b;
}

std::bitset<256> everything() {
    std::bitset<256> b;
    b.set();
    return b;
}

std::vector<Tok> glob_tokens(const std::string& g) {
    std::vector<Tok> t;
    for (size_t i = 0; i < g.size(); ++i) {
        char c = g[i];
        bool seg_start = i == 0 || g[i - 1] == '/';
        if (seg_start && g.compare(i, 2, "**") == 0 && (i + 2 == g.size() || g[i + 2] == '/')) {
            t.push_back({everything(), true, false});
            if (i + 2 < g.size()) t.push_back({one('/'), false, true}); // "**/" may be nothing at all
            i += 2;
            continue;
        }
        if (c == '*') {
            t.push_back({all_but_slash(), true, false});
        } else if (c == '?') {
            t.push_back({all_but_slash(), false, false});
        } else if (c == '[' && g.find(']', i + 1) != std::string::npos) {
            size_t end = g.find(']', i + 1);
            bool neg = i + 1 < end && (g[i + 1] == '!' || g[i + 1] == '^');
            std::bitset<256> b;
            for (size_t k = i + 1 + (neg ? 1 : 0); k < end; ++k) {
                if (k + 2 < end && g[k + 1] == '-') {
                    for (int x = static_cast<unsigned char>(g[k]); x <= static_cast<unsigned char>(g[k + 2]); ++x)
                        b.set(size_t(x));
                    k += 2;
                } else {
                    b.set(static_cast<unsigned char>(g[k]));
                }
            }
            if (neg) b = ~b & all_but_slash();
            t.push_back({b, false, false});
            i = end;
        } else {
            t.push_back({one(static_cast<unsigned char>(c)), false, false});
        }
    }
    return t;
}

std::vector<Tok> template_tokens(const base::OutputTemplate& tpl) {
    std::vector<Tok> t;
    bool after_placeholder = false;
    for (const auto& part : tpl.parts()) {
        if (part.placeholder) {
            t.push_back({everything(), true, false});
            after_placeholder = true;
            continue;
        }
        for (size_t i = 0; i < part.text.size(); ++i) {
            // "{dir}/x" with {dir} = "." normalises to "x": the slash may vanish.
            bool opt = after_placeholder && i == 0 && part.text[i] == '/';
            t.push_back({one(static_cast<unsigned char>(part.text[i])), false, opt});
        }
        after_placeholder = false;
    }
    return t;
}

// Is there a string both token sequences accept? A search over pairs of
// positions (the product of the two automata).
bool intersect(const std::vector<Tok>& a, const std::vector<Tok>& b) {
    const size_t W = b.size() + 1;
    std::vector<char> seen((a.size() + 1) * W, 0);
    std::vector<std::pair<size_t, size_t>> todo{{0, 0}};
    auto push = [&](size_t i, size_t j) {
        char& s = seen[i * W + j];
        if (!s) {
            s = 1;
            todo.emplace_back(i, j);
        }
    };
    seen[0] = 1;
    while (!todo.empty()) {
        auto [i, j] = todo.back();
        todo.pop_back();
        if (i == a.size() && j == b.size()) return true;
        if (i < a.size() && (a[i].loop || a[i].optional)) push(i + 1, j);
        if (j < b.size() && (b[j].loop || b[j].optional)) push(i, j + 1);
        if (i < a.size() && j < b.size() && (a[i].cls & b[j].cls).any()) {
            size_t ni = a[i].loop ? i : i + 1, nj = b[j].loop ? j : j + 1;
            push(ni, nj);
            if (a[i].loop) push(i + 1, nj);
            if (b[j].loop) push(ni, j + 1);
        }
    }
    return false;
}

} // namespace

bool glob_may_match_template(const std::string& glob, const base::OutputTemplate& tpl) {
    std::vector<std::string> alts;
    base::expand_braces(glob, alts);
    auto t = template_tokens(tpl);
    for (const auto& a : alts)
        if (intersect(glob_tokens(a), t)) return true;
    return false;
}

bool globs_may_overlap(const std::string& a, const std::string& b) {
    std::vector<std::string> aa, bb;
    base::expand_braces(a, aa);
    base::expand_braces(b, bb);
    for (const auto& x : aa)
        for (const auto& y : bb)
            if (intersect(glob_tokens(x), glob_tokens(y))) return true;
    return false;
}

} // namespace af::load
