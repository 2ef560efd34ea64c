// libime-score — scores windows of text with libime's language model
// (Debian libime-data-language-model, zh_CN.lm: a KenLM trigram), for
// bench/restore-lm, which compares it with sunpinyin's word trigram as
// the rescorer of mask restorations.  Not part of jinghua: a measuring
// tool, built by bench/restore-lm with g++ and libimecore-dev.
//
// Each input line: a window of text (UTF-8, no tab).  Output: the natural
// log of the best segmentation of the window into the model's words
// (Viterbi over positions, one best path each, words of up to 6
// characters; a character the model lacks is its unknown word), as
// mask_restore.c scores windows with sunpinyin's model.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>
#include <libime/core/languagemodel.h>

static std::vector<size_t> starts(const std::string &s)
{
	std::vector<size_t> v;
	for (size_t i = 0; i < s.size(); i++)
		if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80)
			v.push_back(i);
	v.push_back(s.size());
	return v;
}

int main(int argc, char **argv)
{
	const char *file = argc > 1 ? argv[1] : "/usr/lib/x86_64-linux-gnu/libime/zh_CN.lm";
	libime::LanguageModel lm(file);
	std::string line;
	while (std::getline(std::cin, line)) {
		std::vector<size_t> at = starts(line);
		size_t n = at.size() - 1;
		// one best path per position, kept as its words: wordsScore
		// scores a path from the null state (libime's public API has no
		// step that hands back the next state without its lattice types)
		std::vector<double> dp(n + 1, -1e30);
		std::vector<std::vector<std::string_view>> path(n + 1);
		dp[0] = 0;
		for (size_t i = 1; i <= n; i++)
			for (size_t j = i; j-- > 0 && i - j <= 6;) {
				if (dp[j] <= -1e29)
					continue;
				std::string_view w(line.data() + at[j], at[i] - at[j]);
				if (lm.isUnknown(lm.index(w), w) && i - j > 1)
					continue;
				std::vector<std::string_view> p = path[j];
				p.push_back(w);
				double s = lm.wordsScore(lm.nullState(), p) * std::log(10.0);
				if (s > dp[i]) {
					dp[i] = s;
					path[i] = p;
				}
			}
		std::printf("%.4f\n", dp[n]);
		std::fflush(stdout);
	}
	return 0;
}
