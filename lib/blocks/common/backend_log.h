/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_BACKEND_LOG_H
#define INCLUDED_CUDADSP_BACKEND_LOG_H

#include <gnuradio/cudadsp/core/device.h>
#include <gnuradio/logger.h>
#include <string>

namespace gr {
namespace cudadsp {

/*!
 * \brief The line every block logs from its constructor about the backend it runs on.
 *
 * The automatic choice (device="auto") is news to the user, so it is logged at info
 * level; an explicit one is not, so debug. \p detail (the method, the implementation)
 * follows the backend after a comma when not empty.
 */
void log_backend(const gr::logger_ptr& logger,
                 const core::device_selection& selected,
                 const std::string& detail = "");

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_BACKEND_LOG_H */
