/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "blocks/common/backend_log.h"

namespace gr {
namespace cudadsp {

void log_backend(const gr::logger_ptr& logger,
                 const core::device_selection& selected,
                 const std::string& detail)
{
    const std::string suffix = detail.empty() ? "" : ", " + detail;
    if (selected.chosen_automatically)
        logger->info(
            "backend {} (chosen by device=\"auto\"){}", selected.to_string(), suffix);
    else
        logger->debug("backend {}{}", selected.to_string(), suffix);
}

} // namespace cudadsp
} // namespace gr
