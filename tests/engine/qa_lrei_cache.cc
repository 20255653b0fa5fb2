/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_lrei: the tuning cache (configuration hash, round trip, keying, missing,
// corrupt and invalid files, store failures, default directory).

#include "qa_lrei.h"
#include "tbd/tuning_cache.h"
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

class env_guard
{
public:
    explicit env_guard(const char* name) : d_name(name)
    {
        const char* v = std::getenv(name);
        d_had = v != nullptr;
        if (d_had)
            d_value = v;
    }
    ~env_guard()
    {
        if (d_had)
            ::setenv(d_name.c_str(), d_value.c_str(), 1);
        else
            ::unsetenv(d_name.c_str());
    }
    env_guard(const env_guard&) = delete;
    env_guard& operator=(const env_guard&) = delete;

private:
    std::string d_name, d_value;
    bool d_had = false;
};

class temp_dir
{
public:
    temp_dir()
    {
        std::string pattern =
            (std::filesystem::temp_directory_path() / "qa_lrei_XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr)
            throw std::runtime_error("mkdtemp failed");
        d_path = pattern;
    }
    ~temp_dir()
    {
        std::error_code ec;
        std::filesystem::remove_all(d_path, ec);
    }
    const std::string& path() const { return d_path; }

private:
    std::string d_path;
};

void write_text(const std::string& path, const std::string& text)
{
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << text;
    CPPUNIT_ASSERT_MESSAGE("cannot write " + path, f.good());
}

std::string read_text(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f),
                       std::istreambuf_iterator<char>());
}

std::size_t count_occurrences(const std::string& text, const std::string& what)
{
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos;
         at = text.find(what, at + 1))
        ++n;
    return n;
}

tuning_key key_a()
{
    tuning_key k;
    k.device_name = "NVIDIA H100 80GB HBM3";
    k.compute_major = 9;
    k.compute_minor = 0;
    k.config_hash = tuning_config_hash("st_tbd w=512 h=512 M=25 ...");
    return k;
}

tuning_entry entry_with(std::size_t n, std::uint64_t seed, double best, double start)
{
    qa::gaussian_source rng(seed);
    tuning_entry e;
    e.order = random_permutation(n, rng);
    e.best_ms = best;
    e.start_ms = start;
    e.bilinear = "texture";
    e.timestamp = "2026-03-01T12:34:56Z";
    e.version = "1.0.0-test";
    return e;
}

const char* const cache_head =
    "{\"format\": \"gr-cudadsp tuning cache\", \"format_version\": 1, \"entries\": [";

std::string hand_entry(const std::string& order, const std::string& rest)
{
    return "{\"device\": \"NVIDIA H100 80GB HBM3\", \"compute_capability\": \"9.0\", "
           "\"config_hash\": \"" +
           key_a().config_hash + "\", \"order\": " + order + rest + "}";
}

const char* const hand_rest = ", \"best_ms\": 0.5, \"start_ms\": 0.75, \"bilinear\": "
                              "\"software\", \"timestamp\": \"t\", \"version\": \"v\"";

} // namespace

void qa_lrei::hash_known_values()
{
    // Published FNV-1a 64 test vectors.
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(0xcbf29ce484222325ull), fnv1a64(""));
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(0xaf63dc4c8601ec8cull), fnv1a64("a"));
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(0x85944171f73967e8ull), fnv1a64("foobar"));
    CPPUNIT_ASSERT_EQUAL(std::string("85944171f73967e8"), tuning_config_hash("foobar"));
    CPPUNIT_ASSERT_EQUAL(std::string("cbf29ce484222325"), tuning_config_hash(""));
    // Embedded NUL bytes count.
    CPPUNIT_ASSERT(tuning_config_hash(std::string("a\0b", 3)) != tuning_config_hash("a"));
    CPPUNIT_ASSERT(tuning_config_hash("w=512") != tuning_config_hash("w=513"));
}

void qa_lrei::cache_round_trip()
{
    temp_dir tmp;
    const tuning_cache cache(tmp.path() + "/nested/dir");
    CPPUNIT_ASSERT_EQUAL(tmp.path() + "/nested/dir/tuning.json", cache.path());
    tuning_key key = key_a();
    // Quotes, backslash, a control character and non-ASCII must survive.
    key.device_name = "GPU \"quoted\" back\\slash\ttab caf\xc3\xa9 \x01";
    tuning_entry e = entry_with(257, 1, 0.123456789012345678, 0.1300000000000001);
    const tuning_store_result s = cache.store(key, e);
    CPPUNIT_ASSERT_MESSAGE(s.message, s.ok);
    const tuning_lookup l = cache.lookup(key, 257);
    CPPUNIT_ASSERT_MESSAGE(l.message, l.hit());
    CPPUNIT_ASSERT(l.entry.order == e.order);
    CPPUNIT_ASSERT_EQUAL(e.best_ms, l.entry.best_ms); // exact: shortest round trip
    CPPUNIT_ASSERT_EQUAL(e.start_ms, l.entry.start_ms);
    CPPUNIT_ASSERT_EQUAL(e.bilinear, l.entry.bilinear);
    CPPUNIT_ASSERT_EQUAL(e.timestamp, l.entry.timestamp);
    CPPUNIT_ASSERT_EQUAL(e.version, l.entry.version);
    // No temporary file left behind.
    std::size_t files = 0;
    for (const auto& f : std::filesystem::directory_iterator(cache.directory()))
        files += f.path().filename().string().find(".tmp") == std::string::npos ? 0 : 1;
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), files);

    // Empty timestamp and version are filled in.
    tuning_entry blank = entry_with(3, 2, 1.0, 1.0);
    blank.timestamp.clear();
    blank.version.clear();
    CPPUNIT_ASSERT(cache.store(key_a(), blank).ok);
    const tuning_lookup lb = cache.lookup(key_a(), 3);
    CPPUNIT_ASSERT_MESSAGE(lb.message, lb.hit());
    const std::string& ts = lb.entry.timestamp;
    CPPUNIT_ASSERT_EQUAL(std::size_t(20), ts.size());
    CPPUNIT_ASSERT(ts[4] == '-' && ts[7] == '-' && ts[10] == 'T' && ts[13] == ':' &&
                   ts[16] == ':' && ts[19] == 'Z');
    CPPUNIT_ASSERT(ts.compare(0, 2, "20") == 0);
    CPPUNIT_ASSERT_EQUAL(tuning_library_version(), lb.entry.version);
    CPPUNIT_ASSERT(!lb.entry.version.empty());
    // Both keys coexist.
    CPPUNIT_ASSERT(cache.lookup(key, 257).hit());
}

void qa_lrei::cache_keying()
{
    temp_dir tmp;
    const tuning_cache cache(tmp.path());
    const tuning_key a = key_a();
    const tuning_entry ea = entry_with(40, 3, 0.4, 0.5);
    CPPUNIT_ASSERT(cache.store(a, ea).ok);

    tuning_key other = a;
    other.device_name = "NVIDIA H200";
    CPPUNIT_ASSERT(cache.lookup(other, 40).status == tuning_lookup_status::no_entry);
    other = a;
    other.compute_major = 8;
    CPPUNIT_ASSERT(cache.lookup(other, 40).status == tuning_lookup_status::no_entry);
    other = a;
    other.compute_minor = 9;
    CPPUNIT_ASSERT(cache.lookup(other, 40).status == tuning_lookup_status::no_entry);
    // 9.0 is not 90.0 nor 0.90: the capability text separates the two numbers.
    other = a;
    other.compute_major = 90;
    CPPUNIT_ASSERT(!cache.lookup(other, 40).hit());
    other = a;
    other.config_hash = tuning_config_hash("st_tbd w=512 h=512 M=25 ...!");
    const tuning_lookup miss = cache.lookup(other, 40);
    CPPUNIT_ASSERT(miss.status == tuning_lookup_status::no_entry);
    CPPUNIT_ASSERT(miss.message.find(other.config_hash) != std::string::npos);
    CPPUNIT_ASSERT(cache.lookup(a, 40).hit());

    // Entries under other keys coexist and are independent.
    tuning_key b = a;
    b.device_name = "NVIDIA H200";
    tuning_key c = a;
    c.config_hash = other.config_hash;
    const tuning_entry eb = entry_with(40, 4, 0.2, 0.3);
    const tuning_entry ec = entry_with(12, 5, 1.5, 1.5);
    CPPUNIT_ASSERT(cache.store(b, eb).ok);
    CPPUNIT_ASSERT(cache.store(c, ec).ok);
    CPPUNIT_ASSERT(cache.lookup(a, 40).entry.order == ea.order);
    CPPUNIT_ASSERT(cache.lookup(b, 40).entry.order == eb.order);
    CPPUNIT_ASSERT(cache.lookup(c, 12).entry.order == ec.order);
    CPPUNIT_ASSERT_EQUAL(0.2, cache.lookup(b, 40).entry.best_ms);

    // Storing under an existing key replaces that entry only.
    const tuning_entry ea2 = entry_with(40, 6, 0.35, 0.5);
    CPPUNIT_ASSERT(cache.store(a, ea2).ok);
    CPPUNIT_ASSERT(cache.lookup(a, 40).entry.order == ea2.order);
    CPPUNIT_ASSERT(cache.lookup(b, 40).entry.order == eb.order);
    CPPUNIT_ASSERT_EQUAL(std::size_t(3),
                         count_occurrences(read_text(cache.path()), "\"config_hash\""));

    // A second cache object on the same directory sees the same file.
    CPPUNIT_ASSERT(tuning_cache(tmp.path()).lookup(c, 12).hit());
}

void qa_lrei::cache_missing_and_corrupt_files()
{
    temp_dir tmp;
    const tuning_cache absent(tmp.path() + "/does/not/exist");
    CPPUNIT_ASSERT(absent.lookup(key_a(), 3).status == tuning_lookup_status::no_file);

    const tuning_cache cache(tmp.path());
    std::string deep(200000, '[');
    const std::vector<std::string> corrupt = {
        "",
        "{not json",
        "[]",
        "{\"format\": \"something else\", \"format_version\": 1, \"entries\": []}",
        "{\"format\": \"gr-cudadsp tuning cache\", \"format_version\": 2, "
        "\"entries\": []}",
        "{\"format\": \"gr-cudadsp tuning cache\", \"format_version\": 1, "
        "\"entries\": {}}",
        std::string(cache_head) + hand_entry("[0, 1, 2]", hand_rest), // truncated
        std::string(cache_head) + hand_entry("[0, 1, 2]", hand_rest) + "]} trailing",
        std::string("{\"format\": \"gr-cudadsp\0 tuning cache\"}", 37),
        "{\"format\": \"gr-cudadsp tuning cache\", \"format_version\": 1e999, "
        "\"entries\": []}",
        "{\"format\": \"\\ud800\"}",
        deep,
    };
    for (std::size_t i = 0; i < corrupt.size(); ++i) {
        write_text(cache.path(), corrupt[i]);
        const tuning_lookup l = cache.lookup(key_a(), 3);
        CPPUNIT_ASSERT_MESSAGE("case " + std::to_string(i) + ": " + l.message,
                               l.status == tuning_lookup_status::corrupt_file);
        CPPUNIT_ASSERT(!l.message.empty());
    }
    // Storing over a corrupt file keeps it aside and writes a good one.
    write_text(cache.path(), "{not json");
    const tuning_entry e = entry_with(3, 7, 0.5, 0.6);
    const tuning_store_result s = cache.store(key_a(), e);
    CPPUNIT_ASSERT_MESSAGE(s.message, s.ok);
    CPPUNIT_ASSERT(s.message.find("replaced") != std::string::npos);
    CPPUNIT_ASSERT_EQUAL(std::string("{not json"), read_text(cache.path() + ".corrupt"));
    CPPUNIT_ASSERT(cache.lookup(key_a(), 3).hit());
}

void qa_lrei::cache_rejects_invalid_entries()
{
    temp_dir tmp;
    const tuning_cache cache(tmp.path());
    const auto status =
        [&](const std::string& order, const std::string& rest, std::size_t n) {
            write_text(cache.path(),
                       std::string(cache_head) + hand_entry(order, rest) + "]}");
            return cache.lookup(key_a(), n);
        };
    // A valid hand-written file (not produced by store()) is read: the reader is
    // checked against the format, not only against the writer.
    const tuning_lookup ok = status(" [ 2 ,0,\n1 ] ", hand_rest, 3);
    CPPUNIT_ASSERT_MESSAGE(ok.message, ok.hit());
    CPPUNIT_ASSERT((ok.entry.order == std::vector<std::size_t>{ 2, 0, 1 }));
    CPPUNIT_ASSERT_EQUAL(0.5, ok.entry.best_ms);
    CPPUNIT_ASSERT_EQUAL(0.75, ok.entry.start_ms);
    CPPUNIT_ASSERT_EQUAL(std::string("software"), ok.entry.bilinear);

    const auto invalid = tuning_lookup_status::invalid_entry;
    CPPUNIT_ASSERT(status("[0, 1, 1]", hand_rest, 3).status == invalid);
    CPPUNIT_ASSERT(status("[0, 2]", hand_rest, 3).status == invalid);
    CPPUNIT_ASSERT(status("[0, 1, 3]", hand_rest, 3).status == invalid);
    CPPUNIT_ASSERT(status("[2, 0, 1]", hand_rest, 4).status == invalid);
    CPPUNIT_ASSERT(status("[2, 0, 1]", hand_rest, 2).status == invalid);
    CPPUNIT_ASSERT(status("[-1, 0, 1]", hand_rest, 3).status == invalid);
    CPPUNIT_ASSERT(status("[0.5, 0, 1]", hand_rest, 3).status == invalid);
    CPPUNIT_ASSERT(status("[\"0\", 1, 2]", hand_rest, 3).status == invalid);
    CPPUNIT_ASSERT(status("{}", hand_rest, 3).status == invalid);
    // best slower than start breaks "never slower than the sorted start".
    CPPUNIT_ASSERT(status("[2, 0, 1]",
                          ", \"best_ms\": 0.9, \"start_ms\": 0.75, \"bilinear\": "
                          "\"software\", \"timestamp\": \"t\", \"version\": \"v\"",
                          3)
                       .status == invalid);
    CPPUNIT_ASSERT(status("[2, 0, 1]",
                          ", \"best_ms\": 0.5, \"start_ms\": 0.75, \"timestamp\": "
                          "\"t\", \"version\": \"v\"",
                          3)
                       .status == invalid);
    CPPUNIT_ASSERT(status("[2, 0, 1]",
                          ", \"best_ms\": \"fast\", \"start_ms\": 0.75, \"bilinear\": "
                          "\"software\", \"timestamp\": \"t\", \"version\": \"v\"",
                          3)
                       .status == invalid);
    const tuning_lookup why = status("[0, 1, 1]", hand_rest, 3);
    CPPUNIT_ASSERT(why.message.find("permutation") != std::string::npos);

    // store() refuses what lookup() would reject.
    tuning_entry bad = entry_with(5, 8, 0.5, 0.6);
    bad.order[0] = bad.order[1];
    CPPUNIT_ASSERT_THROW(cache.store(key_a(), bad), std::invalid_argument);
    bad = entry_with(5, 8, 0.7, 0.6);
    CPPUNIT_ASSERT_THROW(cache.store(key_a(), bad), std::invalid_argument);
    bad = entry_with(5, 8, std::numeric_limits<double>::quiet_NaN(), 0.6);
    CPPUNIT_ASSERT_THROW(cache.store(key_a(), bad), std::invalid_argument);
    tuning_key nameless = key_a();
    nameless.device_name.clear();
    CPPUNIT_ASSERT_THROW(cache.store(nameless, entry_with(5, 8, 0.5, 0.6)),
                         std::invalid_argument);
    tuning_key hashless = key_a();
    hashless.config_hash.clear();
    CPPUNIT_ASSERT_THROW(cache.store(hashless, entry_with(5, 8, 0.5, 0.6)),
                         std::invalid_argument);
}

void qa_lrei::cache_keeps_unknown_members()
{
    temp_dir tmp;
    const tuning_cache cache(tmp.path());
    write_text(
        cache.path(),
        "{\"format\": \"gr-cudadsp tuning cache\", \"format_version\": 1, "
        "\"note\": \"caf\\u00e9 \\ud83d\\ude00\", \"entries\": [" +
            hand_entry("[1, 0]", std::string(hand_rest) + ", \"extra\": [true, null]") +
            ", 17]}");
    tuning_key b = key_a();
    b.device_name = "other";
    CPPUNIT_ASSERT(cache.store(b, entry_with(4, 9, 1.0, 2.0)).ok);
    const std::string text = read_text(cache.path());
    CPPUNIT_ASSERT(text.find("\"note\": \"caf\xc3\xa9 \xf0\x9f\x98\x80\"") !=
                   std::string::npos);
    CPPUNIT_ASSERT(text.find("\"extra\": [true, null]") != std::string::npos);
    CPPUNIT_ASSERT(cache.lookup(key_a(), 2).hit());
    CPPUNIT_ASSERT(cache.lookup(b, 4).hit());
}

void qa_lrei::cache_store_failures()
{
    temp_dir tmp;
    write_text(tmp.path() + "/plain_file", "x");
    // A directory below a regular file can be neither created nor written.
    const tuning_cache cache(tmp.path() + "/plain_file/sub");
    const tuning_store_result s = cache.store(key_a(), entry_with(3, 1, 0.5, 0.6));
    CPPUNIT_ASSERT(!s.ok);
    CPPUNIT_ASSERT(!s.message.empty());
    CPPUNIT_ASSERT(!cache.lookup(key_a(), 3).hit());
}

void qa_lrei::cache_default_directory()
{
    env_guard xdg("XDG_CACHE_HOME");
    env_guard home("HOME");
    temp_dir tmp;
    ::setenv("XDG_CACHE_HOME", (tmp.path() + "/xdg").c_str(), 1);
    ::setenv("HOME", (tmp.path() + "/home").c_str(), 1);
    CPPUNIT_ASSERT_EQUAL(tmp.path() + "/xdg/gr-cudadsp", default_tuning_cache_dir());
    const tuning_cache cache;
    CPPUNIT_ASSERT_EQUAL(tmp.path() + "/xdg/gr-cudadsp/tuning.json", cache.path());
    CPPUNIT_ASSERT(cache.store(key_a(), entry_with(6, 2, 0.5, 0.5)).ok);
    CPPUNIT_ASSERT(
        std::filesystem::is_regular_file(tmp.path() + "/xdg/gr-cudadsp/tuning.json"));
    CPPUNIT_ASSERT(tuning_cache().lookup(key_a(), 6).hit());

    // An explicit directory wins over the environment.
    const tuning_cache explicit_dir(tmp.path() + "/mine");
    CPPUNIT_ASSERT_EQUAL(tmp.path() + "/mine/tuning.json", explicit_dir.path());
    CPPUNIT_ASSERT(explicit_dir.lookup(key_a(), 6).status ==
                   tuning_lookup_status::no_file);

    // Relative or empty XDG_CACHE_HOME is ignored (XDG rule): ~/.cache.
    ::setenv("XDG_CACHE_HOME", "relative/cache", 1);
    CPPUNIT_ASSERT_EQUAL(tmp.path() + "/home/.cache/gr-cudadsp",
                         default_tuning_cache_dir());
    ::setenv("XDG_CACHE_HOME", "", 1);
    CPPUNIT_ASSERT_EQUAL(tmp.path() + "/home/.cache/gr-cudadsp",
                         default_tuning_cache_dir());
    ::unsetenv("XDG_CACHE_HOME");
    CPPUNIT_ASSERT_EQUAL(tmp.path() + "/home/.cache/gr-cudadsp",
                         tuning_cache().directory());
    CPPUNIT_ASSERT(!tuning_cache().lookup(key_a(), 6).hit());
}

} // namespace core
} // namespace cudadsp
} // namespace gr
