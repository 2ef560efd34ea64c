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
// mask_restore.c scores windows with sunpinyin's model (libime-segment.h).
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>
#include "libime-segment.h"

int main(int argc, char **argv)
{
	const char *file = argc > 1 ? argv[1] : "/usr/lib/x86_64-linux-gnu/libime/zh_CN.lm";
	libime::LanguageModel lm(file);
	std::string line;
	while (std::getline(std::cin, line)) {
		double log10p;
		best_segmentation(lm, line, &log10p);
		std::printf("%.4f\n", log10p * std::log(10.0));
		std::fflush(stdout);
	}
	return 0;
}
