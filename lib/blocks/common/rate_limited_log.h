/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_RATE_LIMITED_LOG_H
#define INCLUDED_CUDADSP_RATE_LIMITED_LOG_H

#include <gnuradio/logger.h>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace gr {
namespace cudadsp {

/*!
 * \brief A log line that may repeat for every item or message, at most once per
 * interval (python/cudadsp/rate_limited_log.py is the Python blocks' one, with the same
 * rule and wording).
 *
 * The first line is logged; later ones within the interval of the last logged line are
 * counted, not logged. The next line logged after the interval says how many were
 * suppressed since the previous one, and report() (a block's stop()) logs the count
 * still pending, so that every event is either in the log or counted there. A source
 * of bad input can then run for hours without flooding the log (a "scan" message
 * refused per radial gave 7,200 error lines in two minutes). Safe to call from a
 * message handler and work() at once.
 */
class rate_limited_log
{
public:
    using clock = std::chrono::steady_clock;
    enum class level { warn, error };

    //! \p topic names the lines in report()'s count ("\"scan\" messages ignored").
    rate_limited_log(level severity,
                     std::string topic,
                     clock::duration interval = std::chrono::seconds(10));

    //! Logs \p line through \p logger unless a line was logged less than the interval
    //! before \p now; returns whether it was logged.
    bool log(const gr::logger_ptr& logger,
             const std::string& line,
             clock::time_point now = clock::now());

    //! Logs the count of lines suppressed since the last one logged, if any.
    void report(const gr::logger_ptr& logger);

    //! Lines suppressed since the start (reported or not).
    std::uint64_t suppressed() const;

private:
    void emit(const gr::logger_ptr& logger, const std::string& line) const;

    const level d_level;
    const std::string d_topic;
    const clock::duration d_interval;
    mutable std::mutex d_mutex;
    bool d_logged_once = false;
    clock::time_point d_last;
    std::uint64_t d_pending = 0;
    std::uint64_t d_suppressed = 0;
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_RATE_LIMITED_LOG_H */
