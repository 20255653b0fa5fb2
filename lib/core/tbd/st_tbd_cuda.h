/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_ST_TBD_CUDA_H
#define INCLUDED_CUDADSP_CORE_ST_TBD_CUDA_H

#include "runtime/cuda_module.h"
#include "runtime/cuda_resources.h"
#include "tbd/tuning_cache.h"
#include "tbd/st_tbd_internal.h"
#include "tbd/st_tbd_kernel_source.h"
#include <gnuradio/cudadsp/core/st_tbd.h>
#include <memory>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * CUDA backend.
 *
 * State: two buffers in tbd_layout (ping-pong: a frame reads one and writes the other),
 * every plane zero-guarded, so neither kernel checks bounds when it reads. The texture
 * path gives each plane of each buffer its own pitched 2D texture object (linear
 * filtering): planes never bleed into each other, since a plane's texture ends at its
 * own guard.
 *
 * One frame is two kernels: the update (one thread per cell, all M hypotheses in
 * registers: reads X once and the state through L1 or the texture unit, writes the new
 * state, D and argmax, coalesced) and, when detections are wanted, the detection rule
 * over D (atomic compaction of the cells that pass into a candidate buffer). The host
 * keeps the largest max_detections_per_frame and sorts them; when more candidates pass
 * than the buffer holds (more than max(2 max_detections_per_frame, 4096), capped at
 * 2^18 and at the most a map can have), the frame's map is read back and the rule runs
 * on the host (rare: a map that noisy is not a detection problem).
 *
 * process() pipelines frames through three slots: the upload of frame n + 1 (a
 * page-locked input directly, a pageable one staged through pinned memory by the
 * calling thread), the kernels of frame n and the download of frame n - 1 run
 * together on three streams.
 */
class st_tbd_cuda : public st_tbd
{
public:
    st_tbd_cuda(const st_tbd_config& config, const device_selection& device);
    ~st_tbd_cuda() override;

    void process(const float* frames,
                 std::size_t nframes,
                 float* detection_map,
                 std::int32_t* argmax,
                 std::vector<tbd_detection>* detections) override;
    void process_float_argmax(const float* frames,
                              std::size_t nframes,
                              float* detection_map,
                              float* argmax,
                              std::vector<tbd_detection>* detections) override;
    void process_device(const float* d_frames,
                        std::size_t nframes,
                        float* d_detection_map,
                        std::int32_t* d_argmax,
                        std::vector<tbd_detection>* detections,
                        cuda_stream_t stream) override;
    void synchronize() override;
    double frame_time_ms(std::size_t repeats) override;
    std::vector<std::size_t> line_order() const override;
    void set_line_order(const std::vector<std::size_t>& order) override;
    void reset() override;
    void read_state(float* state) override;
    std::string implementation() const override;

private:
    enum class kernel_kind { generic, generated };

    //! A compiled generated kernel.
    struct generated_kernel {
        cuda_module module;
        CUfunction function = nullptr;
    };

    //! Device buffers of the detection rule for one frame.
    struct detection_buffers {
        device_buffer<tbd_candidate> candidates;
        device_buffer<unsigned int> count;
        pinned_buffer<tbd_candidate> candidates_host;
        pinned_buffer<unsigned int> count_host;
    };

    struct frame_slot;

    bool texture_available(std::string* why) const;
    void create_textures();
    void destroy_textures() noexcept;
    generated_kernel compile(const std::vector<std::size_t>& order,
                             tbd_bilinear_mode mode) const;
    //! Selects kernel, bilinear path and line order (cache, timing, autotune).
    void choose_implementation();
    //! The generated kernel for the \p sorted line order, unless the configuration
    //! asks for the generic one or ("auto") the generated one cannot be built.
    void choose_kernel(const std::vector<std::size_t>& sorted);
    //! The bilinear path: given, forced, cached under \p key, or timed (and cached).
    void choose_bilinear(const std::vector<std::size_t>& sorted,
                         bool texture_ok,
                         const tuning_cache& cache,
                         const tuning_key& key);
    //! The generated kernel's line order: cached under \p key, autotuned, or sorted.
    void choose_line_order(const std::vector<std::size_t>& sorted,
                           const tuning_cache& cache,
                           const tuning_key& key);
    //! LREI's search from \p sorted, its result checked against the start once more.
    tuning_entry autotune_line_order(const std::vector<std::size_t>& sorted);

    /*! Enqueues one frame's update reading the current buffer and writing the other
     *  (\p kernel: the generated kernel to use; nullptr: the generic one). */
    void enqueue_update(const float* d_frame,
                        float* d_map,
                        std::int32_t* d_argmax,
                        cudaStream_t stream,
                        tbd_bilinear_mode mode,
                        const generated_kernel* kernel);
    /*! process() and process_float_argmax(): the argmax goes to \p argmax (int32),
     *  to \p argmax_float (converted on the device) or, both nullptr, nowhere. */
    void process_host(const float* frames,
                      std::size_t nframes,
                      float* detection_map,
                      std::int32_t* argmax,
                      float* argmax_float,
                      std::vector<tbd_detection>* detections);
    void enqueue_argmax_to_float(const std::int32_t* d_argmax,
                                 float* d_out,
                                 std::size_t n,
                                 cudaStream_t stream);
    void enqueue_detection(const float* d_map,
                           const std::int32_t* d_argmax,
                           detection_buffers& buffers,
                           cudaStream_t stream);
    /*! Appends the detections of frame \p frame from \p buffers (downloaded); on
     *  overflow reads the map (\p host_map / \p host_argmax when already on the host,
     *  else from \p d_map / \p d_argmax). */
    void collect_detections(const detection_buffers& buffers,
                            std::uint64_t frame,
                            const float* host_map,
                            const std::int32_t* host_argmax,
                            const float* d_map,
                            const std::int32_t* d_argmax,
                            std::vector<tbd_detection>& detections);
    //! Minimum over \p repeats event-timed updates into the spare buffer, ms.
    double time_update(std::size_t repeats,
                       tbd_bilinear_mode mode,
                       const generated_kernel* kernel);
    void allocate_slots();
    void finish_slot(frame_slot& slot, std::vector<tbd_detection>* detections);

    tbd_layout d_layout;
    tbd_table d_table;
    std::size_t d_candidate_capacity = 0;
    kernel_kind d_kernel = kernel_kind::generic;
    tbd_bilinear_mode d_bilinear = tbd_bilinear_mode::software;
    std::vector<std::size_t> d_order;
    std::string d_generated_failure; //!< why "auto" fell back to the generic kernel

    // Created and destroyed with the engine's device current.
    std::unique_ptr<cuda_stream> d_stream;
    std::unique_ptr<cuda_stream> d_upload_stream;
    std::unique_ptr<cuda_stream> d_download_stream;
    stream_order d_state_stream;
    device_buffer<float> d_state_memory[2];
    float* d_state[2] = { nullptr, nullptr }; //!< texture-aligned starts
    int d_current = 0;
    device_buffer<tbd_tap> d_taps;
    device_buffer<int> d_first;
    std::vector<cudaTextureObject_t> d_textures[2];
    device_buffer<cudaTextureObject_t> d_texture_table[2];
    generated_kernel d_generated;
    device_buffer<float> d_scratch_frame;
    device_buffer<float> d_scratch_map;
    device_buffer<std::int32_t> d_scratch_argmax;
    std::unique_ptr<detection_buffers> d_device_detection;
    std::vector<std::unique_ptr<frame_slot>> d_slots;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_ST_TBD_CUDA_H */
