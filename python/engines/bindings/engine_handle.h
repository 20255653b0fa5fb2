/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_ENGINES_ENGINE_HANDLE_H
#define INCLUDED_CUDADSP_ENGINES_ENGINE_HANDLE_H

// An engine as Python holds it, for the bindings of cudadsp._engines.

#include <memory>
#include <mutex>
#include <string>

namespace cudadsp_engines {

/*!
 * \brief One engine of gnuradio-cudadsp-core (made by Engine::make(config)) with the lock
 * its calls take turns on.
 *
 * The bindings release the GIL while an engine computes, so two Python threads may call
 * one engine at once (the Python functions share cached engines); an engine keeps
 * workspace and, for streams, state, so its calls run one at a time through locked().
 * The configuration and the device are fixed at construction and read without the lock.
 */
template <typename Engine>
class engine_handle
{
public:
    template <typename Config>
    explicit engine_handle(const Config& config) : d_engine(Engine::make(config))
    {
    }

    const auto& config() const { return d_engine->config(); }

    //! "cpu" or "cuda:N": the device the engine runs on.
    std::string backend() const { return d_engine->device().to_string(); }

    //! fn(engine) with the lock held; its result.
    template <typename Fn>
    decltype(auto) locked(Fn&& fn)
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return fn(*d_engine);
    }

private:
    std::unique_ptr<Engine> d_engine;
    std::mutex d_mutex;
};

} // namespace cudadsp_engines

#endif /* INCLUDED_CUDADSP_ENGINES_ENGINE_HANDLE_H */
