/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/cuda_check.h"
#include "runtime/cuda_resources.h"
#include "runtime/memory_budget.h"
#include <cuda_runtime.h>
#include <sys/resource.h>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr std::size_t unlimited = std::numeric_limits<std::size_t>::max();

//! The value in kB of the line "<key>: N kB" of a /proc file, in bytes; unlimited
//! where the file or the line is absent.
std::size_t proc_kilobytes(const char* path, const std::string& key)
{
    std::ifstream file(path);
    std::string line;
    while (std::getline(file, line))
        if (line.compare(0, key.size() + 1, key + ":") == 0) {
            unsigned long long kilobytes = 0;
            if (std::sscanf(line.c_str() + key.size() + 1, "%llu", &kilobytes) == 1)
                return static_cast<std::size_t>(kilobytes) * 1024;
        }
    return unlimited;
}

//! The first number in a cgroup file ("max" and absent files: unlimited).
std::size_t cgroup_value(const std::string& path)
{
    std::ifstream file(path);
    unsigned long long value = 0;
    if (!(file >> value))
        return unlimited;
    return static_cast<std::size_t>(value);
}

void take_lesser(memory_headroom& headroom, std::size_t bytes, const char* bound)
{
    if (bytes < headroom.bytes)
        headroom = { bytes, bound };
}

//! A resource limit less what the process already holds of it.
void take_rlimit(memory_headroom& headroom,
                 int resource,
                 const char* status_key,
                 const char* bound)
{
    rlimit limit{};
    if (getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return;
    const std::size_t used = proc_kilobytes("/proc/self/status", status_key);
    if (used == unlimited)
        return;
    const std::size_t allowed = static_cast<std::size_t>(limit.rlim_cur);
    take_lesser(headroom, allowed > used ? allowed - used : 0, bound);
}

/*!
 * The memory cgroup's limit less its usage, for the process's cgroup and each of its
 * ancestors (a parent's limit binds its children too): v2 where /proc/self/cgroup has
 * a "0::" line, v1 where one names the memory controller.
 */
void take_cgroup(memory_headroom& headroom)
{
    std::ifstream file("/proc/self/cgroup");
    std::string line;
    while (std::getline(file, line)) {
        const std::size_t first = line.find(':');
        const std::size_t second = line.find(':', first + 1);
        if (first == std::string::npos || second == std::string::npos)
            continue;
        const std::string controllers = line.substr(first + 1, second - first - 1);
        const bool v2 = line.compare(0, first, "0") == 0 && controllers.empty();
        const bool v1 = (',' + controllers + ',').find(",memory,") != std::string::npos;
        if (!v2 && !v1)
            continue;
        const std::string root = v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory";
        const char* limit_file = v2 ? "/memory.max" : "/memory.limit_in_bytes";
        const char* usage_file = v2 ? "/memory.current" : "/memory.usage_in_bytes";
        const char* bound = v2 ? "cgroup memory.max" : "cgroup memory.limit_in_bytes";
        std::string path = line.substr(second + 1);
        for (;;) {
            const std::string folder = root + (path == "/" ? "" : path);
            const std::size_t limit = cgroup_value(folder + limit_file);
            const std::size_t usage = cgroup_value(folder + usage_file);
            if (limit != unlimited && usage != unlimited)
                take_lesser(headroom, limit > usage ? limit - usage : 0, bound);
            if (path.empty() || path == "/")
                break;
            const std::size_t slash = path.rfind('/');
            path = slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
        }
    }
}

std::string bytes_text(std::size_t bytes)
{
    std::ostringstream text;
    text.precision(3);
    text << bytes << " bytes (" << double(bytes) / double(1ull << 30) << " GiB)";
    return text.str();
}

} // namespace

memory_headroom host_memory_headroom()
{
    memory_headroom headroom{ unlimited, "unknown" };
    take_lesser(
        headroom, proc_kilobytes("/proc/meminfo", "MemAvailable"), "MemAvailable");
    take_rlimit(headroom, RLIMIT_AS, "VmSize", "RLIMIT_AS");
    take_rlimit(headroom, RLIMIT_DATA, "VmData", "RLIMIT_DATA");
    take_cgroup(headroom);
    return headroom;
}

memory_headroom device_memory_headroom(int cuda_ordinal)
{
    device_guard guard(cuda_ordinal);
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    CUDADSP_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    return { free_bytes, "cudaMemGetInfo" };
}

void require_headroom(std::size_t bytes_needed,
                      const memory_headroom& headroom,
                      const std::string& memory,
                      const std::string& request)
{
    if (bytes_needed <= headroom.bytes)
        return;
    throw std::runtime_error(request + " needs " + bytes_text(bytes_needed) + " of " +
                             memory + "; " + bytes_text(headroom.bytes) +
                             " are available (" + headroom.bound + ")");
}

void require_memory(const memory_need& need,
                    const device_selection& device,
                    const std::string& request)
{
    require_headroom(need.host_bytes, host_memory_headroom(), "host memory", request);
    if (device.backend == backend_kind::cuda)
        require_headroom(need.device_bytes,
                         device_memory_headroom(device.cuda_ordinal),
                         "memory on " + device.to_string(),
                         request);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
