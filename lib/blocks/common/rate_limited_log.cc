/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "blocks/common/rate_limited_log.h"
#include <cmath>
#include <utility>

namespace gr {
namespace cudadsp {

rate_limited_log::rate_limited_log(level severity,
                                   std::string topic,
                                   clock::duration interval)
    : d_level(severity), d_topic(std::move(topic)), d_interval(interval)
{
}

bool rate_limited_log::log(const gr::logger_ptr& logger,
                           const std::string& line,
                           clock::time_point now)
{
    std::string text = line;
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        if (d_logged_once && now - d_last < d_interval) {
            ++d_pending;
            ++d_suppressed;
            return false;
        }
        if (d_pending > 0) {
            const double seconds = std::chrono::duration<double>(now - d_last).count();
            text += " (" + std::to_string(d_pending) +
                    " more like this suppressed in the last " +
                    std::to_string(static_cast<long long>(std::lround(seconds))) + " s)";
        }
        d_pending = 0;
        d_last = now;
        d_logged_once = true;
    }
    emit(logger, text);
    return true;
}

void rate_limited_log::report(const gr::logger_ptr& logger)
{
    std::uint64_t pending;
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        pending = std::exchange(d_pending, 0);
    }
    if (pending > 0)
        emit(logger,
             std::to_string(pending) + " more lines about " + d_topic +
                 " were suppressed");
}

std::uint64_t rate_limited_log::suppressed() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_suppressed;
}

void rate_limited_log::emit(const gr::logger_ptr& logger, const std::string& line) const
{
    if (d_level == level::error)
        logger->error("{}", line);
    else
        logger->warn("{}", line);
}

} // namespace cudadsp
} // namespace gr
