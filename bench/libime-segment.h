// libime-segment.h — the best segmentation of a text into libime's words,
// for the two bench tools that read libime's zh_CN.lm (libime-score.cc,
// restore-ceiling-libime.cc): Viterbi over character positions, one best
// path each, words of up to 6 characters, a character the model lacks
// being its unknown word.  Not part of jinghua: measuring tools only.
#ifndef LIBIME_SEGMENT_H
#define LIBIME_SEGMENT_H

#include <string>
#include <string_view>
#include <vector>
#include <libime/core/languagemodel.h>

// The byte offset of each character of s, and s.size() last.
static inline std::vector<size_t> char_starts(std::string_view s)
{
	std::vector<size_t> v;
	for (size_t i = 0; i < s.size(); i++)
		if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80)
			v.push_back(i);
	v.push_back(s.size());
	return v;
}

// The words of s's best segmentation (views into s) and its score, a log10
// probability.  A path is scored whole from the null state: libime's public
// API has no step that hands back the next state without its lattice types.
static inline std::vector<std::string_view> best_segmentation(const libime::LanguageModel &lm,
                                                              std::string_view s, double *score)
{
	std::vector<size_t> at = char_starts(s);
	size_t n = at.size() - 1;
	std::vector<double> dp(n + 1, -1e30);
	std::vector<std::vector<std::string_view>> path(n + 1);
	dp[0] = 0;
	for (size_t i = 1; i <= n; i++)
		for (size_t j = i; j-- > 0 && i - j <= 6;) {
			if (dp[j] <= -1e29)
				continue;
			std::string_view w = s.substr(at[j], at[i] - at[j]);
			if (lm.isUnknown(lm.index(w), w) && i - j > 1)
				continue;
			std::vector<std::string_view> p = path[j];
			p.push_back(w);
			double sc = lm.wordsScore(lm.nullState(), p);
			if (sc > dp[i]) {
				dp[i] = sc;
				path[i] = p;
			}
		}
	if (score)
		*score = dp[n];
	return path[n];
}

#endif
