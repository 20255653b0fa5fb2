/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_XCORR_REGULAR_FILE_H
#define INCLUDED_CUDADSP_XCORR_REGULAR_FILE_H

// Opening the files cudadsp_xcorr reads (PRM files, SLC files, pair lists), which must
// be regular files: a FIFO without a writer would block open() for ever, and a
// directory opens and reads as empty.

#include <string>

namespace gr {
namespace cudadsp {
namespace xcorr {

/*!
 * Opens \p path read-only (close-on-exec) and returns the descriptor, after checking
 * with stat() that it is a regular file (symbolic links followed), and again with
 * fstat() on the descriptor, opened non-blocking so that a FIFO put in its place
 * between the two checks cannot block. Throws input_error "<who>: <why>" otherwise:
 * "cannot open: <system error>", "is a directory, not a file", "is a FIFO (named pipe),
 * not a regular file", and likewise for devices and sockets.
 */
int open_regular_file(const std::string& path, const std::string& who);

//! The whole of the regular file \p path (open_regular_file's checks and messages;
//! a read error is "<who>: cannot read: <system error>").
std::string read_regular_file(const std::string& path, const std::string& who);

} // namespace xcorr
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_XCORR_REGULAR_FILE_H */
