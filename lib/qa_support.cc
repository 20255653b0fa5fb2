/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "qa_support.h"
#include <gnuradio/cudadsp/core/device.h>
#include <complex>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace qa {

bool cuda_available_or_skip(const std::string& test)
{
    if (core::cuda_device_count() > 0)
        return true;
    std::cout << test << ": skipped: no CUDA device" << std::endl;
    return false;
}

std::string data_file_or_skip(const std::string& test, const std::string& relative_file)
{
    const char* dir = std::getenv("CUDADSP_DATA_DIR");
    const std::string path = dir ? std::string(dir) + "/" + relative_file : "";
    if (!path.empty() && std::ifstream(path).good())
        return path;
    std::cout << test << ": skipped: test data absent (" << relative_file
              << " under CUDADSP_DATA_DIR)" << std::endl;
    return "";
}

template <typename T>
std::vector<T> read_binary(const std::string& path)
{
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    if (!file)
        throw std::runtime_error("cannot open " + path);
    const std::streamsize bytes = file.tellg();
    std::vector<T> data(static_cast<std::size_t>(bytes) / sizeof(T));
    file.seekg(0);
    file.read(reinterpret_cast<char*>(data.data()), data.size() * sizeof(T));
    return data;
}

template std::vector<float> read_binary<float>(const std::string&);
template std::vector<std::complex<float>>
read_binary<std::complex<float>>(const std::string&);

} // namespace qa
} // namespace cudadsp
} // namespace gr
