/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_XCORR_OUTPUT_FILE_H
#define INCLUDED_CUDADSP_XCORR_OUTPUT_FILE_H

// cudadsp_xcorr's result files, written so that a file under its final name is always
// complete.

#include <string>

namespace gr {
namespace cudadsp {
namespace xcorr {

/*!
 * \brief A result file written atomically.
 *
 * The constructor creates the folder (with its parents) where it is missing and the
 * file "NAME.PID.tmp" in it, so that an unwritable folder fails before the work. commit()
 * writes the text, closes the file and renames it to NAME (atomic within the folder); the
 * destructor removes the temporary file unless committed. So a file named NAME is never
 * partial, and a failed run leaves an earlier NAME as it was. Errors throw
 * std::runtime_error naming the file and folder ("" is the working directory).
 */
class output_file
{
public:
    output_file(const std::string& folder, const std::string& name);
    ~output_file();
    output_file(const output_file&) = delete;
    output_file& operator=(const output_file&) = delete;

    void commit(const std::string& text);

    const std::string& path() const { return d_path; }

private:
    std::string describe() const;

    std::string d_folder, d_name, d_path, d_temp_path;
    int d_fd = -1;
    bool d_committed = false;
};

} // namespace xcorr
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_XCORR_OUTPUT_FILE_H */
