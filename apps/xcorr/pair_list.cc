/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "pair_list.h"
#include "prm_file.h"
#include "regular_file.h"
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>

namespace gr {
namespace cudadsp {
namespace xcorr {

namespace {

std::string prm_stem(const std::string& prm)
{
    const std::size_t slash = prm.rfind('/');
    const std::string base = slash == std::string::npos ? prm : prm.substr(slash + 1);
    return base.substr(0, base.size() - 4); // check_prm_name: ends in ".PRM"
}

// The folder as written, without a leading "./" and trailing slashes, so that "a",
// "./a" and "a/" are recognised as one folder.
std::string folder_key(std::string folder)
{
    while (folder.size() > 2 && folder.compare(0, 2, "./") == 0)
        folder.erase(0, 2);
    while (folder.size() > 1 && folder.back() == '/')
        folder.pop_back();
    return folder;
}

std::vector<std::string> words_of(const std::string& line)
{
    std::vector<std::string> words;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
            ++i;
        const std::size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t')
            ++i;
        if (i > start)
            words.push_back(line.substr(start, i - start));
    }
    return words;
}

} // namespace

std::string default_pair_folder(const std::string& master_prm,
                                const std::string& aligned_prm)
{
    return prm_stem(master_prm) + "_" + prm_stem(aligned_prm);
}

std::vector<pair_entry> parse_pair_list(const std::string& text,
                                        const std::string& list_name)
{
    std::vector<pair_entry> pairs;
    std::map<std::string, std::size_t> folder_lines;
    std::istringstream lines(text);
    std::string line;
    std::size_t number = 0;
    while (std::getline(lines, line)) {
        ++number;
        const std::string where = list_name + " line " + std::to_string(number) + ": ";
        line = line.substr(0, line.find('#'));
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        const std::vector<std::string> words = words_of(line);
        if (words.empty())
            continue;
        if (words.size() > 3 || words.size() < 2)
            throw input_error(
                where + "expected 'master.PRM aligned.PRM [FOLDER]', found " +
                std::to_string(words.size()) + (words.size() == 1 ? " word" : " words"));
        pair_entry e;
        e.master_prm = words[0];
        e.aligned_prm = words[1];
        for (const std::string& prm : { e.master_prm, e.aligned_prm }) {
            try {
                check_prm_name(prm);
            } catch (const input_error& err) {
                throw input_error(where + err.what());
            }
        }
        e.folder = words.size() == 3 ? words[2]
                                     : default_pair_folder(e.master_prm, e.aligned_prm);
        e.line = number;
        const auto inserted = folder_lines.emplace(folder_key(e.folder), number);
        if (!inserted.second)
            throw input_error(
                where + "folder '" + e.folder + "' is also the folder of line " +
                std::to_string(inserted.first->second) +
                " (each pair needs a folder of its own; give a third word)");
        pairs.push_back(e);
    }
    if (pairs.empty())
        throw input_error(list_name +
                          ": no pairs (one 'master.PRM aligned.PRM [FOLDER]' a "
                          "line is expected)");
    return pairs;
}

std::vector<pair_entry> read_pair_list(const std::string& path)
{
    if (path == "-") {
        const std::string text{ std::istreambuf_iterator<char>(std::cin),
                                std::istreambuf_iterator<char>() };
        if (std::cin.bad())
            throw input_error("--pairs -: cannot read standard input");
        return parse_pair_list(text, "standard input");
    }
    return parse_pair_list(read_regular_file(path, "pair list '" + path + "'"),
                           "pair list '" + path + "'");
}

} // namespace xcorr
} // namespace cudadsp
} // namespace gr
