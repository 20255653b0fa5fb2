/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_XCORR_PAIR_LIST_H
#define INCLUDED_CUDADSP_XCORR_PAIR_LIST_H

// The pair list of cudadsp_xcorr --pairs (docs/apps/cudadsp_xcorr.md, "Stacks").

#include <cstddef>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace xcorr {

//! One pair of a stack: its PRM files, the folder its freq_xcorr.dat goes to, and the
//! line of the list that gave it (for messages).
struct pair_entry {
    std::string master_prm;
    std::string aligned_prm;
    std::string folder;
    std::size_t line = 0;
};

/*!
 * The folder of a pair whose line names none: "MASTER_ALIGNED", each PRM name without
 * its folders and its ".PRM" (master/S1_20190704.PRM and S1_20190716.PRM give
 * "S1_20190704_S1_20190716"), relative to the working directory.
 */
std::string default_pair_folder(const std::string& master_prm,
                                const std::string& aligned_prm);

/*!
 * Parses a pair list. One pair a line: "master.PRM aligned.PRM [FOLDER]", words
 * separated by spaces or tabs (so names hold none), '#' and the rest of its line a
 * comment, blank lines and CR LF line ends allowed. Throws input_error naming
 * \p list_name and the line when a line has another number of words, a PRM name does
 * not end in ".PRM", or two lines give the same folder (as written, trailing slashes
 * and a leading "./" aside), and when the list holds no pair.
 */
std::vector<pair_entry> parse_pair_list(const std::string& text,
                                        const std::string& list_name);

//! Reads and parses the list file \p path ("-": standard input); the file must be a
//! regular file (regular_file.h).
std::vector<pair_entry> read_pair_list(const std::string& path);

} // namespace xcorr
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_XCORR_PAIR_LIST_H */
