/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_patch_correlator: bad configurations rejected with the field named.

#include "qa_patch_correlator.h"
#include <stdexcept>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

void qa_patch_correlator::config_validation()
{
    auto bad = [](patch_correlator_config c, const std::string& field) {
        try {
            c.validate();
        } catch (const std::invalid_argument& e) {
            CPPUNIT_ASSERT_MESSAGE(e.what(), std::string(e.what()).find(field) == 0);
            return;
        }
        CPPUNIT_FAIL("no exception for " + field);
    };
    patch_correlator_config c;
    c.validate();
    for (int v : { 0, 4, 12, 2048, -8 }) {
        auto x = c;
        x.xsearch = v;
        bad(x, "xsearch");
        auto y = c;
        y.ysearch = v;
        bad(y, "ysearch");
    }
    for (int v : { 0, 3, 32 }) {
        auto x = c;
        x.range_interp = v;
        bad(x, "range_interp");
    }
    for (int v : { 0, 3, 128 }) {
        auto x = c;
        x.interp = v;
        bad(x, "interp");
    }
    auto x = c;
    x.batch_patches = std::size_t(1) << 20;
    bad(x, "batch_patches");
    x = c;
    x.device = "gpu";
    CPPUNIT_ASSERT_THROW(patch_correlator::make(x), std::invalid_argument);
    x = c;
    x.xsearch = 8;
    x.ysearch = 1024;
    x.range_interp = 16;
    x.interp = 64;
    x.validate();
}

} // namespace core
} // namespace cudadsp
} // namespace gr
