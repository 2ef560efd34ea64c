// restore-ceiling-libime — bench/restore-ceiling's exhaustive ranking with
// libime's zh_CN.lm (Debian libime-data-language-model, a KenLM trigram,
// LGPL-2.1+) instead of sunpinyin's model: the rank of the hidden word
// among the same candidates (sunpinyin's lexicon words of its length, a
// file from `restore-ceiling --lexicon`), each scored as the last two
// words before the mask (libime's best segmentation of the left context),
// the candidate and the first two after it.  Not part of jinghua: a
// measuring tool built by bench/restore-ceiling with g++ and libimecore-dev.
//
// Input lines: word TAB left TAB right.  Output: in-lexicon TAB rank.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>
#include "libime-segment.h"

static libime::LanguageModel *lm;

// the best segmentation of s into the model's words, as libime-score.cc
static std::vector<std::string> segment(const std::string &s)
{
	std::vector<std::string_view> v = best_segmentation(*lm, s, nullptr);
	return std::vector<std::string>(v.begin(), v.end());
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		std::cerr << "usage: restore-ceiling-libime LEXICON [zh_CN.lm]\n";
		return 2;
	}
	lm = new libime::LanguageModel(argc > 2 ? argv[2] : "/usr/lib/x86_64-linux-gnu/libime/zh_CN.lm");
	std::vector<std::string> lex[5];
	std::ifstream lf(argv[1]);
	for (std::string l; std::getline(lf, l);)
		if (l.size() > 2 && l[0] >= '1' && l[0] <= '4')
			lex[l[0] - '0'].push_back(l.substr(2));
	for (std::string line; std::getline(std::cin, line);) {
		std::vector<std::string> f;
		std::stringstream ss(line);
		for (std::string x; std::getline(ss, x, '\t');)
			f.push_back(x);
		f.resize(3);
		size_t n = char_starts(f[0]).size() - 1;
		if (n < 1 || n > 4) {
			std::printf("0\t-1\n");
			continue;
		}
		std::vector<std::string> l = segment(f[1]), r = segment(f[2]);
		std::vector<std::string> ctx_l(l.size() > 2 ? l.end() - 2 : l.begin(), l.end());
		std::vector<std::string> ctx_r(r.begin(), r.size() > 2 ? r.begin() + 2 : r.end());
		auto score = [&](const std::string &w) {
			std::vector<std::string_view> p(ctx_l.begin(), ctx_l.end());
			p.push_back(w);
			p.insert(p.end(), ctx_r.begin(), ctx_r.end());
			return lm->wordsScore(lm->nullState(), p);
		};
		double t = score(f[0]);
		long better = 0;
		bool in = false;
		for (const std::string &w : lex[n]) {
			if (w == f[0])
				in = true;
			else if (score(w) > t + 1e-6)
				better++;
		}
		std::printf("%d\t%ld\n", in ? 1 : 0, in ? better : -1L);
		std::fflush(stdout);
	}
	return 0;
}
