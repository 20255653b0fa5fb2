/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_xcorr_tool: PRM files as GMTSAR reads them (its quirks and our deviations), and the
// keys a run needs with their rules.

#include "qa_xcorr_tool.h"
#include "xcorr/pair_setup.h"
#include "xcorr/prm_file.h"
#include <cstdint>
#include <string>

namespace gr {
namespace cudadsp {
namespace xcorr {

namespace {

using xcorr_tool_qa::contains;
using xcorr_tool_qa::prm_text;

} // namespace

void qa_xcorr_tool::prm_parsing()
{
    const prm_file p = prm_file::parse("SLC_file = IMG-HH-ALPSRP.SLC\n"
                                       "num_rng_bins    =   11304\n"
                                       "PRF = 2159.827213\n"
                                       "rshift = -27\n"
                                       "ashift = +38\n"
                                       "earth_radius = 6371776.4060 extra tokens\n",
                                       "m.PRM");
    CPPUNIT_ASSERT_EQUAL(std::string("IMG-HH-ALPSRP.SLC"), p.get_string("SLC_file"));
    CPPUNIT_ASSERT_EQUAL(11304, p.get_int("num_rng_bins"));
    CPPUNIT_ASSERT_EQUAL(-27, p.get_int("rshift"));
    CPPUNIT_ASSERT_EQUAL(38, p.get_int("ashift"));
    CPPUNIT_ASSERT_DOUBLES_EQUAL(2159.827213, p.get_double("PRF"), 0.0);
    CPPUNIT_ASSERT_DOUBLES_EQUAL(6371776.4060, p.get_double("earth_radius"), 0.0);

    // Errors name the file, the key and the text.
    auto message = [](const prm_file& f, const std::string& key, bool as_int) {
        try {
            if (as_int)
                f.get_int(key);
            else
                f.get_double(key);
        } catch (const input_error& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    const prm_file bad = prm_file::parse("num_valid_az = 12.7\n"
                                         "num_patches = abc\n"
                                         "PRF = 1e400\n"
                                         "SC_clock_start = nan\n"
                                         "rshift = 99999999999\n"
                                         "ashift = 3x\n"
                                         "x = -\n",
                                         "a.PRM");
    CPPUNIT_ASSERT_EQUAL(
        std::string("a.PRM: key 'num_valid_az' = '12.7' is not an integer"),
        message(bad, "num_valid_az", true));
    CPPUNIT_ASSERT(
        contains(message(bad, "num_patches", true), "'abc' is not an integer"));
    CPPUNIT_ASSERT(contains(message(bad, "ashift", true), "'3x' is not an integer"));
    CPPUNIT_ASSERT(contains(message(bad, "x", true), "'-' is not an integer"));
    CPPUNIT_ASSERT(contains(message(bad, "rshift", true), "out of range"));
    CPPUNIT_ASSERT(
        contains(message(bad, "PRF", false), "'1e400' is not a finite number"));
    CPPUNIT_ASSERT(
        contains(message(bad, "SC_clock_start", false), "not a finite number"));
    CPPUNIT_ASSERT_EQUAL(std::string("a.PRM: key 'SLC_file' is missing"),
                         message(bad, "SLC_file", true));
}

void qa_xcorr_tool::prm_quirks()
{
    // Reproduced from GMTSAR: the second token is not checked, the third is the
    // value, a later line replaces an earlier one, xshift/yshift are rshift/ashift,
    // CR LF line ends, tabs.
    const prm_file p = prm_file::parse("num_rng_bins : 100\r\n"
                                       "rshift = 5\n"
                                       "xshift = 7\n"
                                       "yshift = -2\n"
                                       "\tnum_patches\t=\t3\t\n"
                                       "num_rng_bins = 200\n",
                                       "q.PRM");
    CPPUNIT_ASSERT_EQUAL(200, p.get_int("num_rng_bins"));
    CPPUNIT_ASSERT_EQUAL(7, p.get_int("rshift"));
    CPPUNIT_ASSERT_EQUAL(-2, p.get_int("ashift"));
    CPPUNIT_ASSERT_EQUAL(3, p.get_int("num_patches"));
    CPPUNIT_ASSERT(!p.has("xshift"));

    // Deviations: a blank line does not reset the previous key (GMTSAR sets it to
    // 0); "key = " and "key value" give an empty value, an error when the key is
    // used (GMTSAR: 0); "key=value" is one token, i.e. no such key (as GMTSAR).
    const prm_file d = prm_file::parse("ashift = 12\n"
                                       "\n"
                                       "   \n"
                                       "rshift =\n"
                                       "num_patches 4\n"
                                       "num_valid_az=9216\n",
                                       "d.PRM");
    CPPUNIT_ASSERT_EQUAL(12, d.get_int("ashift"));
    for (const std::string key : { "rshift", "num_patches" }) {
        try {
            d.get_int(key);
            CPPUNIT_FAIL("an empty value was accepted");
        } catch (const input_error& e) {
            CPPUNIT_ASSERT_EQUAL("d.PRM: key '" + key +
                                     "' has no value (expected a 'key = value' line)",
                                 std::string(e.what()));
        }
    }
    CPPUNIT_ASSERT(!d.has("num_valid_az"));
    CPPUNIT_ASSERT(d.has("num_valid_az=9216"));

    // Files: a missing one is named.
    try {
        prm_file::read("/nonexistent/dir/x.PRM");
        CPPUNIT_FAIL("a missing PRM file was accepted");
    } catch (const input_error& e) {
        CPPUNIT_ASSERT_EQUAL(std::string("PRM file '/nonexistent/dir/x.PRM': cannot "
                                         "open: No such file or directory"),
                             std::string(e.what()));
    }
}

void qa_xcorr_tool::prm_keys_rules()
{
    const std::string text = prm_text("s.SLC", 11304, 9216, 2159.8, 3, -4);
    prm_read_options o;
    const prm_keys k = read_prm_keys(prm_file::parse(text, "m.PRM"), o);
    CPPUNIT_ASSERT_EQUAL(std::string("s.SLC"), k.slc_file);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(11304), k.width);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(9216), k.height);
    CPPUNIT_ASSERT(k.has_prf);
    CPPUNIT_ASSERT_EQUAL(0, k.rshift); // read only for the aligned file
    o.read_shifts = true;
    const prm_keys a = read_prm_keys(prm_file::parse(text, "a.PRM"), o);
    CPPUNIT_ASSERT_EQUAL(3, a.rshift);
    CPPUNIT_ASSERT_EQUAL(-4, a.ashift);

    // height = num_patches * num_valid_az
    const prm_keys h =
        read_prm_keys(prm_file::parse("SLC_file = x\nnum_rng_bins = 10\nnum_patches = 3\n"
                                      "num_valid_az = 2800\nPRF = 1000\n",
                                      "h.PRM"),
                      prm_read_options());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(8400), h.height);

    auto error_of = [](const std::string& t, const prm_read_options& ro) {
        try {
            read_prm_keys(prm_file::parse(t, "e.PRM"), ro);
        } catch (const input_error& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    const prm_read_options plain;
    CPPUNIT_ASSERT_EQUAL(std::string("e.PRM: key 'SLC_file' is missing"),
                         error_of("num_rng_bins = 10\n", plain));
    CPPUNIT_ASSERT_EQUAL(std::string("e.PRM: key 'num_rng_bins' is missing"),
                         error_of("SLC_file = x\n", plain));
    CPPUNIT_ASSERT_EQUAL(
        std::string("e.PRM: key 'num_valid_az' is missing"),
        error_of("SLC_file = x\nnum_rng_bins = 10\nnum_patches = 1\n", plain));
    CPPUNIT_ASSERT_EQUAL(std::string("e.PRM: key 'PRF' is missing"),
                         error_of("SLC_file = x\nnum_rng_bins = 10\nnum_patches = 1\n"
                                  "num_valid_az = 10\n",
                                  plain));
    CPPUNIT_ASSERT_EQUAL(std::string("e.PRM: key 'num_rng_bins' = 0 must be positive"),
                         error_of("SLC_file = x\nnum_rng_bins = 0\nnum_patches = 1\n"
                                  "num_valid_az = 10\nPRF = 1\n",
                                  plain));
    CPPUNIT_ASSERT_EQUAL(std::string("e.PRM: key 'PRF' = '-99999.9999' must be positive"),
                         error_of("SLC_file = x\nnum_rng_bins = 5\nnum_patches = 1\n"
                                  "num_valid_az = 10\nPRF = -99999.9999\n",
                                  plain));
    prm_read_options shifts;
    shifts.read_shifts = true;
    CPPUNIT_ASSERT_EQUAL(std::string("e.PRM: key 'ashift' is missing"),
                         error_of("SLC_file = x\nnum_rng_bins = 5\nnum_patches = 1\n"
                                  "num_valid_az = 10\nPRF = 1\nrshift = 2\n",
                                  shifts));

    // -cfloat32: the size keys and PRF are optional; present size keys must agree.
    prm_read_options cf;
    cf.require_size = false;
    cf.require_prf = false;
    cf.given_width = 512;
    cf.given_height = 256;
    const prm_keys c = read_prm_keys(prm_file::parse("SLC_file = img1\n", "c.PRM"), cf);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(512), c.width);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(256), c.height);
    CPPUNIT_ASSERT(!c.has_prf);
    CPPUNIT_ASSERT(contains(error_of("SLC_file = x\nnum_rng_bins = 500\nnum_patches = 1\n"
                                     "num_valid_az = 256\n",
                                     cf),
                            "500 x 256 disagrees with -cfloat32 512 256"));
}

} // namespace xcorr
} // namespace cudadsp
} // namespace gr
