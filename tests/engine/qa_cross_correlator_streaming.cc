/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_cross_correlator: frames over calls. nframes 0, 1 and many; the frames of one
// call split over several calls give the same bits.

#include "qa_cross_correlator.h"
#include <algorithm>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

//! nframes 0 (nothing written), 1 and many; the frames of one call split over
//! several calls give the same bits.
void qa_cross_correlator::frames_and_calls(const std::string& device)
{
    const std::size_t N = 100;
    const auto f = mixed_frames(N, 300, 40, 99);
    const auto c = make_config(device, N, 4, 50);
    auto engine = cross_correlator::make(c);
    std::vector<peak_t> peaks(3, poison_peak());
    std::vector<cfloat> spectrum(c.transform_len(), poison_complex());
    std::vector<cfloat> correlation(c.correlation_len(), poison_complex());
    engine->process(
        f.x.data(), f.y.data(), 0, peaks.data(), spectrum.data(), correlation.data());
    for (const peak_t& p : peaks)
        CPPUNIT_ASSERT(poisoned(p.lag) && poisoned(p.magnitude) && poisoned(p.phase));
    for (const cfloat& s : spectrum)
        CPPUNIT_ASSERT(poisoned(s.real()) && poisoned(s.imag()));
    for (const cfloat& s : correlation)
        CPPUNIT_ASSERT(poisoned(s.real()) && poisoned(s.imag()));

    const auto whole = run(*engine, f.x.data(), f.y.data(), f.nframes(), true, true);
    check_result(reference_frames(f), f, whole, c, describe(c, " 300 frames"));
    // One frame at a time for the first 10, then 7, then the rest.
    result split;
    split.peaks.assign(f.nframes(), poison_peak());
    split.spectrum.assign(f.nframes() * c.transform_len(), poison_complex());
    split.correlation.assign(f.nframes() * c.correlation_len(), poison_complex());
    std::vector<std::size_t> sizes(10, 1);
    sizes.push_back(7);
    sizes.push_back(f.nframes() - 17);
    std::size_t at = 0;
    for (std::size_t n : sizes) {
        engine->process(f.x.data() + at * N,
                        f.y.data() + at * N,
                        n,
                        split.peaks.data() + at,
                        split.spectrum.data() + at * c.transform_len(),
                        split.correlation.data() + at * c.correlation_len());
        at += n;
    }
    assert_identical(whole, split, describe(c, " split calls"));
    // A fresh engine on one frame.
    const auto one = run(c, [&] {
        frame_data last(N);
        last.add_frame();
        std::copy(f.x.end() - N, f.x.end(), last.x.begin());
        std::copy(f.y.end() - N, f.y.end(), last.y.begin());
        return last;
    }());
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), one.peaks.size());
    CPPUNIT_ASSERT_EQUAL(bits_of(whole.peaks.back().lag), bits_of(one.peaks[0].lag));
    CPPUNIT_ASSERT_EQUAL(bits_of(whole.peaks.back().magnitude),
                         bits_of(one.peaks[0].magnitude));
    CPPUNIT_ASSERT_EQUAL(bits_of(whole.peaks.back().phase), bits_of(one.peaks[0].phase));
}

} // namespace core
} // namespace cudadsp
} // namespace gr
