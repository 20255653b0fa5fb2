/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_TUNING_CACHE_H
#define INCLUDED_CUDADSP_CORE_TUNING_CACHE_H

// Per-device cache of autotuned kernel orders (a small JSON file), so the LREI search
// runs once per device and configuration and later runs start from its result.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

//! FNV-1a, 64 bit (offset basis 0xcbf29ce484222325, prime 0x100000001b3), of the bytes.
std::uint64_t fnv1a64(const std::string& bytes);

/*!
 * \brief The configuration part of a cache key: FNV-1a 64 of \p canonical_description
 * as 16 lowercase hex digits.
 *
 * The caller builds the description from everything that changes the tuned kernel
 * (grid size, transitions with their exact float values, kernel generator revision,
 * ...) in a fixed textual form; the hash is stable across platforms and versions
 * because it depends on those bytes alone.
 */
std::string tuning_config_hash(const std::string& canonical_description);

/*!
 * \brief The default cache directory: $XDG_CACHE_HOME/gr-cudadsp when XDG_CACHE_HOME
 * is an absolute path (the XDG Base Directory rule: relative values are ignored), else
 * $HOME/.cache/gr-cudadsp, else the password database's home directory
 * + /.cache/gr-cudadsp; "" when none of these exists.
 */
std::string default_tuning_cache_dir();

//! The current time in UTC as ISO 8601, e.g. "2026-03-01T12:34:56Z".
std::string tuning_timestamp_utc();

//! The gr-cudadsp version this library was built as (e.g. "1.0.0"), or "unknown".
std::string tuning_library_version();

//! Identifies one cache entry: all four fields must match.
struct tuning_key {
    std::string device_name; //!< cudaDeviceProp::name, e.g. "NVIDIA H100 80GB HBM3"
    int compute_major = 0;   //!< compute capability, e.g. 9 ...
    int compute_minor = 0;   //!< ... and 0
    std::string config_hash; //!< tuning_config_hash() of the configuration
};

//! What is stored under a key.
struct tuning_entry {
    std::vector<std::size_t> order; //!< the tuned line order, a permutation of 0..n-1
    double best_ms = 0.0;           //!< its measured time, <= start_ms
    double start_ms = 0.0;          //!< time of the sorted starting order, same run
    std::string bilinear;           //!< bilinear mode chosen with it ("texture", ...)
    std::string timestamp;          //!< ISO 8601 UTC; store() fills it when empty
    std::string version;            //!< gr-cudadsp version; store() fills it when empty
};

enum class tuning_lookup_status {
    hit,           //!< entry valid and returned
    no_entry,      //!< the file is readable and has no entry for this key
    no_file,       //!< there is no cache file yet
    no_cache_dir,  //!< no cache directory could be determined
    corrupt_file,  //!< the file exists but cannot be read as a tuning cache
    invalid_entry, //!< the key is there but its entry fails validation
};

//! "hit", "no entry", "no file", "no cache directory", "corrupt file", "invalid entry"
const char* to_string(tuning_lookup_status status);

struct tuning_lookup {
    tuning_lookup_status status = tuning_lookup_status::no_entry;
    tuning_entry entry;  //!< meaningful when status == hit
    std::string message; //!< why it is not a hit (path and reason); "" on a hit
    bool hit() const { return status == tuning_lookup_status::hit; }
};

struct tuning_store_result {
    bool ok = false;
    std::string
        message; //!< the error when !ok; a note (e.g. a corrupt file replaced) when ok
};

/*!
 * \brief The cache file DIR/tuning.json, DIR given or default_tuning_cache_dir().
 *
 * Format (UTF-8 JSON; unknown members are kept on rewrite and ignored on read):
 *
 *     { "format": "gr-cudadsp tuning cache", "format_version": 1,
 *       "entries": [ { "device": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0",
 *                      "config_hash": "0123456789abcdef", "order": [2, 0, 1],
 *                      "best_ms": 0.41, "start_ms": 0.44, "bilinear": "texture",
 *                      "timestamp": "2026-03-01T12:34:56Z", "version": "1.0.0" } ] }
 *
 * Nothing here throws for the file's sake: a missing, unreadable or corrupt file is a
 * miss with a reason, a failed write is a store result with ok = false. Writes are
 * atomic (a temporary file in the same directory, fsync, rename), serialized between
 * processes by flock on DIR/tuning.json.lock, and read-modify-write: entries under
 * other keys are kept. The object holds only the path; every call reads the file anew.
 */
class tuning_cache
{
public:
    //! \p dir "" means default_tuning_cache_dir() (resolved now).
    explicit tuning_cache(const std::string& dir = "");

    //! The directory, "" when none could be determined (every lookup is then a miss).
    const std::string& directory() const { return d_dir; }
    //! directory() + "/tuning.json", or "".
    const std::string& path() const { return d_path; }

    /*!
     * The entry under \p key. It is a hit only when its order is a permutation of
     * 0..expected_lines-1, best_ms and start_ms are finite with 0 <= best_ms <=
     * start_ms, and every member has its type; otherwise invalid_entry.
     */
    tuning_lookup lookup(const tuning_key& key, std::size_t expected_lines) const;

    /*!
     * Adds or replaces the entry under \p key. Throws std::invalid_argument when the key
     * has an empty device_name or config_hash or a negative compute capability, a text
     * member of the key or the entry is not UTF-8, or the entry is one lookup() would
     * reject. A corrupt file is kept beside as
     * tuning.json.corrupt and replaced.
     */
    tuning_store_result store(const tuning_key& key, const tuning_entry& entry) const;

private:
    std::string d_dir;
    std::string d_path;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_TUNING_CACHE_H */
