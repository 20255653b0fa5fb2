/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_XCORR_PRINTABLE_H
#define INCLUDED_CUDADSP_XCORR_PRINTABLE_H

// Text from PRM files, pair lists and the command line, made safe for a terminal.

#include <string>

namespace gr {
namespace cudadsp {
namespace xcorr {

/*!
 * \p text with every byte that could move the cursor, change colours or otherwise act
 * on a terminal written as \xNN: C0 controls (bytes below 0x20, tabs and line ends
 * included), DEL (0x7f), C1 controls encoded as UTF-8 (U+0080..U+009F) and bytes that
 * are not part of valid UTF-8 (a lone 0x9b is CSI on some terminals). Valid UTF-8 text
 * otherwise passes unchanged, so a path like "Bücher/m.PRM" reads as written.
 * cudadsp_xcorr passes every line it prints on stderr through this, so a PRM value that
 * holds an escape sequence is shown, not executed.
 */
std::string printable(const std::string& text);

} // namespace xcorr
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_XCORR_PRINTABLE_H */
