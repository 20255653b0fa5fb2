/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_SOAK_RSS_MONITOR_H
#define INCLUDED_CUDADSP_SOAK_RSS_MONITOR_H

// The process's resident set size over a soak, and its growth rate after a warm-up.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace gr {
namespace cudadsp {
namespace soak {

//! A field of /proc/self/status given in kB (e.g. "VmRSS:"), in MiB; negative when
//! unreadable.
inline double status_mib(const char* field)
{
    std::FILE* f = std::fopen("/proc/self/status", "r");
    if (!f)
        return -1.0;
    char line[256];
    double kib = -1.0;
    const std::size_t n = std::strlen(field);
    while (std::fgets(line, sizeof line, f)) {
        if (std::strncmp(line, field, n) == 0) {
            kib = std::strtod(line + n, nullptr);
            break;
        }
    }
    std::fclose(f);
    return kib < 0.0 ? -1.0 : kib / 1024.0;
}

//! VmRSS of this process in MiB, from /proc/self/status; negative when unreadable.
inline double resident_mib() { return status_mib("VmRSS:"); }

struct rss_sample {
    double t_s;
    double rss_mib;
};

/*!
 * Least-squares slope of RSS against time over the samples taken at or after
 * \p warmup_s, in MiB per hour; 0 with fewer than two such samples. A fit rather than
 * end minus start, so that one allocator step near either end does not decide it.
 */
inline double growth_mib_per_hour(const std::vector<rss_sample>& samples, double warmup_s)
{
    double n = 0, st = 0, sr = 0, stt = 0, str = 0;
    for (const rss_sample& s : samples) {
        if (s.t_s < warmup_s)
            continue;
        n += 1;
        st += s.t_s;
        sr += s.rss_mib;
        stt += s.t_s * s.t_s;
        str += s.t_s * s.rss_mib;
    }
    const double denom = n * stt - st * st;
    if (n < 2 || denom <= 0)
        return 0.0;
    return (n * str - st * sr) / denom * 3600.0;
}

//! Largest RSS after the warm-up minus the first sample at or after it, MiB.
inline double growth_after_warmup_mib(const std::vector<rss_sample>& samples,
                                      double warmup_s)
{
    double first = -1.0, peak = -1.0;
    for (const rss_sample& s : samples) {
        if (s.t_s < warmup_s)
            continue;
        if (first < 0.0)
            first = s.rss_mib;
        if (s.rss_mib > peak)
            peak = s.rss_mib;
    }
    return first < 0.0 ? 0.0 : peak - first;
}

} // namespace soak
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_SOAK_RSS_MONITOR_H */
