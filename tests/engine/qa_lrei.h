/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_LREI_H
#define INCLUDED_CUDADSP_QA_LREI_H

// The fixture of qa_lrei (the LREI autotuner and its tuning cache), its cases
// in one file per concern, and the helpers they share. Expectations are written
// from the definitions in lrei.h and tuning_cache.h (the paper's Sect. 4.3-4.5),
// never taken from the code under test.

#include "qa_support.h"
#include <cppunit/extensions/HelperMacros.h>
#include <cstddef>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

bool is_permutation_reference(const std::vector<std::size_t>& v);

std::vector<std::size_t> random_permutation(std::size_t n, qa::gaussian_source& rng);

class qa_lrei : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_lrei);
    CPPUNIT_TEST(sorted_order_hand_example);
    CPPUNIT_TEST(sorted_order_random_keys);
    CPPUNIT_TEST(rng_is_splitmix64);
    CPPUNIT_TEST(children_are_permutations);
    CPPUNIT_TEST(apply_rejects_moves_that_do_not_fit);
    CPPUNIT_TEST(move_distribution_large_n);
    CPPUNIT_TEST(move_distribution_small_n_joint);
    CPPUNIT_TEST(search_reaches_known_optimum);
    CPPUNIT_TEST(search_never_worse_than_start);
    CPPUNIT_TEST(search_iteration_bound_and_progress);
    CPPUNIT_TEST(search_time_bound);
    CPPUNIT_TEST(search_is_reproducible);
    CPPUNIT_TEST(search_trivial_and_bad_input);
    CPPUNIT_TEST(hash_known_values);
    CPPUNIT_TEST(cache_round_trip);
    CPPUNIT_TEST(cache_keying);
    CPPUNIT_TEST(cache_missing_and_corrupt_files);
    CPPUNIT_TEST(cache_rejects_invalid_entries);
    CPPUNIT_TEST(cache_keeps_unknown_members);
    CPPUNIT_TEST(cache_store_failures);
    CPPUNIT_TEST(cache_default_directory);
    CPPUNIT_TEST_SUITE_END();

public:
    // qa_lrei.cc: the operator and the distribution of its moves
    void sorted_order_hand_example();
    void sorted_order_random_keys();
    void rng_is_splitmix64();
    void children_are_permutations();
    void apply_rejects_moves_that_do_not_fit();
    void move_distribution_large_n();
    void move_distribution_small_n_joint();

    // qa_lrei_search.cc: the search
    void search_reaches_known_optimum();
    void search_never_worse_than_start();
    void search_iteration_bound_and_progress();
    void search_time_bound();
    void search_is_reproducible();
    void search_trivial_and_bad_input();

    // qa_lrei_cache.cc: the configuration hash and the tuning cache
    void hash_known_values();
    void cache_round_trip();
    void cache_keying();
    void cache_missing_and_corrupt_files();
    void cache_rejects_invalid_entries();
    void cache_keeps_unknown_members();
    void cache_store_failures();
    void cache_default_directory();
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_LREI_H */
