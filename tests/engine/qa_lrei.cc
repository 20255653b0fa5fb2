/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_lrei: the LREI operator (line order, random source, extraction and insertion)
// and the distribution of its moves, against the paper's definitions.

#include "qa_lrei.h"
#include "tbd/lrei.h"
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

// The paper's extraction and insertion, done literally: take the run out, then put it
// back so that its first line sits at position + offset of the child.
std::vector<std::size_t> extract_and_insert(const std::vector<std::size_t>& order,
                                            std::size_t position,
                                            std::size_t length,
                                            int offset)
{
    std::vector<std::size_t> rest, run;
    for (std::size_t i = 0; i < order.size(); ++i)
        (i >= position && i < position + length ? run : rest).push_back(order[i]);
    const long target = long(position) + offset;
    rest.insert(rest.begin() + target, run.begin(), run.end());
    return rest;
}

double offset_weight(int d) { return d == 0 ? 0.0 : (6.0 - std::abs(d)) / 30.0; }

// sum (O - E)^2 / E over the cells; a count in a cell of probability 0 is infinitely
// unlikely.
double chi_square(const std::vector<double>& observed,
                  const std::vector<double>& probability,
                  double draws)
{
    double chi2 = 0.0;
    for (std::size_t i = 0; i < observed.size(); ++i) {
        const double e = probability[i] * draws;
        if (e <= 0.0) {
            if (observed[i] > 0.0)
                return std::numeric_limits<double>::infinity();
            continue;
        }
        chi2 += (observed[i] - e) * (observed[i] - e) / e;
    }
    return chi2;
}

// Upper quantile of chi-square with df degrees of freedom at z standard deviations
// (Wilson-Hilferty). z = 4.75 is a tail of about 1e-6: with a fixed seed a correct
// sampler is far inside it, and a wrong distribution at these sample sizes lands orders
// of magnitude beyond it (checked in each test).
double chi_square_threshold(double df, double z = 4.75)
{
    const double a = 2.0 / (9.0 * df);
    const double c = 1.0 - a + z * std::sqrt(a);
    return df * c * c * c;
}

} // namespace

void qa_lrei::sorted_order_hand_example()
{
    // (small_offset_y, small_offset_x, plane) per line index.
    const std::vector<lrei_line_key> keys = {
        { 0.5f, -1.0f, 2 },   // 0
        { -0.55f, -1.9f, 4 }, // 1
        { 0.5f, -1.0f, 1 },   // 2
        { -0.55f, 0.3f, 0 },  // 3
        { 0.0f, 0.0f, 3 },    // 4
        { -0.55f, -1.9f, 4 }, // 5: equal to 1, stays after it
        { 0.5f, -2.0f, 7 },   // 6
        { -1.25f, 2.0f, 0 },  // 7
    };
    // y = -1.25: 7; y = -0.55: x = -1.9 (1, 5), x = 0.3 (3); y = 0: 4;
    // y = 0.5: x = -2 (6), x = -1 (plane 1: 2, plane 2: 0).
    const std::vector<std::size_t> expected = { 7, 1, 5, 3, 4, 6, 2, 0 };
    CPPUNIT_ASSERT(lrei_sorted_order(keys) == expected);
    CPPUNIT_ASSERT(lrei_sorted_order({}).empty());

    std::vector<lrei_line_key> bad = keys;
    bad[3].small_offset_x = std::numeric_limits<float>::quiet_NaN();
    try {
        lrei_sorted_order(bad);
        CPPUNIT_FAIL("NaN offset accepted");
    } catch (const std::invalid_argument& e) {
        CPPUNIT_ASSERT(std::string(e.what()).find("keys[3].small_offset_x") !=
                       std::string::npos);
    }
}

void qa_lrei::sorted_order_random_keys()
{
    // Offsets on a coarse grid so that ties in y, in x and in everything occur.
    qa::gaussian_source rng(11);
    for (int trial = 0; trial < 50; ++trial) {
        const std::size_t n = static_cast<std::size_t>(rng.integer(1, 120));
        std::vector<lrei_line_key> keys(n);
        for (auto& k : keys) {
            k.small_offset_y = 0.25f * float(rng.integer(-4, 4));
            k.small_offset_x = 0.25f * float(rng.integer(-4, 4));
            k.plane = int(rng.integer(0, 5));
        }
        // Selection sort by the tuple (y, x, plane, index): an independent route
        // to the same stable order.
        std::vector<std::tuple<float, float, int, std::size_t>> rows;
        for (std::size_t i = 0; i < n; ++i)
            rows.emplace_back(
                keys[i].small_offset_y, keys[i].small_offset_x, keys[i].plane, i);
        std::vector<std::size_t> expected;
        std::vector<bool> used(n, false);
        for (std::size_t k = 0; k < n; ++k) {
            std::size_t best = n;
            for (std::size_t i = 0; i < n; ++i)
                if (!used[i] && (best == n || rows[i] < rows[best]))
                    best = i;
            used[best] = true;
            expected.push_back(best);
        }
        CPPUNIT_ASSERT(lrei_sorted_order(keys) == expected);
    }
}

void qa_lrei::rng_is_splitmix64()
{
    // Published splitmix64 outputs for seed 0: the sequence every platform must give.
    lrei_rng rng(0);
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(0xe220a8397b1dcdafull), rng.next());
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(0x6e789e6aa1b965f4ull), rng.next());
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(0x06c45d188009454full), rng.next());
    CPPUNIT_ASSERT_THROW(rng.below(0), std::invalid_argument);
    for (int i = 0; i < 1000; ++i)
        CPPUNIT_ASSERT(rng.below(7) < 7);
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), rng.below(1));
    // k = 3 * 2^62: a plain "next() % k" puts half the draws below 2^62 instead of
    // a third, a bias the small k of the moves hide (2^-60) but the rule must not
    // have.
    const std::uint64_t k = 3ull << 62;
    int low = 0;
    const int draws = 30000;
    for (int i = 0; i < draws; ++i) {
        const std::uint64_t v = rng.below(k);
        CPPUNIT_ASSERT(v < k);
        low += v < (1ull << 62);
    }
    CPPUNIT_ASSERT_DOUBLES_EQUAL(1.0 / 3.0, double(low) / draws, 0.02);
}

void qa_lrei::children_are_permutations()
{
    qa::gaussian_source parents(5);
    lrei_rng rng(6);
    for (int i = 0; i < 100000; ++i) {
        // Mostly small orders, where the ends matter most, some large.
        const std::size_t n = static_cast<std::size_t>(
            i % 4 == 0 ? parents.integer(2, 300) : parents.integer(2, 16));
        const std::vector<std::size_t> parent = random_permutation(n, parents);
        const lrei_move m = lrei_draw_move(n, rng);
        CPPUNIT_ASSERT(m.length >= 1 && m.length <= 5);
        CPPUNIT_ASSERT(m.offset != 0 && m.offset >= -5 && m.offset <= 5);
        CPPUNIT_ASSERT(m.position + m.length <= n);
        CPPUNIT_ASSERT(long(m.position) + m.offset >= 0);
        CPPUNIT_ASSERT(m.position + m.length + std::size_t(std::max(m.offset, 0)) <= n);
        const std::vector<std::size_t> child = lrei_apply(parent, m);
        if (!is_permutation_reference(child)) {
            std::ostringstream msg;
            msg << "child " << i << " (n " << n << ", position " << m.position
                << ", length " << m.length << ", offset " << m.offset
                << ") is not a permutation";
            CPPUNIT_FAIL(msg.str());
        }
        CPPUNIT_ASSERT(child ==
                       extract_and_insert(parent, m.position, m.length, m.offset));
        CPPUNIT_ASSERT(child != parent); // never clamped to a no-op
    }
}

void qa_lrei::apply_rejects_moves_that_do_not_fit()
{
    const std::vector<std::size_t> order = { 0, 1, 2, 3, 4, 5 };
    CPPUNIT_ASSERT_THROW(lrei_apply(order, { 0, 1, 0 }), std::invalid_argument);
    CPPUNIT_ASSERT_THROW(lrei_apply(order, { 0, 0, 1 }), std::invalid_argument);
    CPPUNIT_ASSERT_THROW(lrei_apply(order, { 4, 3, 1 }), std::invalid_argument);
    CPPUNIT_ASSERT_THROW(lrei_apply(order, { 1, 2, -2 }), std::invalid_argument);
    CPPUNIT_ASSERT_THROW(lrei_apply(order, { 2, 2, 3 }), std::invalid_argument);
    CPPUNIT_ASSERT_THROW(lrei_draw_move(1, *std::make_unique<lrei_rng>(1)),
                         std::invalid_argument);
    // The extremes that do fit, and what they give.
    CPPUNIT_ASSERT(
        (lrei_apply(order, { 2, 2, 2 }) == std::vector<std::size_t>{ 0, 1, 4, 5, 2, 3 }));
    CPPUNIT_ASSERT((lrei_apply(order, { 1, 3, -1 }) ==
                    std::vector<std::size_t>{ 1, 2, 3, 0, 4, 5 }));
    CPPUNIT_ASSERT((lrei_apply(order, { 5, 1, -5 }) ==
                    std::vector<std::size_t>{ 5, 0, 1, 2, 3, 4 }));
}

void qa_lrei::move_distribution_large_n()
{
    // n >= 10: L and d must have exactly their stated marginals, independent, and p
    // the mixture over (L, d) of uniforms on [max(0, -d), n - L - max(0, d)].
    const std::size_t n = 40;
    const double draws = 200000;
    lrei_rng rng(2012);
    std::vector<double> len(5, 0.0), off(10, 0.0), pos(n, 0.0), joint(50, 0.0);
    const auto off_index = [](int d) { return std::size_t(d < 0 ? d + 5 : d + 4); };
    for (int i = 0; i < int(draws); ++i) {
        const lrei_move m = lrei_draw_move(n, rng);
        len[m.length - 1] += 1;
        off[off_index(m.offset)] += 1;
        pos[m.position] += 1;
        joint[(m.length - 1) * 10 + off_index(m.offset)] += 1;
    }
    std::vector<double> p_len(5, 0.2), p_off(10), p_pos(n, 0.0), p_joint(50);
    for (int d = -5; d <= 5; ++d) {
        if (d == 0)
            continue;
        p_off[off_index(d)] = offset_weight(d);
        for (std::size_t L = 1; L <= 5; ++L) {
            const double p_ld = 0.2 * offset_weight(d);
            p_joint[(L - 1) * 10 + off_index(d)] = p_ld;
            const long lo = std::max(0, -d);
            const long hi = long(n) - long(L) - std::max(0, d);
            for (long p = lo; p <= hi; ++p)
                p_pos[std::size_t(p)] += p_ld / double(hi - lo + 1);
        }
    }
    const double c_len = chi_square(len, p_len, draws);
    const double c_off = chi_square(off, p_off, draws);
    const double c_pos = chi_square(pos, p_pos, draws);
    const double c_joint = chi_square(joint, p_joint, draws);
    std::ostringstream msg;
    msg << "chi2 length " << c_len << " (limit " << chi_square_threshold(4)
        << "), offset " << c_off << " (" << chi_square_threshold(9) << "), position "
        << c_pos << " (" << chi_square_threshold(double(n) - 1) << "), joint " << c_joint
        << " (" << chi_square_threshold(49) << ")";
    CPPUNIT_ASSERT_MESSAGE(msg.str(), c_len < chi_square_threshold(4));
    CPPUNIT_ASSERT_MESSAGE(msg.str(), c_off < chi_square_threshold(9));
    CPPUNIT_ASSERT_MESSAGE(msg.str(), c_pos < chi_square_threshold(double(n) - 1));
    CPPUNIT_ASSERT_MESSAGE(msg.str(), c_joint < chi_square_threshold(49));

    // The test has power: plausible wrong definitions are rejected by far.
    const std::vector<double> uniform_offsets(10, 0.1);
    const std::vector<double> uniform_positions(n, 1.0 / double(n));
    std::vector<double> linear_offsets(10); // P(d) proportional to |d|, inverted slope
    for (int d = -5; d <= 5; ++d)
        if (d != 0)
            linear_offsets[off_index(d)] = std::abs(d) / 30.0;
    std::vector<double> short_runs(5); // a triangular length instead of uniform
    for (int L = 1; L <= 5; ++L)
        short_runs[std::size_t(L - 1)] = (6.0 - L) / 15.0;
    CPPUNIT_ASSERT(chi_square(off, uniform_offsets, draws) >
                   100 * chi_square_threshold(9));
    CPPUNIT_ASSERT(chi_square(off, linear_offsets, draws) >
                   100 * chi_square_threshold(9));
    CPPUNIT_ASSERT(chi_square(len, short_runs, draws) > 100 * chi_square_threshold(4));
    CPPUNIT_ASSERT(chi_square(pos, uniform_positions, draws) >
                   10 * chi_square_threshold(double(n) - 1));
}

void qa_lrei::move_distribution_small_n_joint()
{
    // Every (L, d, p) cell against P(L) P(d) / Z * 1 / (number of positions), where
    // Z renormalizes over the pairs with L + |d| <= n (the redraw rule).
    for (const std::size_t n : { std::size_t(2), std::size_t(4), std::size_t(12) }) {
        std::map<std::tuple<std::size_t, int, std::size_t>, std::size_t> cell;
        std::vector<double> prob;
        double z = 0.0;
        for (std::size_t L = 1; L <= 5; ++L)
            for (int d = -5; d <= 5; ++d)
                if (d != 0 && L + std::size_t(std::abs(d)) <= n)
                    z += 0.2 * offset_weight(d);
        for (std::size_t L = 1; L <= 5; ++L)
            for (int d = -5; d <= 5; ++d) {
                if (d == 0 || L + std::size_t(std::abs(d)) > n)
                    continue;
                const std::size_t lo = std::size_t(std::max(0, -d));
                const std::size_t hi = n - L - std::size_t(std::max(0, d));
                for (std::size_t p = lo; p <= hi; ++p) {
                    cell[{ L, d, p }] = prob.size();
                    prob.push_back(0.2 * offset_weight(d) / z / double(hi - lo + 1));
                }
            }
        const double draws = 300000;
        std::vector<double> observed(prob.size(), 0.0);
        lrei_rng rng(77 + n);
        for (int i = 0; i < int(draws); ++i) {
            const lrei_move m = lrei_draw_move(n, rng);
            const auto it = cell.find({ m.length, m.offset, m.position });
            CPPUNIT_ASSERT_MESSAGE("move outside the allowed cells", it != cell.end());
            observed[it->second] += 1;
        }
        const double df = double(prob.size()) - 1;
        const double c = chi_square(observed, prob, draws);
        std::ostringstream msg;
        msg << "n " << n << ": chi2 " << c << " over " << prob.size() << " cells, limit "
            << chi_square_threshold(df);
        CPPUNIT_ASSERT_MESSAGE(msg.str(), c < chi_square_threshold(df));

        // Power: the same cells with uniform offsets among the allowed pairs.
        if (n > 2) {
            std::vector<double> wrong(prob.size());
            double zu = 0.0;
            for (std::size_t L = 1; L <= 5; ++L)
                for (int d = -5; d <= 5; ++d)
                    if (d != 0 && L + std::size_t(std::abs(d)) <= n)
                        zu += 1.0;
            for (const auto& [k, idx] : cell) {
                const auto [L, d, p] = k;
                (void)p;
                const std::size_t span = n - L - std::size_t(std::max(0, d)) -
                                         std::size_t(std::max(0, -d)) + 1;
                wrong[idx] = 1.0 / zu / double(span);
            }
            CPPUNIT_ASSERT(chi_square(observed, wrong, draws) >
                           10 * chi_square_threshold(df));
        }
    }
}

CPPUNIT_TEST_SUITE_REGISTRATION(qa_lrei);

} // namespace core
} // namespace cudadsp
} // namespace gr
