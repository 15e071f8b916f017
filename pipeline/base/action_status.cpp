#include "base/action_status.hpp"

namespace af::base {

std::string_view to_string(ActionStatus s) {
    switch (s) {
    case ActionStatus::Built:
        return "built";
    case ActionStatus::Cached:
        return "cached";
    case ActionStatus::UpToDate:
        return "up-to-date";
    case ActionStatus::Failed:
        return "failed";
    case ActionStatus::Removed:
        return "removed";
    case ActionStatus::NotRun:
        return "not-run";
    case ActionStatus::Skipped:
        return "skipped";
    case ActionStatus::WouldRun:
        return "would-run";
    case ActionStatus::WouldFetch:
        return "would-fetch";
    case ActionStatus::WouldRemove:
        return "would-remove";
    }
    return "unknown";
}

} // namespace af::base
