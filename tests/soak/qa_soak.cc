/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_soak: each block alone in a C++ flowgraph for a given time, every item counted and
// checked, its run-time inputs churned by messages, the process's RSS sampled. One
// summary line per block; exit status 1 when an item was lost or wrong, the flowgraph
// did not stop, or RSS grew beyond the bound; 77 when --device cuda finds no device.
// Usage and the bounds: docs/soak.md.

#include "rss_monitor.h"
#include "soak_cases.h"
#include <gnuradio/cudadsp/core/device.h>
#include <malloc.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace gr {
namespace cudadsp {
namespace soak {
namespace {

// Runs shorter than this are judged by RSS growth after the warm-up in MiB; longer ones
// by the fitted rate in MiB per hour. Over seconds, one allocator arena growing by a
// megabyte extrapolates to hundreds of MiB per hour, which says nothing.
constexpr double rate_judged_from_s = 1800.0;

struct options {
    std::string block = "all";
    std::string device = "cpu";
    double seconds = 15.0;
    bool parallel = false;
    double rss_period_s = 0.0; // 0: seconds / 300, within 0.5 .. 10 s
    double warmup_s = -1.0;    // < 0: a fifth of the run, at least 5 s
    double max_growth_mib_h = 1.0;
    double max_growth_mib = 8.0;
    double churn_period_s = 0.05;
    std::string trace_dir; // empty: no trace
};

[[noreturn]] void usage(const std::string& error)
{
    std::cerr
        << "qa_soak: " << error << "\n"
        << "usage: qa_soak [--block NAME|all] [--device cpu|cuda|cuda:N] [--seconds S]\n"
           "               [--parallel] [--rss-period S] [--warmup S]\n"
           "               [--max-growth-mib-h X] [--max-growth-mib X] [--churn-period "
           "S]\n"
           "               [--trace DIR]\n"
           "blocks:";
    for (const soak_case& c : soak_cases())
        std::cerr << " " << c.block;
    std::cerr << "\n";
    std::exit(2);
}

double number_argument(const std::string& name, const char* text)
{
    char* end = nullptr;
    const double v = text ? std::strtod(text, &end) : 0.0;
    if (!text || end == text || *end != '\0' || !(v >= 0.0) || !std::isfinite(v))
        usage(name + ": must be a finite number >= 0, got " + (text ? text : "nothing"));
    return v;
}

options parse(int argc, char** argv)
{
    options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const char* next = i + 1 < argc ? argv[i + 1] : nullptr;
        if (a == "--block" && next)
            o.block = argv[++i];
        else if (a == "--device" && next)
            o.device = argv[++i];
        else if (a == "--seconds")
            o.seconds = number_argument(a, next), ++i;
        else if (a == "--parallel")
            o.parallel = true;
        else if (a == "--rss-period")
            o.rss_period_s = number_argument(a, next), ++i;
        else if (a == "--warmup")
            o.warmup_s = number_argument(a, next), ++i;
        else if (a == "--max-growth-mib-h")
            o.max_growth_mib_h = number_argument(a, next), ++i;
        else if (a == "--max-growth-mib")
            o.max_growth_mib = number_argument(a, next), ++i;
        else if (a == "--churn-period")
            o.churn_period_s = number_argument(a, next), ++i;
        else if (a == "--trace" && next)
            o.trace_dir = argv[++i];
        else
            usage("unknown or incomplete argument " + a);
    }
    if (o.seconds <= 0.0)
        usage("--seconds: must be > 0");
    if (o.rss_period_s <= 0.0)
        o.rss_period_s = std::min(10.0, std::max(0.5, o.seconds / 300.0));
    if (o.warmup_s < 0.0)
        o.warmup_s = std::max(5.0, o.seconds / 5.0);
    if (o.warmup_s >= o.seconds)
        usage("--warmup: must be shorter than --seconds");
    return o;
}

/*!
 * With --trace DIR, DIR/<block>.tsv gets one line per RSS sample: seconds, RSS and its
 * anonymous, file-backed and shared parts (GNU Radio's buffers are shared memory), the
 * heap glibc holds from the system and the part of it in use (MiB), and the messages
 * queued at the counting port. A heap held that grows while the heap in use stays flat
 * is memory freed and kept (a past peak), not memory still held.
 */
std::FILE* open_trace(const std::string& block, const options& o)
{
    if (o.trace_dir.empty())
        return nullptr;
    const std::string path = o.trace_dir + "/" + block + ".tsv";
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (!f)
        usage("--trace: cannot write " + path);
    std::fprintf(f,
                 "t_s\trss_mib\trss_anon_mib\trss_file_mib\trss_shmem_mib\theap_mib\t"
                 "heap_in_use_mib\tmessages_queued\n");
    return f;
}

//! One block's soak in this process; prints its summary line, returns the exit status.
int soak_one(const soak_case& c, const options& o)
{
    std::mt19937_64 rng(0x50a6);
    soak_flowgraph f = c.build(o.device, o.seconds);
    std::vector<rss_sample> rss;
    std::FILE* trace = open_trace(c.block, o);
    const auto t0 = std::chrono::steady_clock::now();
    const auto elapsed = [t0] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count();
    };
    f.tb->start();
    auto done = std::async(std::launch::async, [tb = f.tb] { tb->wait(); });
    double next_rss = 0.0;
    // A flowgraph that has not stopped this long after its source ended has hung.
    const double deadline = o.seconds + 60.0 + 0.1 * o.seconds;
    bool hung = false;
    while (done.wait_for(std::chrono::duration<double>(o.churn_period_s)) !=
           std::future_status::ready) {
        const double t = elapsed();
        if (t >= deadline) {
            hung = true;
            break;
        }
        if (!f.source->finished())
            f.churn(rng);
        if (t >= next_rss) {
            rss.push_back({ t, resident_mib() });
            next_rss += o.rss_period_s;
            if (trace) {
                const struct mallinfo2 heap = mallinfo2();
                std::fprintf(trace,
                             "%.2f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%llu\n",
                             t,
                             rss.back().rss_mib,
                             status_mib("RssAnon:"),
                             status_mib("RssFile:"),
                             status_mib("RssShmem:"),
                             double(heap.arena + heap.hblkhd) / (1 << 20),
                             double(heap.uordblks + heap.hblkhd) / (1 << 20),
                             static_cast<unsigned long long>(f.messages_queued()));
                std::fflush(trace);
            }
        }
    }
    const double ran_s = elapsed();
    if (hung) {
        std::printf(
            "soak: block=%s device=%s result=FAIL (flowgraph still running %.0f s "
            "after its source ended)\n",
            c.block.c_str(),
            o.device.c_str(),
            ran_s - o.seconds);
        std::fflush(stdout);
        std::_Exit(1); // unwinding through a running scheduler would only hang again
    }
    done.get();
    rss.push_back({ ran_s, resident_mib() });
    if (trace)
        std::fclose(trace);

    const std::int64_t lost = f.lost();
    const std::uint64_t bad = f.bad();
    const double growth = growth_after_warmup_mib(rss, o.warmup_s);
    const double rate = growth_mib_per_hour(rss, o.warmup_s);
    const bool by_rate = o.seconds >= rate_judged_from_s;
    const bool rss_ok = by_rate ? rate <= o.max_growth_mib_h : growth <= o.max_growth_mib;
    const bool ok = lost == 0 && bad == 0 && f.source->produced() > 0 && rss_ok;
    std::printf("soak: block=%s device=%s seconds=%.1f items_in=%llu items_out=%llu "
                "lost=%lld bad=%llu messages=%llu messages_queued_max=%llu "
                "rss_start_mib=%.1f rss_end_mib=%.1f "
                "growth_after_warmup_mib=%.2f growth_mib_h=%.2f (judged by %s <= %g) "
                "result=%s\n",
                c.block.c_str(),
                o.device.c_str(),
                ran_s,
                static_cast<unsigned long long>(f.source->produced()),
                static_cast<unsigned long long>(f.items_out()),
                static_cast<long long>(lost),
                static_cast<unsigned long long>(bad),
                static_cast<unsigned long long>(f.messages()),
                static_cast<unsigned long long>(f.messages_queued_max()),
                rss.front().rss_mib,
                rss.back().rss_mib,
                growth,
                rate,
                by_rate ? "growth_mib_h" : "growth_after_warmup_mib",
                by_rate ? o.max_growth_mib_h : o.max_growth_mib,
                ok ? "PASS" : "FAIL");
    std::fflush(stdout);
    return ok ? 0 : 1;
}

//! Each block in a process of its own (its RSS its own), all at once or in turn.
int soak_all(int argc, char** argv, const options& o)
{
    std::vector<std::string> blocks;
    for (const soak_case& c : soak_cases())
        blocks.push_back(c.block);
    std::vector<pid_t> children;
    int failed = 0, skipped = 0;
    const auto reap = [&](pid_t pid) {
        int status = 0;
        waitpid(pid, &status, 0);
        const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        if (code == 77)
            ++skipped;
        else if (code != 0)
            ++failed;
    };
    for (const std::string& block : blocks) {
        std::vector<std::string> args = { "/proc/self/exe" };
        for (int i = 1; i < argc; ++i)
            if (std::string(argv[i]) != "--parallel")
                args.push_back(argv[i]);
        args.push_back("--block"); // the last --block wins
        args.push_back(block);
        std::vector<char*> cargs;
        for (std::string& a : args)
            cargs.push_back(a.data());
        cargs.push_back(nullptr);
        pid_t pid = 0;
        if (posix_spawn(
                &pid, "/proc/self/exe", nullptr, nullptr, cargs.data(), environ) != 0) {
            std::cerr << "qa_soak: cannot start the soak of " << block << std::endl;
            ++failed;
            continue;
        }
        if (o.parallel)
            children.push_back(pid);
        else
            reap(pid);
    }
    for (pid_t pid : children)
        reap(pid);
    std::printf(
        "soak: %zu blocks, %d failed, %d skipped\n", blocks.size(), failed, skipped);
    return failed ? 1 : skipped ? 77 : 0;
}

} // namespace
} // namespace soak
} // namespace cudadsp
} // namespace gr

int main(int argc, char** argv)
{
    using namespace gr::cudadsp;
    const soak::options o = soak::parse(argc, argv);
    if (o.device != "cpu") {
        try {
            core::select_device(o.device, "--device");
        } catch (const std::invalid_argument& e) {
            soak::usage(e.what());
        } catch (const std::exception& e) {
            std::printf("soak: skipped, %s\n", e.what());
            return 77;
        }
    }
    if (o.block == "all")
        return soak::soak_all(argc, argv, o);
    for (const soak::soak_case& c : soak::soak_cases())
        if (c.block == o.block)
            return soak::soak_one(c, o);
    soak::usage("--block: no block " + o.block);
}
