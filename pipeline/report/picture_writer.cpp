#include "report/picture_writer.hpp"

#include "assetforge/atomic_file.hpp"

#include <sys/stat.h>

#include <utility>

namespace af::report {
namespace fs = std::filesystem;

PictureWriter::PictureWriter(fs::path within, uint64_t max_pending)
    : within_(std::move(within)), max_pending_(max_pending), thread_([this] { run(); }) {}

PictureWriter::~PictureWriter() {
    {
        std::lock_guard lock(m_);
        stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void PictureWriter::write(fs::path target, std::vector<uint8_t> bytes) { push({std::move(target), std::move(bytes)}); }

std::map<std::string, PictureWriter::Written> PictureWriter::written() const {
    std::lock_guard lock(m_);
    return written_;
}

void PictureWriter::push(Job job) {
    std::unique_lock lock(m_);
    // One job alone may exceed the limit (a 16k² texture): it waits for an empty queue.
    room_.wait(lock, [&] { return pending_ == 0 || pending_ + job.bytes.size() <= max_pending_; });
    pending_ += job.bytes.size();
    queue_.push_back(std::move(job));
    wake_.notify_one();
}

std::vector<std::string> PictureWriter::finish() {
    std::unique_lock lock(m_);
    room_.wait(lock, [&] { return queue_.empty() && !busy_; });
    return std::exchange(problems_, {});
}

void PictureWriter::run() {
    std::unique_lock lock(m_);
    for (;;) {
        wake_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return; // stopping, and nothing left
        Job job = std::move(queue_.front());
        queue_.pop_front();
        busy_ = true;
        lock.unlock();
        std::string problem;
        Written w;
        try {
            sdk::AtomicFile f(job.target, {.durable = false, .within = within_, .create_folders = false});
            f.write(job.bytes.data(), job.bytes.size());
            f.commit();
            struct stat st;
            if (::lstat(job.target.c_str(), &st) == 0 && S_ISREG(st.st_mode))
                w = {uint64_t(st.st_ino), uint64_t(st.st_size),
                     int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
        } catch (const std::exception& e) {
            problem = e.what();
        }
        lock.lock();
        busy_ = false;
        pending_ -= job.bytes.size();
        if (!problem.empty()) problems_.push_back(std::move(problem));
        if (w.ino) written_[job.target.filename().string()] = w;
        room_.notify_all();
    }
}

} // namespace af::report
