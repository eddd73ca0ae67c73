// Times the reference fan calculator (ChineseOfficialMahjongHelper's mahjong-algorithm) on a
// corpus file written by `cargo bench -p tongcheng-core --bench fan_corpus -- --write FILE`,
// the same way `fan_corpus -- --time FILE` times ours; prints `ref<TAB>kind<TAB>hands<TAB>ns`.
//
// The reference is not part of this repository. Build this file together with the reference's
// Classes/mahjong-algorithm/fan_calculator.cpp, shanten.cpp and stringify.cpp (commit abc04ea;
// its directory on the include path) the way its users build it: optimised, asserts off
// (g++ -O3 -DNDEBUG -std=c++17). Then run it on the corpus and, one after the other,
// `cargo bench -p tongcheng-core --bench fan_corpus -- --time FILE`, several rounds, and
// compare medians (docs/performance.md): the figures move with the machine's load.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>
#include "fan_calculator.h"
#include "stringify.h"
using namespace mahjong;
static const int ROUNDS = 9, REPS = 50;
static double median(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s CORPUS_FILE\n", argv[0]);
        return 2;
    }
    std::ifstream in(argv[1]);
    if (!in) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 2;
    }
    std::string line;
    std::vector<std::string> kinds;
    std::vector<calculate_param_t> params;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        std::vector<std::string> col;
        std::stringstream ss(line);
        std::string c;
        while (std::getline(ss, c, '\t')) col.push_back(c);
        if (col.size() < 6) {
            fprintf(stderr, "not six columns: %s\n", line.c_str());
            return 1;
        }
        calculate_param_t p;
        memset(&p, 0, sizeof p);
        if (string_to_tiles(col[1].c_str(), col[1].size(), &p.hand_tiles, &p.win_tile) != 0) {
            fprintf(stderr, "bad hand %s\n", col[1].c_str());
            return 1;
        }
        p.win_flag = (win_flag_t)std::stoi(col[2]);
        p.flower_count = (uint8_t)std::stoi(col[3]);
        p.prevalent_wind = (wind_t)std::stoi(col[4]);
        p.seat_wind = (wind_t)std::stoi(col[5]);
        fan_table_t ft = {0};
        int r = calculate_fan(&p, &ft);
        if (r <= 0) { fprintf(stderr, "not scored (%d): %s\n", r, line.c_str()); return 1; }
        kinds.push_back(col[0]);
        params.push_back(p);
    }
    size_t n = params.size();
    std::vector<std::vector<double>> per(n);
    std::vector<double> streaming;
    volatile int sink = 0; static fan_table_t ft;
    typedef std::chrono::steady_clock clk;
    for (int round = 0; round < ROUNDS; ++round) {
        auto t0 = clk::now();
        for (size_t i = 0; i < n; ++i) { sink += calculate_fan(&params[i], &ft); }
        streaming.push_back(std::chrono::duration<double, std::nano>(clk::now() - t0).count() / n);
        for (size_t i = 0; i < n; ++i) {
            auto t = clk::now();
            for (int k = 0; k < REPS; ++k) { sink += calculate_fan(&params[i], &ft); }
            per[i].push_back(std::chrono::duration<double, std::nano>(clk::now() - t).count() / REPS);
        }
    }
    std::map<std::string, std::vector<double>> by;
    std::vector<double> all;
    for (size_t i = 0; i < n; ++i) { double m = median(per[i]); by[kinds[i]].push_back(m); all.push_back(m); }
    for (auto &kv : by) printf("ref\t%s\t%zu\t%.0f\n", kv.first.c_str(), kv.second.size(), median(kv.second));
    printf("ref\tall\t%zu\t%.0f\n", n, median(all));
    printf("ref\tstreaming\t%zu\t%.0f\n", n, median(streaming));
}
