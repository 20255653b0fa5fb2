/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pydoc_macros.h"
#define D(...) DOC(gr, cudadsp, __VA_ARGS__)
/*
  Docstrings for the Python bindings of st_tbd_ff (written by
  hand; used as the docstring header when Doxygen is not run).
 */


static const char* __doc_gr_cudadsp_st_tbd_ff = R"doc(Spatio-temporal track-before-detect filter over image frames (Mazurek 2012).

Input: one frame per item, a vector of width * height floats, row major. For M motion
hypotheses the state P[m] (0 at the start) is updated for each frame X as

    P^-[m](x, y) = sum_k w[m][k] * P[src[m][k]](x - dx[m][k], y - dy[m][k])
    P[m](x, y)   = alpha * P^-[m](x, y) + (1 - alpha) * X(x, y)
    D(x, y)      = max_m P[m](x, y),   A(x, y) = argmax_m P[m](x, y)

with bilinear interpolation at fractional shifts and zero outside the grid. The state
carries across work() calls. Non-finite input samples count as 0.

Output 0: the detection map D (width * height floats per frame).
Output 1 (optional): the argmax hypothesis index as floats (exact), smallest index on
ties; unconnected, it is not computed.
Message port "detections": a dict per local maximum of D above the threshold, keys
frame (input item number), x, y (cell), vx, vy (velocity of the argmax hypothesis),
value (D there); at most max_detections_per_frame per frame (the largest).
Reset: reset(), any message on the "reset" port, or a stream tag "tbd_reset" on the
frame that starts afresh. Docs: docs/blocks/st_tbd_ff.md.)doc";


static const char* __doc_gr_cudadsp_st_tbd_ff_st_tbd_ff = R"doc()doc";


static const char* __doc_gr_cudadsp_st_tbd_ff_make = R"doc(Make a track-before-detect filter.

Args:
    width, height: grid size in pixels (>= 1 each).
    hypotheses: list of hypotheses, each (vx, vy, [(source, dx, dy, weight), ...]):
        the hypothesis' velocity in pixels per frame (reported with detections) and
        its transitions, weight * P[source](x - dx, y - dy) summed (|vx|, |vy|, |dx|,
        |dy| <= 64; each hypothesis' |weight|s sum to at most 1); e.g.
        cudadsp.tbd_velocity_grid(1.0, 0.5, 0.3).
    alpha: forgetting factor, 0 < alpha < 1 (settles in about 3 / (1 - alpha) frames).
    threshold: detection threshold on D (finite).
    device: "auto", "cpu", "cuda" or "cuda:N".
    kernel: CUDA kernel, "auto", "generic" or "generated" (NVRTC).
    bilinear: CUDA interpolation, "auto", "texture" or "software".
    autotune: run the LREI autotuner on the generated kernel's line order when none is
        cached for this device and configuration.
    max_detections_per_frame: most detections published per frame (>= 1).
    batch_frames: frames handed to the engine at once (GPU batch, latency); 0: about
        32 MiB of frames, 1 to 256.

Raises:
    ValueError: a parameter is out of range or malformed (the message names it, e.g.
        "hypotheses[3].transitions[1].source").
    RuntimeError: CUDA was asked for but no such device exists.)doc";


static const char* __doc_gr_cudadsp_st_tbd_ff_default_batch_frames = R"doc(The frames per batch that batch_frames=0 picks for a width x height grid.)doc";


static const char* __doc_gr_cudadsp_st_tbd_ff_set_alpha = R"doc(Forgetting factor from the next frame processed. ValueError unless 0 < alpha < 1.)doc";


static const char* __doc_gr_cudadsp_st_tbd_ff_alpha = R"doc(The current forgetting factor.)doc";


static const char* __doc_gr_cudadsp_st_tbd_ff_set_threshold = R"doc(Detection threshold from the next frame processed. ValueError unless finite.)doc";


static const char* __doc_gr_cudadsp_st_tbd_ff_threshold = R"doc(The current detection threshold.)doc";


static const char* __doc_gr_cudadsp_st_tbd_ff_reset = R"doc(Zero the state at the start of the next work() call.)doc";


static const char* __doc_gr_cudadsp_st_tbd_ff_width = R"doc(Grid width in pixels.)doc";


static const char* __doc_gr_cudadsp_st_tbd_ff_height = R"doc(Grid height in pixels.)doc";


static const char* __doc_gr_cudadsp_st_tbd_ff_hypotheses = R"doc(The hypotheses as a list of (vx, vy, [(source, dx, dy, weight), ...]).)doc";


static const char* __doc_gr_cudadsp_st_tbd_ff_max_detections_per_frame = R"doc(Most detections published per frame.)doc";


static const char* __doc_gr_cudadsp_st_tbd_ff_batch_frames = R"doc(Frames handed to the engine at once.)doc";


static const char* __doc_gr_cudadsp_st_tbd_ff_detections_dropped = R"doc(Detection messages dropped for a subscriber that took none for 2 s while its queue held detection_queue_limit() or more (one per message and subscriber).)doc";


static const char* __doc_gr_cudadsp_st_tbd_ff_detection_queue_limit = R"doc(Most detection messages queued at a subscriber, max(1024, 2 x max_detections_per_frame): below it the block waits for the subscriber.)doc";


static const char* __doc_gr_cudadsp_st_tbd_ff_backend = R"doc(The backend in use: "cpu" or "cuda:N".)doc";


static const char* __doc_gr_cudadsp_st_tbd_ff_implementation = R"doc(The engine's implementation: "cpu", "cuda generic software", "cuda generated texture", ...)doc";

