/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_XCORR_PRM_FILE_H
#define INCLUDED_CUDADSP_XCORR_PRM_FILE_H

// GMTSAR PRM files as cudadsp_xcorr reads them (docs/apps/cudadsp_xcorr.md, "PRM files").

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

namespace gr {
namespace cudadsp {
namespace xcorr {

//! Any input cudadsp_xcorr rejects: the message names the file, key or option.
class input_error : public std::runtime_error
{
public:
    explicit input_error(const std::string& what) : std::runtime_error(what) {}
};

/*!
 * \brief The keys of one PRM file.
 *
 * Lines are split at white space like GMTSAR's sscanf("%s %s %s"): the first token is
 * the key, the third the value, the second (normally "=") is not checked and further
 * tokens are ignored. A later line with the same key replaces an earlier one; the
 * legacy keys xshift and yshift are stored as rshift and ashift (as GMTSAR does).
 * Deviations from GMTSAR: blank lines are skipped (GMTSAR assigns 0 to the previous
 * line's key); a key line with fewer than three tokens gives the key an empty value,
 * which the getters reject (GMTSAR stores 0); values are parsed strictly (GMTSAR's
 * atoi/atof read "12.7" as 12 and "abc" as 0).
 */
class prm_file
{
public:
    //! Reads \p path; throws input_error when it is not a regular file or cannot be
    //! opened or read (regular_file.h).
    static prm_file read(const std::string& path);
    //! Parses PRM text; \p path only names the file in messages.
    static prm_file parse(const std::string& text, const std::string& path);

    const std::string& path() const { return d_path; }
    bool has(const std::string& key) const { return d_values.count(key) != 0; }

    //! The value of \p key; throws input_error naming the file and key when it is
    //! missing or empty.
    std::string get_string(const std::string& key) const;
    //! A decimal integer ([+-]digits, within 32 bits); throws input_error otherwise.
    std::int32_t get_int(const std::string& key) const;
    //! A finite decimal floating-point number; throws input_error otherwise.
    double get_double(const std::string& key) const;

    const std::map<std::string, std::string>& values() const { return d_values; }

private:
    std::string d_path;
    std::map<std::string, std::string> d_values;
};

/*!
 * \brief What cudadsp_xcorr needs from one PRM file.
 *
 * num_rng_bins (width) and num_patches * num_valid_az (height) are required unless the
 * caller supplies the raster size (the -cfloat32 option; then, where present, they must
 * agree with it). PRF is required when \p require_prf, else optional. rshift and ashift
 * are read when \p read_shifts (the aligned file, without -noshift).
 */
struct prm_keys {
    std::string path;
    std::string slc_file;
    std::int64_t width = 0;
    std::int64_t height = 0;
    bool has_prf = false;
    double prf = 0.0;
    std::string prf_text; //!< PRF as written in the file (for messages)
    std::int32_t rshift = 0;
    std::int32_t ashift = 0;
};

struct prm_read_options {
    bool require_size = true;     //!< false: the raster size comes from -cfloat32
    std::int64_t given_width = 0; //!< with require_size false: the size to check against
    std::int64_t given_height = 0;
    bool require_prf = true;
    bool read_shifts = false;
};

prm_keys read_prm_keys(const prm_file& prm, const prm_read_options& options);

//! Throws input_error unless \p name ends in ".PRM" (GMTSAR xcorr reads other names
//! as GMT grids, which cudadsp_xcorr does not support).
void check_prm_name(const std::string& name);

} // namespace xcorr
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_XCORR_PRM_FILE_H */
