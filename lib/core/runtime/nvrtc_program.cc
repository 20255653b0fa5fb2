/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/nvrtc_program.h"
#include <gnuradio/cudadsp/core/device.h>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

//! Owner of an nvrtcProgram.
class nvrtc_program
{
public:
    nvrtc_program(const std::string& source,
                  const std::string& name,
                  const std::vector<nvrtc_header>& headers)
    {
        std::vector<const char*> texts, names;
        for (const nvrtc_header& h : headers) {
            texts.push_back(h.text.c_str());
            names.push_back(h.name.c_str());
        }
        CUDADSP_NVRTC(nvrtcCreateProgram(&d_program,
                                         source.c_str(),
                                         name.c_str(),
                                         static_cast<int>(headers.size()),
                                         texts.data(),
                                         names.data()));
    }
    ~nvrtc_program() { nvrtcDestroyProgram(&d_program); }
    nvrtc_program(const nvrtc_program&) = delete;
    nvrtc_program& operator=(const nvrtc_program&) = delete;
    nvrtcProgram get() const { return d_program; }

    std::string log() const
    {
        std::size_t size = 0;
        if (nvrtcGetProgramLogSize(d_program, &size) != NVRTC_SUCCESS || size <= 1)
            return "";
        std::string text(size, '\0');
        if (nvrtcGetProgramLog(d_program, &text[0]) != NVRTC_SUCCESS)
            return "";
        text.resize(std::strlen(text.c_str()));
        return text;
    }

private:
    nvrtcProgram d_program = nullptr;
};

std::vector<int> supported_architectures()
{
    int count = 0;
    CUDADSP_NVRTC(nvrtcGetNumSupportedArchs(&count));
    std::vector<int> archs(count);
    if (count > 0)
        CUDADSP_NVRTC(nvrtcGetSupportedArchs(archs.data()));
    return archs;
}

} // namespace

void check_nvrtc(nvrtcResult status, const char* call, const char* file, int line)
{
    if (status == NVRTC_SUCCESS)
        return;
    const char* base = std::strrchr(file, '/');
    std::ostringstream msg;
    msg << call << " failed at " << (base ? base + 1 : file) << ":" << line << ": "
        << nvrtcGetErrorString(status);
    throw cuda_error(msg.str());
}

nvrtc_image nvrtc_compile(const std::string& source,
                          const std::string& name,
                          const std::vector<nvrtc_header>& headers,
                          const std::vector<std::string>& options,
                          int major,
                          int minor,
                          bool ptx)
{
    const int wanted = major * 10 + minor;
    int best = 0;
    for (int arch : supported_architectures())
        if (arch <= wanted && arch > best)
            best = arch;
    if (best == 0)
        throw std::runtime_error("nvrtc_compile: NVRTC " + nvrtc_version() +
                                 " supports no architecture up to compute capability " +
                                 std::to_string(major) + "." + std::to_string(minor));
    nvrtc_image image;
    image.cubin = !ptx && best == wanted;
    image.target = (image.cubin ? "sm_" : "compute_") + std::to_string(best);
    std::vector<std::string> all = options;
    all.push_back("--gpu-architecture=" + image.target);
    std::vector<const char*> argv;
    for (const std::string& o : all)
        argv.push_back(o.c_str());

    nvrtc_program program(source, name, headers);
    const nvrtcResult compiled =
        nvrtcCompileProgram(program.get(), static_cast<int>(argv.size()), argv.data());
    image.log = program.log();
    if (compiled != NVRTC_SUCCESS)
        throw cuda_error("nvrtcCompileProgram(" + name + ", " + image.target +
                         ") failed: " + nvrtcGetErrorString(compiled) +
                         "\ncompile log:\n" + image.log);
    std::size_t size = 0;
    if (image.cubin) {
        CUDADSP_NVRTC(nvrtcGetCUBINSize(program.get(), &size));
        image.data.resize(size);
        CUDADSP_NVRTC(nvrtcGetCUBIN(program.get(), &image.data[0]));
    } else {
        CUDADSP_NVRTC(nvrtcGetPTXSize(program.get(), &size));
        image.data.resize(size);
        CUDADSP_NVRTC(nvrtcGetPTX(program.get(), &image.data[0]));
    }
    return image;
}

std::string nvrtc_version()
{
    int major = 0, minor = 0;
    CUDADSP_NVRTC(nvrtcVersion(&major, &minor));
    return std::to_string(major) + "." + std::to_string(minor);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
