/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The fault-injection hook of runtime/cuda_check.h, without a device: its spec parser
// (every rule named), which checked call it makes fail (substring, count, kind of
// check, the error chosen), that the failing call is not made, and that one arming
// gives one fault. The calls checked here are the test's own functions returning
// cudaSuccess, so no CUDA device or driver is needed.

#include "qa_support.h"
#include "runtime/cuda_check.h"
#include <cppunit/extensions/HelperMacros.h>
#include <stdexcept>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

int allocations_made = 0;
int copies_made = 0;

cudaError_t fake_allocation()
{
    ++allocations_made;
    return cudaSuccess;
}

cudaError_t fake_copy()
{
    ++copies_made;
    return cudaSuccess;
}

//! Runs \p check; returns the cuda_error's text, or "" when it did not throw.
template <class Check>
std::string failure_of(Check check)
{
    try {
        check();
    } catch (const cuda_error& e) {
        return e.what();
    }
    return "";
}

void expect_rejected(const std::string& spec, const std::string& rule)
{
    try {
        parse_cuda_fault_spec(spec, "CUDADSP_FAULT_INJECT");
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        CPPUNIT_ASSERT_MESSAGE(what, what.find("CUDADSP_FAULT_INJECT: ") == 0);
        CPPUNIT_ASSERT_MESSAGE(what, what.find(rule) != std::string::npos);
        return;
    }
    CPPUNIT_FAIL("spec \"" + spec + "\" accepted");
}

} // namespace

class qa_cuda_fault_injection : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_cuda_fault_injection);
    CPPUNIT_TEST(parses_specs);
    CPPUNIT_TEST(rejects_bad_specs);
    CPPUNIT_TEST(nth_matching_call_fails_once);
    CPPUNIT_TEST(launch_checks_and_forced_errors);
    CPPUNIT_TEST(disarmed_is_inert);
    CPPUNIT_TEST_SUITE_END();

public:
    void setUp() override
    {
        disarm_cuda_fault();
        allocations_made = copies_made = 0;
    }
    void tearDown() override { disarm_cuda_fault(); }

    void parses_specs()
    {
        cuda_fault_spec s = parse_cuda_fault_spec("cudaMalloc:3");
        CPPUNIT_ASSERT_EQUAL(std::string("cudaMalloc"), s.call);
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(3), s.nth);
        CPPUNIT_ASSERT(!s.forced_error);
        s = parse_cuda_fault_spec("*:12:launch");
        CPPUNIT_ASSERT_EQUAL(std::string("*"), s.call);
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(12), s.nth);
        CPPUNIT_ASSERT(s.forced_error);
        CPPUNIT_ASSERT_EQUAL(int(cudaErrorLaunchFailure), int(s.error));
        s = parse_cuda_fault_spec("kdp_kernel:1:oom");
        CPPUNIT_ASSERT_EQUAL(int(cudaErrorMemoryAllocation), int(s.error));
    }

    void rejects_bad_specs()
    {
        expect_rejected("", "must start with the call's text");
        expect_rejected("cudaMalloc", "must start with the call's text");
        expect_rejected(":3", "must start with the call's text");
        expect_rejected("cudaMalloc:", "<nth> must be a whole number");
        expect_rejected("cudaMalloc:0", "<nth> must be a whole number");
        expect_rejected("cudaMalloc:-1", "<nth> must be a whole number");
        expect_rejected("cudaMalloc:2x", "<nth> must be a whole number");
        expect_rejected("cudaMalloc:99999999999999999999",
                        "<nth> must be a whole number");
        expect_rejected("cudaMalloc:2:segfault", "<error> must be oom or launch");
        expect_rejected("cudaMalloc:2:", "<error> must be oom or launch");
    }

    void nth_matching_call_fails_once()
    {
        const std::uint64_t before = cuda_faults_injected();
        arm_cuda_fault(parse_cuda_fault_spec("fake_allocation:3"));
        // Calls that do not match are neither counted nor failed.
        for (int i = 0; i < 5; ++i)
            CPPUNIT_ASSERT_EQUAL(std::string(),
                                 failure_of([] { CUDADSP_CUDA(fake_copy()); }));
        CPPUNIT_ASSERT_EQUAL(std::string(),
                             failure_of([] { CUDADSP_CUDA(fake_allocation()); }));
        CPPUNIT_ASSERT_EQUAL(std::string(),
                             failure_of([] { CUDADSP_CUDA(fake_allocation()); }));
        const std::string third = failure_of([] { CUDADSP_CUDA(fake_allocation()); });
        CPPUNIT_ASSERT_MESSAGE(third, third.find("fake_allocation() failed at ") == 0);
        CPPUNIT_ASSERT_MESSAGE(
            third, third.find("(cudaErrorMemoryAllocation)") != std::string::npos);
        // The failing call was not made; the later ones run normally again.
        CPPUNIT_ASSERT_EQUAL(2, allocations_made);
        CPPUNIT_ASSERT_EQUAL(5, copies_made);
        for (int i = 0; i < 4; ++i)
            CPPUNIT_ASSERT_EQUAL(std::string(),
                                 failure_of([] { CUDADSP_CUDA(fake_allocation()); }));
        CPPUNIT_ASSERT_EQUAL(6, allocations_made);
        CPPUNIT_ASSERT_EQUAL(before + 1, cuda_faults_injected());

        // Arming again starts the count again.
        arm_cuda_fault(parse_cuda_fault_spec("*:2"));
        CPPUNIT_ASSERT_EQUAL(std::string(),
                             failure_of([] { CUDADSP_CUDA(fake_copy()); }));
        CPPUNIT_ASSERT(failure_of([] { CUDADSP_CUDA(fake_allocation()); }) != "");
        CPPUNIT_ASSERT_EQUAL(before + 2, cuda_faults_injected());
    }

    void launch_checks_and_forced_errors()
    {
        // A launch check matches the kernel's name and fails with a launch failure.
        // (Checks that pass would ask the runtime for its last error, which without a
        // driver is an error itself: the count is seen through the hook directly.)
        arm_cuda_fault(parse_cuda_fault_spec("scan_kernel:2"));
        CPPUNIT_ASSERT(!detail::cuda_fault_due("other_kernel", cudaErrorLaunchFailure));
        CPPUNIT_ASSERT(
            !detail::cuda_fault_due("unwrap_scan_kernel", cudaErrorLaunchFailure));
        const std::string launch =
            failure_of([] { CUDADSP_CUDA_LAUNCHED("unwrap_scan_kernel"); });
        CPPUNIT_ASSERT_MESSAGE(launch, launch.find("unwrap_scan_kernel failed at ") == 0);
        CPPUNIT_ASSERT_MESSAGE(
            launch, launch.find("(cudaErrorLaunchFailure)") != std::string::npos);

        // A forced error overrides the kind's default, both ways.
        arm_cuda_fault(parse_cuda_fault_spec("kernel:1:oom"));
        const std::string oom = failure_of([] { CUDADSP_CUDA_LAUNCHED("kdp_kernel"); });
        CPPUNIT_ASSERT_MESSAGE(
            oom, oom.find("(cudaErrorMemoryAllocation)") != std::string::npos);
        arm_cuda_fault(parse_cuda_fault_spec("fake_copy:1:launch"));
        const std::string copy = failure_of([] { CUDADSP_CUDA(fake_copy()); });
        CPPUNIT_ASSERT_MESSAGE(
            copy, copy.find("(cudaErrorLaunchFailure)") != std::string::npos);
        CPPUNIT_ASSERT_EQUAL(0, copies_made);
    }

    void disarmed_is_inert()
    {
        arm_cuda_fault(parse_cuda_fault_spec("fake_copy:1"));
        disarm_cuda_fault();
        for (int i = 0; i < 3; ++i)
            CPPUNIT_ASSERT_EQUAL(std::string(),
                                 failure_of([] { CUDADSP_CUDA(fake_copy()); }));
        CPPUNIT_ASSERT_EQUAL(3, copies_made);
        CPPUNIT_ASSERT_THROW(arm_cuda_fault(cuda_fault_spec{ "", 1 }),
                             std::invalid_argument);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_cuda_fault_injection);

} // namespace core
} // namespace cudadsp
} // namespace gr
