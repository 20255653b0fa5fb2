/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Runs the CppUnit suites registered in the test executable it is linked into.
//
//   qa_x                   every case
//   qa_x --cuda-cases      only the cases registered for the CUDA backend ("...[cuda]")
//   qa_x --no-cuda-cases   every other case
//   qa_x --sanitizer ...   reduced sizes for a run under compute-sanitizer (as
//                          CUDADSP_QA_SANITIZER=1; see qa::sanitizer_run())
//   qa_x --case TEXT ...   only the cases whose name contains TEXT (with the above)
//
// Each case is printed as it ends, with its wall time: "name : OK [0.12 s]",
// "name : skipped (reason) [0.00 s]", or "name : FAIL [0.12 s]" followed by its
// failures. A case that throws qa::skipped is counted as skipped, not passed. The last
// line is "N passed, N failed, N skipped"; the exit status is 1 on a failure, else
// qa::skip_exit_code when something skipped (or nothing was selected), else 0.
// Output is line-buffered, and a crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) prints
// the stack's frames on stderr before the signal's default action: the GPU host has no
// debugger, and addr2line on the build host turns the frames' library offsets into
// lines.

#include "qa_support.h"
#include <cppunit/Exception.h>
#include <cppunit/Protector.h>
#include <cppunit/SourceLine.h>
#include <cppunit/TestFailure.h>
#include <cppunit/TestListener.h>
#include <cppunit/TestResult.h>
#include <cppunit/TestSuite.h>
#include <cppunit/extensions/TestFactoryRegistry.h>
#include <execinfo.h>
#include <unistd.h>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace {

//! The crash report: only async-signal-safe calls (backtrace() is loaded beforehand).
extern "C" void report_crash(int signal_number)
{
    char text[64] = "\n*** fatal signal ";
    std::size_t length = std::strlen(text);
    if (signal_number >= 10)
        text[length++] = static_cast<char>('0' + signal_number / 10);
    text[length++] = static_cast<char>('0' + signal_number % 10);
    const char tail[] = "; the stack:\n";
    std::memcpy(text + length, tail, sizeof(tail));
    length += sizeof(tail) - 1;
    if (write(STDERR_FILENO, text, length) < 0)
        _exit(128 + signal_number);
    void* frames[64];
    backtrace_symbols_fd(frames, backtrace(frames, 64), STDERR_FILENO);
    std::signal(signal_number, SIG_DFL);
    std::raise(signal_number);
}

void install_crash_report()
{
#if !defined(__SANITIZE_ADDRESS__) // AddressSanitizer reports crashes itself
    void* warm_up[1];
    backtrace(warm_up, 1); // loads libgcc's unwinder now, not inside the handler
    for (int s : { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT })
        std::signal(s, report_crash);
#endif
}

/*!
 * Prints each case's outcome and counts them. CppUnit's own progress listener and
 * outputter know no skips: they print "OK" for a case that skipped.
 */
class case_outcomes : public CppUnit::TestListener
{
public:
    void startTest(CppUnit::Test* test) override
    {
        d_name = test->getName();
        d_started = std::chrono::steady_clock::now();
        d_skip_reason.clear();
        d_case_skipped = false;
        d_failures.clear();
    }

    //! Keeps the failure as "file:line: message", its message lines indented.
    void addFailure(const CppUnit::TestFailure& failure) override
    {
        const CppUnit::SourceLine where = failure.sourceLine();
        std::string text = where.isValid() ? where.fileName() + ":" +
                                                 std::to_string(where.lineNumber()) + ": "
                                           : std::string();
        std::string message = failure.thrownException()->what();
        while (!message.empty() && message.back() == '\n')
            message.pop_back();
        for (char c : message)
            text += c == '\n' ? std::string("\n      ") : std::string(1, c);
        d_failures.push_back(text);
    }

    //! Called by the skip protector; the case ends without a failure.
    void skip(const std::string& reason)
    {
        d_case_skipped = true;
        d_skip_reason = reason;
    }

    void endTest(CppUnit::Test*) override
    {
        // The time shows which cases dominate a run (under a sanitizer above all).
        const std::chrono::duration<double> took =
            std::chrono::steady_clock::now() - d_started;
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, " [%.2f s]", took.count());
        // A case that skipped and then failed in tearDown is a failure.
        if (!d_failures.empty()) {
            ++d_failed;
            std::cout << d_name << " : FAIL" << seconds << std::endl;
            for (const std::string& failure : d_failures)
                std::cout << "    " << failure << std::endl;
        } else if (d_case_skipped) {
            ++d_skipped_count;
            std::cout << d_name << " : skipped (" << d_skip_reason << ")" << seconds
                      << std::endl;
        } else {
            ++d_passed;
            std::cout << d_name << " : OK" << seconds << std::endl;
        }
    }

    int passed() const { return d_passed; }
    int failed() const { return d_failed; }
    int skipped() const { return d_skipped_count; }

private:
    std::string d_name;
    std::chrono::steady_clock::time_point d_started;
    bool d_case_skipped = false;
    std::string d_skip_reason;
    std::vector<std::string> d_failures;
    int d_passed = 0;
    int d_failed = 0;
    int d_skipped_count = 0;
};

//! Turns qa::skipped into a skip instead of an error. Pushed last, so it is the
//! innermost protector: it sees the exception before CppUnit's default one, and
//! returning false without a report stops the case with no failure recorded.
class skip_protector : public CppUnit::Protector
{
public:
    explicit skip_protector(case_outcomes& outcomes) : d_outcomes(outcomes) {}

    bool protect(const CppUnit::Functor& functor,
                 const CppUnit::ProtectorContext&) override
    {
        try {
            return functor();
        } catch (const gr::cudadsp::qa::skipped& skip) {
            d_outcomes.skip(skip.what());
            return false;
        }
    }

private:
    case_outcomes& d_outcomes;
};

bool is_cuda_case(const std::string& name)
{
    const std::string tag = "[cuda]";
    return name.size() >= tag.size() &&
           name.compare(name.size() - tag.size(), tag.size(), tag) == 0;
}

//! Adds the leaf cases of \p test that \p keep selects to \p into (not owned: \p test
//! keeps them).
template <class Keep>
void select_cases(CppUnit::Test* test, std::vector<CppUnit::Test*>& into, Keep keep)
{
    if (test->getChildTestCount() == 0) {
        if (keep(test->getName()))
            into.push_back(test);
        return;
    }
    for (int i = 0; i < test->getChildTestCount(); ++i)
        select_cases(test->getChildTestAt(i), into, keep);
}

} // namespace

int main(int argc, char** argv)
{
    std::setvbuf(stdout, nullptr, _IOLBF, 0); // std::cout writes through stdout
    install_crash_report();
    enum class selection { all, cuda_only, no_cuda } chosen = selection::all;
    std::string name_part;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--case" && i + 1 < argc)
            name_part = argv[++i];
        else if (arg == "--cuda-cases")
            chosen = selection::cuda_only;
        else if (arg == "--no-cuda-cases")
            chosen = selection::no_cuda;
        else if (arg == "--sanitizer")
            // Before any case runs: qa::sanitizer_run() reads it once.
            setenv("CUDADSP_QA_SANITIZER", "1", 1);
        else {
            std::cerr
                << "usage: " << argv[0]
                << " [--cuda-cases | --no-cuda-cases] [--sanitizer] [--case TEXT]\n";
            return 2;
        }
    }
    if (gr::cudadsp::qa::sanitizer_run())
        std::cout << "sanitizer run: reduced sizes, rate measurements skipped"
                  << std::endl;

    // The registry's suite owns every case; the selection only points into it (a
    // TestSuite would delete its cases, and the registry's suite would leak).
    const std::unique_ptr<CppUnit::Test> registry(
        CppUnit::TestFactoryRegistry::getRegistry().makeTest());
    std::vector<CppUnit::Test*> cases;
    select_cases(registry.get(), cases, [chosen, &name_part](const std::string& name) {
        return (chosen == selection::all ||
                (chosen == selection::cuda_only) == is_cuda_case(name)) &&
               name.find(name_part) != std::string::npos;
    });

    CppUnit::TestResult controller;
    case_outcomes outcomes;
    controller.addListener(&outcomes);
    controller.pushProtector(new skip_protector(outcomes)); // owned by controller
    for (CppUnit::Test* test : cases)
        test->run(&controller);

    std::cout << outcomes.passed() << " passed, " << outcomes.failed() << " failed, "
              << outcomes.skipped() << " skipped" << std::endl;
    if (outcomes.failed() > 0)
        return 1;
    const bool none_ran = outcomes.passed() + outcomes.skipped() == 0;
    return (outcomes.skipped() > 0 || none_ran) ? gr::cudadsp::qa::skip_exit_code : 0;
}
