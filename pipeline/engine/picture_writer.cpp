#include "engine/picture_writer.hpp"

#include "core/atomic_file.hpp"

#include <fstream>
#include <utility>

namespace af::engine {
namespace fs = std::filesystem;

PictureWriter::PictureWriter(uint64_t max_pending) : max_pending_(max_pending), thread_([this] { run(); }) {}

PictureWriter::~PictureWriter() {
    {
        std::lock_guard lock(m_);
        stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void PictureWriter::write(fs::path target, std::vector<uint8_t> bytes) {
    push({std::move(target), {}, std::move(bytes)});
}

void PictureWriter::copy(fs::path target, fs::path from) { push({std::move(target), std::move(from), {}}); }

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
        const fs::path tmp = job.target.parent_path() / (std::string(kTempPrefix) + job.target.filename().string());
        std::string problem;
        try {
            if (!job.from.empty()) {
                fs::copy_file(job.from, tmp, fs::copy_options::overwrite_existing);
            } else {
                std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
                out.write(reinterpret_cast<const char*>(job.bytes.data()), std::streamsize(job.bytes.size()));
                if (!out.flush()) throw std::runtime_error(tmp.string() + ": cannot write");
            }
            fs::rename(tmp, job.target);
        } catch (const std::exception& e) {
            std::error_code ec;
            fs::remove(tmp, ec);
            problem = e.what();
        }
        lock.lock();
        busy_ = false;
        pending_ -= job.bytes.size();
        if (!problem.empty()) problems_.push_back(std::move(problem));
        room_.notify_all();
    }
}

} // namespace af::engine
