/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_lrei: the LREI search (optimum, bounds on iterations and time,
// reproducibility, bad input) on cost functions of known optimum.

#include "qa_lrei.h"
#include "tbd/lrei.h"
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <thread>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

std::size_t inversions(const std::vector<std::size_t>& v)
{
    std::size_t count = 0;
    for (std::size_t i = 0; i < v.size(); ++i)
        for (std::size_t j = i + 1; j < v.size(); ++j)
            count += v[i] > v[j];
    return count;
}

} // namespace

void qa_lrei::search_reaches_known_optimum()
{
    // Time = 1 ms + 1 us per inversion: the identity is the unique optimum, and a
    // single adjacent swap (L = 1, d = +-1) removes an inversion whenever one is
    // left, so a long enough hill climb must end there.
    const std::size_t n = 16;
    std::vector<std::size_t> start(n);
    for (std::size_t i = 0; i < n; ++i)
        start[i] = n - 1 - i;
    const auto metric = [](const std::vector<std::size_t>& v) {
        return 1.0 + 1e-3 * double(inversions(v));
    };
    lrei_budget budget;
    budget.max_iterations = 20000;
    budget.max_seconds = 600.0;
    double last_best = std::numeric_limits<double>::infinity();
    bool monotone = true;
    const lrei_result r = lrei_search(
        start,
        metric,
        budget,
        [&](const lrei_progress& p) {
            monotone = monotone && p.best_ms <= last_best;
            last_best = p.best_ms;
        },
        3);
    CPPUNIT_ASSERT(monotone);
    CPPUNIT_ASSERT_DOUBLES_EQUAL(1.0 + 1e-3 * 120, r.start_ms, 1e-12);
    CPPUNIT_ASSERT(is_permutation_reference(r.order));
    CPPUNIT_ASSERT_DOUBLES_EQUAL(metric(r.order), r.best_ms, 0.0);
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), inversions(r.order));
    CPPUNIT_ASSERT(r.accepted > 0);
    CPPUNIT_ASSERT_EQUAL(budget.max_iterations, r.iterations);
    CPPUNIT_ASSERT(!r.stopped_by_time);
}

void qa_lrei::search_never_worse_than_start()
{
    // The start is the optimum: nothing may replace it.
    const std::size_t n = 30;
    std::vector<std::size_t> start(n);
    for (std::size_t i = 0; i < n; ++i)
        start[i] = i;
    lrei_budget budget;
    budget.max_iterations = 2000;
    const lrei_result r = lrei_search(
        start,
        [](const std::vector<std::size_t>& v) { return 2.0 + double(inversions(v)); },
        budget);
    CPPUNIT_ASSERT(r.order == start);
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), r.accepted);
    CPPUNIT_ASSERT_EQUAL(2.0, r.best_ms);
    CPPUNIT_ASSERT_EQUAL(2.0, r.start_ms);

    // A noisy metric whose every child is measured slower or equal: still the start.
    qa::gaussian_source noise(9);
    const lrei_result r2 = lrei_search(
        start,
        [&](const std::vector<std::size_t>& v) {
            return v == start ? 1.0 : 1.0 + (noise.uniform() < 0.5 ? 0.0 : 0.3);
        },
        budget);
    CPPUNIT_ASSERT(r2.order == start);
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), r2.accepted);

    // Children whose measurement failed (NaN, inf, negative) are never kept.
    const lrei_result r3 = lrei_search(
        start,
        [&](const std::vector<std::size_t>& v) {
            if (v == start)
                return 1.0;
            const double bad[] = { std::numeric_limits<double>::quiet_NaN(),
                                   -std::numeric_limits<double>::infinity(),
                                   -1.0 };
            return bad[inversions(v) % 3];
        },
        budget);
    CPPUNIT_ASSERT(r3.order == start);
    CPPUNIT_ASSERT_EQUAL(1.0, r3.best_ms);
}

void qa_lrei::search_iteration_bound_and_progress()
{
    qa::gaussian_source rng(4);
    const std::vector<std::size_t> start = random_permutation(25, rng);
    std::size_t calls = 0;
    std::vector<lrei_progress> reports;
    lrei_budget budget;
    budget.max_iterations = 100;
    const lrei_result r = lrei_search(
        start,
        [&](const std::vector<std::size_t>& v) {
            ++calls;
            return 5.0 + double(inversions(v));
        },
        budget,
        [&](const lrei_progress& p) { reports.push_back(p); },
        8);
    CPPUNIT_ASSERT_EQUAL(std::size_t(100), r.iterations);
    CPPUNIT_ASSERT_EQUAL(std::size_t(101), calls); // the start, then each child
    // A fast metric: only the tenths of the budget report, plus start and end.
    std::vector<std::size_t> iterations;
    for (const auto& p : reports)
        iterations.push_back(p.iteration);
    const std::vector<std::size_t> expected = {
        0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100
    };
    CPPUNIT_ASSERT(iterations == expected);
    for (std::size_t i = 0; i < reports.size(); ++i) {
        CPPUNIT_ASSERT_EQUAL(i + 1 == reports.size(), reports[i].finished);
        CPPUNIT_ASSERT_EQUAL(std::size_t(100), reports[i].max_iterations);
        CPPUNIT_ASSERT_EQUAL(r.start_ms, reports[i].start_ms);
        CPPUNIT_ASSERT(reports[i].elapsed_s >= 0.0);
        if (i > 0) {
            CPPUNIT_ASSERT(reports[i].best_ms <= reports[i - 1].best_ms);
            CPPUNIT_ASSERT(reports[i].accepted >= reports[i - 1].accepted);
            CPPUNIT_ASSERT(reports[i].elapsed_s >= reports[i - 1].elapsed_s);
        }
    }
    CPPUNIT_ASSERT_EQUAL(r.best_ms, reports.back().best_ms);
    CPPUNIT_ASSERT_EQUAL(r.accepted, reports.back().accepted);
    CPPUNIT_ASSERT_DOUBLES_EQUAL(5.0 + double(inversions(r.order)), r.best_ms, 0.0);
    CPPUNIT_ASSERT(r.best_ms < r.start_ms);
}

void qa_lrei::search_time_bound()
{
    qa::gaussian_source rng(12);
    const std::vector<std::size_t> start = random_permutation(20, rng);
    const double sleep_s = 0.01;
    std::size_t calls = 0;
    std::size_t reports = 0;
    lrei_budget budget;
    budget.max_iterations = 1000000;
    budget.max_seconds = 0.25;
    budget.progress_interval_s = 0.05;
    const auto t0 = std::chrono::steady_clock::now();
    const lrei_result r = lrei_search(
        start,
        [&](const std::vector<std::size_t>& v) {
            ++calls;
            std::this_thread::sleep_for(std::chrono::duration<double>(sleep_s));
            return double(inversions(v));
        },
        budget,
        [&](const lrei_progress&) { ++reports; });
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CPPUNIT_ASSERT(r.stopped_by_time);
    CPPUNIT_ASSERT(r.iterations >= 1);
    CPPUNIT_ASSERT(r.iterations < 25); // sleeps alone allow at most 0.25 / 0.01
    CPPUNIT_ASSERT_EQUAL(r.iterations + 1, calls);
    CPPUNIT_ASSERT(r.elapsed_s >= budget.max_seconds);
    // Overrun of at most one evaluation, with slack for a loaded test machine.
    CPPUNIT_ASSERT_MESSAGE("wall " + std::to_string(wall), wall < 0.25 + sleep_s + 0.5);
    // The interval reports: several between the first and the last.
    CPPUNIT_ASSERT_MESSAGE("reports " + std::to_string(reports), reports >= 4);
}

void qa_lrei::search_is_reproducible()
{
    qa::gaussian_source rng(21);
    const std::vector<std::size_t> start = random_permutation(40, rng);
    const auto run = [&](std::uint64_t seed) {
        std::vector<std::vector<std::size_t>> seen;
        lrei_budget budget;
        budget.max_iterations = 300;
        const lrei_result r = lrei_search(
            start,
            [&](const std::vector<std::size_t>& v) {
                seen.push_back(v);
                // Weighted displacement, optimum at the identity.
                double cost = 1.0;
                for (std::size_t i = 0; i < v.size(); ++i)
                    cost += 1e-3 * double(i + 1) * std::abs(double(v[i]) - double(i));
                return cost;
            },
            budget,
            {},
            seed);
        return std::make_pair(r, seen);
    };
    const auto a = run(99), b = run(99), c = run(100);
    CPPUNIT_ASSERT(a.first.order == b.first.order);
    CPPUNIT_ASSERT_EQUAL(a.first.best_ms, b.first.best_ms);
    CPPUNIT_ASSERT_EQUAL(a.first.accepted, b.first.accepted);
    CPPUNIT_ASSERT(a.second == b.second);
    CPPUNIT_ASSERT(a.second != c.second);
    CPPUNIT_ASSERT(a.first.best_ms < a.first.start_ms);
}

void qa_lrei::search_trivial_and_bad_input()
{
    lrei_budget budget;
    for (std::size_t n = 0; n < 2; ++n) {
        std::vector<std::size_t> start(n, 0);
        std::size_t calls = 0, reports = 0;
        const lrei_result r = lrei_search(
            start,
            [&](const std::vector<std::size_t>&) {
                ++calls;
                return 0.5;
            },
            budget,
            [&](const lrei_progress&) { ++reports; });
        CPPUNIT_ASSERT(r.order == start);
        CPPUNIT_ASSERT_EQUAL(std::size_t(0), r.iterations);
        CPPUNIT_ASSERT_EQUAL(std::size_t(1), calls);
        CPPUNIT_ASSERT_EQUAL(std::size_t(2), reports);
        CPPUNIT_ASSERT_EQUAL(0.5, r.best_ms);
        CPPUNIT_ASSERT_EQUAL(0.5, r.start_ms);
    }
    const auto one = [](const std::vector<std::size_t>&) { return 1.0; };
    CPPUNIT_ASSERT_THROW(lrei_search({ 0, 2, 1, 2 }, one, budget), std::invalid_argument);
    CPPUNIT_ASSERT_THROW(lrei_search({ 1, 2 }, one, budget), std::invalid_argument);
    CPPUNIT_ASSERT_THROW(lrei_search({ 1, 0 }, lrei_metric(), budget),
                         std::invalid_argument);
    lrei_budget bad = budget;
    bad.max_iterations = 0;
    CPPUNIT_ASSERT_THROW(lrei_search({ 1, 0 }, one, bad), std::invalid_argument);
    bad = budget;
    bad.max_seconds = 0.0;
    CPPUNIT_ASSERT_THROW(lrei_search({ 1, 0 }, one, bad), std::invalid_argument);
    bad.max_seconds = std::numeric_limits<double>::quiet_NaN();
    CPPUNIT_ASSERT_THROW(lrei_search({ 1, 0 }, one, bad), std::invalid_argument);
    bad = budget;
    bad.progress_interval_s = -1.0;
    CPPUNIT_ASSERT_THROW(lrei_search({ 1, 0 }, one, bad), std::invalid_argument);
    CPPUNIT_ASSERT_THROW(lrei_search(
                             { 1, 0 },
                             [](const std::vector<std::size_t>&) {
                                 return std::numeric_limits<double>::quiet_NaN();
                             },
                             budget),
                         std::runtime_error);
    // Infinite time with an iteration bound is a valid budget.
    bad = budget;
    bad.max_seconds = std::numeric_limits<double>::infinity();
    bad.max_iterations = 5;
    CPPUNIT_ASSERT_EQUAL(std::size_t(5), lrei_search({ 1, 0 }, one, bad).iterations);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
