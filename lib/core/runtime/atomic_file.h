/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_RUNTIME_ATOMIC_FILE_H
#define INCLUDED_CUDADSP_CORE_RUNTIME_ATOMIC_FILE_H

// A text file that is either absent, as it was, or complete under its final name: the
// engines' output files (RINEX, NMEA, GeoJSON) go through here.

#include <string>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * \brief Writes \p text to \p path through "PATH.PID.tmp" in the same folder, flushed
 * to the disk, then renamed over \p path (atomic within a file system).
 *
 * Throws std::runtime_error naming the file and the system's reason; the temporary
 * file is removed then, and an earlier file at \p path is left as it was.
 */
void write_file_atomically(const std::string& path, const std::string& text);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_RUNTIME_ATOMIC_FILE_H */
