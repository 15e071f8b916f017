// Bounds the bytes of images in flight: an action waits here until its
// estimate fits. An action larger than the whole budget is refused before it
// gets here (action_memory.hpp), as it could never run within it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <stdexcept>

namespace af::engine {

class MemoryBudget {
  public:
    explicit MemoryBudget(uint64_t limit) : limit_(limit) {}
    uint64_t limit() const { return limit_; }
    uint64_t acquire(uint64_t want) {
        if (want > limit_) throw std::logic_error("an action's memory estimate exceeds the whole budget");
        std::unique_lock lk(mu_);
        cv_.wait(lk, [&] { return used_ + want <= limit_; });
        used_ += want;
        return want;
    }
    void release(uint64_t n) {
        {
            std::lock_guard lk(mu_);
            used_ -= n;
        }
        cv_.notify_all();
    }

  private:
    uint64_t limit_, used_ = 0;
    std::mutex mu_;
    std::condition_variable cv_;
};

class BudgetLease {
  public:
    BudgetLease(MemoryBudget& b, uint64_t want) : b_(b), n_(b.acquire(want)) {}
    ~BudgetLease() { b_.release(n_); }
    BudgetLease(const BudgetLease&) = delete;
    BudgetLease& operator=(const BudgetLease&) = delete;

  private:
    MemoryBudget& b_;
    uint64_t n_;
};

} // namespace af::engine
