#include "base/user_words.hpp"

#include "assetforge/user_text.hpp"

#include <algorithm>
#include <cstdint>

namespace af::base {

// Levenshtein with adjacent transpositions counted as one edit (optimal
// string alignment): "buidl" is one slip from "build", not two.
size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<size_t> prev2(b.size() + 1), prev(b.size() + 1), row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            row[j] = std::min({prev[j] + 1, row[j - 1] + 1, sub});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                row[j] = std::min(row[j], prev2[j - 2] + 1);
        }
        std::swap(prev2, prev);
        std::swap(prev, row);
    }
    return prev[b.size()];
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& choices) {
    const std::string* best = nullptr;
    size_t best_d = SIZE_MAX;
    for (const auto& c : choices) {
        size_t d = edit_distance(word, c);
        if (d < best_d) best_d = d, best = &c;
    }
    // A third of the word (at least 1, at most 3 edits) separates typos from other words.
    size_t limit = std::clamp<size_t>(word.size() / 3, 1, 3);
    if (!best || best_d > limit) return "";
    std::string out = " (did you mean '";
    out.append(*best).append("'?)");
    return out;
}

std::string printable_name(std::string_view name) { return sdk::printable(name); }

} // namespace af::base
