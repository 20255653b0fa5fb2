/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_XCORR_PAIR_READER_H
#define INCLUDED_CUDADSP_XCORR_PAIR_READER_H

// One pair's inputs, prepared and read on a thread of their own, beside the engine.

#include "pair_setup.h"
#include "xcorr_options.h"
#include <chrono>
#include <cstddef>
#include <future>
#include <memory>
#include <string>
#include <thread>

namespace gr {
namespace cudadsp {
namespace xcorr {

/*!
 * \brief Prepares a pair and reads its rows ahead, on its own thread.
 *
 * The thread runs prepare_pair() (PRM files, SLC mappings, grid), then walks the rows
 * the patches use, in strip order, each once, bringing them into memory from the page
 * cache or the disk (slc_image::touch_rows), so that the engine's copies from the
 * mappings find them there. cudadsp_xcorr starts a pair's reader before it needs the
 * pair: the first before the engine is created, each next one when the pair before it
 * starts correlating, so a stack's files are read while the GPU works.
 *
 * The destructor waits for the thread (the mappings must outlive the read-ahead), then
 * unmaps the files.
 */
class pair_reader
{
public:
    pair_reader(const std::string& master_prm,
                const std::string& aligned_prm,
                const xcorr_options& options);
    ~pair_reader();
    pair_reader(const pair_reader&) = delete;
    pair_reader& operator=(const pair_reader&) = delete;

    //! Waits until the pair is prepared; throws prepare_pair()'s error.
    const prepared_pair& wait_setup();

    struct read_stats {
        double setup_s = 0.0; //!< prepare_pair() on the reader thread
        double read_s = 0.0;  //!< the read-ahead after it
        std::size_t read_bytes = 0;
    };
    //! Waits until the read-ahead has finished (or the setup failed); its times.
    read_stats finish();

private:
    void run();

    const xcorr_options d_options;
    const std::string d_master_prm, d_aligned_prm;
    std::promise<void> d_setup_done;
    std::shared_future<void> d_setup;
    std::unique_ptr<prepared_pair> d_pair;
    read_stats d_stats;
    std::thread d_thread; //!< last: started once everything it uses exists
};

} // namespace xcorr
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_XCORR_PAIR_READER_H */
