/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The memory check engines make before they allocate (runtime/memory_budget.h): the
// headroom it reads under a real limit, and the refusal's text. The engines' own uses
// are tested with each engine (qa_phase_unwrap_2d: memory_checked_before_allocation).

#include "qa_support.h"
#include "runtime/memory_budget.h"
#include <cppunit/extensions/HelperMacros.h>
#include <fstream>
#include <stdexcept>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr std::size_t mebibyte = std::size_t(1) << 20;

//! MemAvailable of /proc/meminfo in bytes, read here apart from the runtime's reader.
std::size_t mem_available_bytes()
{
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    std::size_t kilobytes = 0;
    std::string unit;
    while (meminfo >> key >> kilobytes >> unit)
        if (key == "MemAvailable:")
            return kilobytes * 1024;
    CPPUNIT_FAIL("no MemAvailable in /proc/meminfo");
    return 0;
}

} // namespace

class qa_memory_budget : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_memory_budget);
    CPPUNIT_TEST(host_headroom_follows_the_address_space_limit);
    CPPUNIT_TEST(host_headroom_without_a_limit);
    CPPUNIT_TEST(refusal_names_request_bytes_and_bound);
    CPPUNIT_TEST(require_memory_on_the_cpu);
    QA_CUDA_TEST(device_headroom);
    CPPUNIT_TEST_SUITE_END();

public:
    void host_headroom_follows_the_address_space_limit()
    {
        // 64 MiB to spare: the least of the limits, less the little the process maps
        // between setting the limit and reading it.
        qa::address_space_limit limit(64 * mebibyte);
        const memory_headroom headroom = host_memory_headroom();
        CPPUNIT_ASSERT_EQUAL(std::string("RLIMIT_AS"), headroom.bound);
        CPPUNIT_ASSERT_MESSAGE(std::to_string(headroom.bytes),
                               headroom.bytes <= 64 * mebibyte &&
                                   headroom.bytes > 48 * mebibyte);
    }

    void host_headroom_without_a_limit()
    {
        // No rlimit here (ctest sets none): MemAvailable or a cgroup bounds it.
        const memory_headroom headroom = host_memory_headroom();
        CPPUNIT_ASSERT_MESSAGE(headroom.bound, headroom.bound != "unknown");
        CPPUNIT_ASSERT(headroom.bytes > 0);
        // Both read at about the same time; other processes may move it a little.
        CPPUNIT_ASSERT(headroom.bytes <= mem_available_bytes() + 256 * mebibyte);
    }

    void refusal_names_request_bytes_and_bound()
    {
        const memory_headroom one_gib{ std::size_t(1) << 30, "RLIMIT_AS" };
        require_headroom(std::size_t(1) << 30, one_gib, "host memory", "exactly enough");
        try {
            require_headroom(
                3 * (std::size_t(1) << 30) + 1, one_gib, "host memory", "a frame");
            CPPUNIT_FAIL("a request beyond the headroom passed");
        } catch (const std::runtime_error& e) {
            CPPUNIT_ASSERT_EQUAL(std::string("a frame needs 3221225473 bytes (3 GiB) of "
                                             "host memory; 1073741824 bytes (1 GiB) are "
                                             "available (RLIMIT_AS)"),
                                 std::string(e.what()));
        }
    }

    void require_memory_on_the_cpu()
    {
        qa::address_space_limit limit(64 * mebibyte);
        const device_selection cpu = select_device("cpu");
        memory_need small;
        small.host_bytes = mebibyte;
        // Device bytes are not asked of the CPU backend.
        small.device_bytes = std::size_t(1) << 60;
        require_memory(small, cpu, "small");
        memory_need large;
        large.host_bytes = std::size_t(1) << 30;
        try {
            require_memory(large, cpu, "large");
            CPPUNIT_FAIL("1 GiB passed with 64 MiB to spare");
        } catch (const std::runtime_error& e) {
            const std::string message = e.what();
            CPPUNIT_ASSERT_MESSAGE(message,
                                   message.rfind("large needs 1073741824 bytes", 0) ==
                                           0 &&
                                       message.find("(RLIMIT_AS)") != std::string::npos);
        }
    }

    void device_headroom(const std::string& device)
    {
        qa::require_cuda();
        const device_selection cuda = select_device(device);
        const memory_headroom headroom = device_memory_headroom(cuda.cuda_ordinal);
        CPPUNIT_ASSERT_EQUAL(std::string("cudaMemGetInfo"), headroom.bound);
        CPPUNIT_ASSERT(headroom.bytes > 0);
        memory_need beyond;
        beyond.device_bytes = headroom.bytes + (std::size_t(1) << 40);
        try {
            require_memory(beyond, cuda, "beyond");
            CPPUNIT_FAIL("a terabyte more than free passed");
        } catch (const std::runtime_error& e) {
            const std::string message = e.what();
            CPPUNIT_ASSERT_MESSAGE(
                message,
                message.find("of memory on cuda:") != std::string::npos &&
                    message.find("(cudaMemGetInfo)") != std::string::npos);
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_memory_budget);

} // namespace core
} // namespace cudadsp
} // namespace gr
