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
//
// A case that throws qa::skipped is counted as skipped, not passed. The last line is
// "N passed, N failed, N skipped"; the exit status is 1 on a failure, else
// qa::skip_exit_code when something skipped (or nothing was selected), else 0.

#include "qa_support.h"
#include <cppunit/BriefTestProgressListener.h>
#include <cppunit/CompilerOutputter.h>
#include <cppunit/Protector.h>
#include <cppunit/TestListener.h>
#include <cppunit/TestResult.h>
#include <cppunit/TestResultCollector.h>
#include <cppunit/TestSuite.h>
#include <cppunit/extensions/TestFactoryRegistry.h>
#include <iostream>
#include <string>

namespace {

//! The name of the case running now (the protector's context does not say).
class current_case : public CppUnit::TestListener
{
public:
    void startTest(CppUnit::Test* test) override { d_name = test->getName(); }
    const std::string& name() const { return d_name; }

private:
    std::string d_name;
};

//! Turns qa::skipped into a skip count instead of an error. Pushed last, so it is the
//! innermost protector: it sees the exception before CppUnit's default one, and
//! returning false without a report stops the case with no failure recorded.
class skip_protector : public CppUnit::Protector
{
public:
    explicit skip_protector(const current_case& running) : d_running(running) {}

    bool protect(const CppUnit::Functor& functor, const CppUnit::ProtectorContext&) override
    {
        try {
            return functor();
        } catch (const gr::cudadsp::qa::skipped& skip) {
            std::cout << "\n" << d_running.name() << ": skipped: " << skip.what() << std::endl;
            ++d_count;
            return false;
        }
    }

    int count() const { return d_count; }

private:
    const current_case& d_running;
    int d_count = 0;
};

bool is_cuda_case(const std::string& name)
{
    const std::string tag = "[cuda]";
    return name.size() >= tag.size() &&
           name.compare(name.size() - tag.size(), tag.size(), tag) == 0;
}

//! Adds the leaf cases of \p test that \p keep selects to \p into.
template <class Keep>
void select_cases(CppUnit::Test* test, CppUnit::TestSuite& into, Keep keep)
{
    if (test->getChildTestCount() == 0) {
        if (keep(test->getName()))
            into.addTest(test);
        return;
    }
    for (int i = 0; i < test->getChildTestCount(); ++i)
        select_cases(test->getChildTestAt(i), into, keep);
}

} // namespace

int main(int argc, char** argv)
{
    enum class selection { all, cuda_only, no_cuda } chosen = selection::all;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--cuda-cases")
            chosen = selection::cuda_only;
        else if (arg == "--no-cuda-cases")
            chosen = selection::no_cuda;
        else {
            std::cerr << "usage: " << argv[0] << " [--cuda-cases | --no-cuda-cases]\n";
            return 2;
        }
    }

    CppUnit::Test* registry = CppUnit::TestFactoryRegistry::getRegistry().makeTest();
    CppUnit::TestSuite cases("selected");
    select_cases(registry, cases, [chosen](const std::string& name) {
        return chosen == selection::all || (chosen == selection::cuda_only) == is_cuda_case(name);
    });

    CppUnit::TestResult controller;
    current_case running;
    controller.addListener(&running);
    skip_protector* skips = new skip_protector(running); // owned by controller
    controller.pushProtector(skips);
    CppUnit::TestResultCollector collected;
    controller.addListener(&collected);
    CppUnit::BriefTestProgressListener progress;
    controller.addListener(&progress);
    cases.run(&controller);

    const int failed = collected.testFailuresTotal();
    const int run = collected.runTests();
    const int skipped = skips->count();
    const int passed = run - failed - skipped;
    CppUnit::CompilerOutputter(&collected, std::cerr).write();
    std::cout << passed << " passed, " << failed << " failed, " << skipped << " skipped"
              << std::endl;
    if (failed > 0)
        return 1;
    return (skipped > 0 || run == 0) ? gr::cudadsp::qa::skip_exit_code : 0;
}
